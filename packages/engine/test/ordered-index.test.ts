/**
 * Sorted finds read from an index walk (and sorted finds with a limit that no index serves) return what a full
 * sort returns: every expectation is a reference computed here by filtering and sorting in plain JS.
 */
import type { Document } from 'bson';
import { findDocuments, type FindSpec, type Searchable } from '../src/query';
import { Collection } from '../src/store';

type Doc = Document;
const BASE = Date.UTC(2025, 0, 1);
const at = (minutes: number): Date => new Date(BASE + minutes * 60_000);

/** Type order of the values these tests use: missing/null, numbers, strings, dates (BSON order). */
function rank(value: unknown): number {
  if (value === undefined || value === null) return 0;
  if (typeof value === 'number') return 1;
  if (typeof value === 'string') return 2;
  return 3;
}
function compareScalars(a: unknown, b: unknown): number {
  if (rank(a) !== rank(b)) return rank(a) - rank(b);
  if (a instanceof Date) return a.getTime() - (b as Date).getTime();
  return a === b ? 0 : (a as number | string) < (b as number | string) ? -1 : 1;
}
/** A sort value as mongod takes it from an array: the smallest element ascending, the largest descending. */
const sortValue = (doc: Doc, field: string, dir: number): unknown =>
  Array.isArray(doc[field]) ? [...doc[field]].sort((a, b) => compareScalars(a, b) * dir)[0] : doc[field];

/** The expected result: matching documents sorted by `keys`, ties broken by `tie`, then skip/limit. */
function reference(
  docs: Doc[],
  matches: (doc: Doc) => boolean,
  keys: [string, number][],
  tie: (a: Doc, b: Doc) => number,
  skip = 0,
  limit = Infinity,
): unknown[] {
  return docs
    .filter(matches)
    .sort((a, b) => {
      for (const [field, dir] of keys) {
        const order = compareScalars(sortValue(a, field, dir), sortValue(b, field, dir)) * dir;
        if (order) return order;
      }
      return tie(a, b);
    })
    .slice(skip, skip + limit)
    .map((doc) => doc._id);
}

const ids = (collection: Searchable, spec: FindSpec): unknown[] =>
  findDocuments(collection, spec).map((doc) => doc._id);
/** Insertion order of the documents (`n` is their insertion rank). */
const inserted = (a: Doc, b: Doc): number => a.n - b.n;

let collection: Collection;
/** The stored documents, in insertion order, as the reference sees them. */
let docs: Doc[];

function insert(doc: Doc): void {
  collection.insert(doc, null);
  docs.push(doc);
}

beforeEach(() => {
  collection = new Collection('db', 'experiences', {});
  collection.addIndex({ v: 2, key: { timestamp: 1, experience_id: 1 }, name: 'timestamp' }, null);
  collection.addIndex({ v: 2, key: { agent: 1, timestamp: 1 }, name: 'agent_timestamp' }, null);
  docs = [];
  // 300 documents; timestamps repeat (every 3 minutes of 100), experience ids are unique and unrelated to insertion.
  for (let n = 0; n < 300; n++) {
    insert({
      _id: `d${n}`,
      n,
      experience_id: `e${(n * 7919) % 1000}`,
      timestamp: at((n * 37) % 100),
      agent: `a${n % 4}`,
      outcome: n % 3,
    });
  }
  // One without a timestamp: it sorts as null, before every date.
  insert({ _id: 'no-time', n: 300, experience_id: 'e-none', agent: 'a1', outcome: 0 });
});

test('a range with a sort along the index (reversed and not) gives the full sort, ties broken by the next index field', () => {
  for (const cut of [0, 1, 37, 50, 99, 100]) {
    const before = { timestamp: { $lt: at(cut) } };
    const isBefore = (doc: Doc) => doc.timestamp instanceof Date && doc.timestamp < at(cut);
    const byId = (dir: number) => (a: Doc, b: Doc) => compareScalars(a.experience_id, b.experience_id) * dir;
    expect(ids(collection, { filter: before, sort: { timestamp: -1, experience_id: -1 }, limit: 50 })).toEqual(
      reference(
        docs,
        isBefore,
        [
          ['timestamp', -1],
          ['experience_id', -1],
        ],
        inserted,
        0,
        50,
      ),
    );
    expect(ids(collection, { filter: before, sort: { timestamp: 1, experience_id: 1 }, skip: 5, limit: 20 })).toEqual(
      reference(
        docs,
        isBefore,
        [
          ['timestamp', 1],
          ['experience_id', 1],
        ],
        inserted,
        5,
        20,
      ),
    );
    // A sort on the first field alone is ordered by the walk: ties by experience_id in the walk's direction.
    expect(ids(collection, { filter: before, sort: { timestamp: -1 }, limit: 30 })).toEqual(
      reference(docs, isBefore, [['timestamp', -1]], byId(-1), 0, 30),
    );
    const from = { timestamp: { $gte: at(cut), $lte: at(cut + 20) } };
    const isFrom = (doc: Doc) => doc.timestamp >= at(cut) && doc.timestamp <= at(cut + 20);
    expect(ids(collection, { filter: from, sort: { timestamp: 1 } })).toEqual(
      reference(docs, isFrom, [['timestamp', 1]], byId(1)),
    );
  }
  // Without a bound the walk covers every document, the one lacking the field first (as null).
  const all = ids(collection, { filter: {}, sort: { timestamp: 1, experience_id: 1 } });
  expect(all).toEqual(
    reference(
      docs,
      () => true,
      [
        ['timestamp', 1],
        ['experience_id', 1],
      ],
      inserted,
    ),
  );
  expect(all[0]).toBe('no-time');
});

test('an equality on the first index field with a sort on the next gives the full sort, ties in record order', () => {
  for (const agent of ['a0', 'a1', 'a3']) {
    const isAgent = (doc: Doc) => doc.agent === agent;
    expect(ids(collection, { filter: { agent }, sort: { timestamp: -1 }, limit: 25 })).toEqual(
      reference(docs, isAgent, [['timestamp', -1]], (a, b) => b.n - a.n, 0, 25),
    );
    expect(
      ids(collection, { filter: { agent, timestamp: { $gt: at(40) } }, sort: { timestamp: 1 }, skip: 3, limit: 10 }),
    ).toEqual(reference(docs, (doc) => isAgent(doc) && doc.timestamp > at(40), [['timestamp', 1]], inserted, 3, 10));
    // The other filter conditions are still tested on every document the walk reads.
    expect(ids(collection, { filter: { agent, outcome: 2 }, sort: { timestamp: -1 }, limit: 5 })).toEqual(
      reference(
        docs,
        (doc) => isAgent(doc) && doc.outcome === 2,
        [['timestamp', -1]],
        (a, b) => b.n - a.n,
        0,
        5,
      ),
    );
  }
});

test('keyset pages along (timestamp desc, _id desc) through a single-field index visit every document once, in order', () => {
  collection = new Collection('db', 'sessions', {});
  collection.addIndex({ v: 2, key: { updated_at: 1 }, name: 'updated_at_1' }, null);
  const sessions = Array.from({ length: 120 }, (_, n) => ({
    _id: `s${(n * 31) % 120}`.padStart(4, '0'),
    n,
    updated_at: at(n % 25),
  }));
  for (const session of sessions) collection.insert(session, null);
  const expected = reference(
    sessions,
    () => true,
    [
      ['updated_at', -1],
      ['_id', -1],
    ],
    inserted,
  );
  const seen: unknown[] = [];
  let last: Doc | undefined;
  for (let page = 0; page < 20; page++) {
    const after = last
      ? { $or: [{ updated_at: { $lt: last.updated_at } }, { updated_at: last.updated_at, _id: { $lt: last._id } }] }
      : {};
    const rows = findDocuments(collection, {
      filter: { $and: [{}, after] },
      sort: { updated_at: -1, _id: -1 },
      limit: 21,
    });
    seen.push(...rows.slice(0, 20).map((doc) => doc._id));
    if (rows.length <= 20) break;
    last = rows[19];
  }
  expect(seen).toEqual(expected);
});

test('an array in an indexed field makes the index multikey: sorts fall back to the full sort, with mongod’s array rule', () => {
  insert({ _id: 'array', n: 301, experience_id: 'e-array', timestamp: [at(10), at(95)], agent: 'a2', outcome: 1 });
  expect(collection.indexes.get('timestamp')!.multikey).toBe(true);
  expect(ids(collection, { filter: {}, sort: { timestamp: -1, experience_id: -1 }, limit: 40 })).toEqual(
    reference(
      docs,
      () => true,
      [
        ['timestamp', -1],
        ['experience_id', -1],
      ],
      inserted,
      0,
      40,
    ),
  );
  expect(ids(collection, { filter: {}, sort: { timestamp: 1, experience_id: 1 }, limit: 40 })).toEqual(
    reference(
      docs,
      () => true,
      [
        ['timestamp', 1],
        ['experience_id', 1],
      ],
      inserted,
      0,
      40,
    ),
  );
});

test('removals and updates that change the key keep the walk in order', () => {
  const sort = { timestamp: -1, experience_id: -1 };
  const expected = () =>
    reference(
      docs,
      () => true,
      [
        ['timestamp', -1],
        ['experience_id', -1],
      ],
      inserted,
    );
  expect(ids(collection, { filter: {}, sort })).toEqual(expected()); // builds the ordered view
  for (let n = 0; n < 300; n += 7) {
    const doc = docs.find((d) => d.n === n)!;
    collection.remove(doc, null);
    docs.splice(docs.indexOf(doc), 1);
  }
  for (let n = 1; n < 300; n += 11) {
    const i = docs.findIndex((d) => d.n === n);
    if (i < 0) continue;
    const next = { ...docs[i], timestamp: at(200 + (n % 13)), experience_id: `moved${n}` };
    collection.replace(docs[i], next, null, 'update');
    docs[i] = next;
  }
  insert({ _id: 'late', n: 400, experience_id: 'e-late', timestamp: at(250), agent: 'a0', outcome: 0 });
  expect(ids(collection, { filter: {}, sort })).toEqual(expected());
  expect(ids(collection, { filter: { agent: 'a0' }, sort: { timestamp: -1 }, limit: 15 })).toEqual(
    reference(
      docs,
      (doc) => doc.agent === 'a0',
      [['timestamp', -1]],
      (a, b) => b.n - a.n,
      0,
      15,
    ),
  );
});

test('values of other types sort in BSON type order and range bounds stay within their type', () => {
  insert({ _id: 'number', n: 301, experience_id: 'e-number', timestamp: 5, agent: 'a0' });
  insert({ _id: 'string', n: 302, experience_id: 'e-string', timestamp: 'yesterday', agent: 'a0' });
  insert({ _id: 'null', n: 303, experience_id: 'e-null', timestamp: null, agent: 'a0' });
  const sorted = ids(collection, { filter: {}, sort: { timestamp: 1, experience_id: 1 }, limit: 5 });
  expect(sorted).toEqual(
    reference(
      docs,
      () => true,
      [
        ['timestamp', 1],
        ['experience_id', 1],
      ],
      inserted,
      0,
      5,
    ),
  );
  expect(sorted.slice(0, 4)).toEqual(['no-time', 'null', 'number', 'string']);
  const dates = ids(collection, { filter: { timestamp: { $lt: at(3) } }, sort: { timestamp: 1, experience_id: 1 } });
  expect(dates).toEqual(
    reference(
      docs,
      (doc) => doc.timestamp instanceof Date && doc.timestamp < at(3),
      [
        ['timestamp', 1],
        ['experience_id', 1],
      ],
      inserted,
    ),
  );
  expect(ids(collection, { filter: { timestamp: { $gte: 'a' } }, sort: { timestamp: -1 } })).toEqual(['string']);
});

test('a sorted find with a limit that no index serves selects the first matches as a full stable sort does', () => {
  for (const limit of [1, 7, 120]) {
    expect(ids(collection, { filter: { outcome: { $ne: 1 } }, sort: { outcome: -1 }, skip: 3, limit })).toEqual(
      reference(docs, (doc) => doc.outcome !== 1, [['outcome', -1]], inserted, 3, limit),
    );
  }
});

test('an index walk reads only the documents it returns (and those the filter rejects on the way)', () => {
  ids(collection, { filter: {}, sort: { timestamp: 1 }, limit: 1 });
  ids(collection, { filter: { agent: 'a0' }, sort: { timestamp: 1 }, limit: 1 });
  let reads = 0;
  // Any scan of the collection fails; point reads are counted.
  const trapped = Object.assign(new Map(collection.docs), {
    values(): never {
      throw new Error('scanned the collection');
    },
    entries(): never {
      throw new Error('scanned the collection');
    },
    [Symbol.iterator](): never {
      throw new Error('scanned the collection');
    },
    get(id: string) {
      reads++;
      return collection.docs.get(id);
    },
  });
  const view: Searchable = { docs: trapped, records: collection.records, indexes: collection.indexes };
  expect(
    ids(view, { filter: { timestamp: { $lt: at(50) } }, sort: { timestamp: -1, experience_id: -1 }, limit: 10 }),
  ).toHaveLength(10);
  // Walk bounds are inclusive: the documents at exactly the bound are read, then rejected.
  expect(reads).toBe(10 + docs.filter((doc) => doc.timestamp?.getTime() === at(50).getTime()).length);
  reads = 0;
  expect(
    ids(view, { filter: { agent: 'a1', timestamp: { $lte: at(80) } }, sort: { timestamp: -1 }, limit: 5 }),
  ).toHaveLength(5);
  expect(reads).toBe(5);
});
