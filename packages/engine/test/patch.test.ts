/**
 * Updates are journaled as patches (only what changed) and replay to byte-identical documents; pipeline
 * `$set` updates share unchanged subtrees with the stored version; cached sizes equal bson's.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { BSON, Binary, Decimal128, Double, Int32, Long, MinKey, ObjectId, Timestamp, type Document } from 'bson';
import { Engine } from '../src/commands';
import { DurableLog, type JournalOp } from '../src/durability';
import { applyPatch, diffDocuments } from '../src/patch';
import { Store } from '../src/store';
import { immutableSize } from '../src/values';

const bytes = (doc: Document) => Buffer.from(BSON.serialize(doc)).toString('hex');

describe('diffDocuments and applyPatch', () => {
  const base = { _id: 1, a: { b: 1, c: [1, 2, 3] }, list: [{ x: 1 }, { x: 2 }], s: 'v', n: null };
  const cases: Array<[string, Document]> = [
    ['a nested field set', { ...base, a: { ...base.a, b: 2 } }],
    ['a field removed', { _id: 1, a: base.a, list: base.list, n: null }],
    ['a new field appended', { ...base, added: { deep: true } }],
    ['an array grown at the end', { ...base, list: [...base.list, { x: 3 }, { x: 4 }] }],
    ['an element changed inside an array', { ...base, list: [base.list[0], { x: 20, y: 1 }] }],
    ['an array shortened', { ...base, list: [base.list[1]] }],
    ['nested field order changed', { ...base, a: { c: base.a.c, b: 1 } }],
    ['an object turned into an array', { ...base, a: [1] }],
    ['a value changed to another type', { ...base, s: new Int32(5), n: -0 }],
  ];

  test.each(cases)(
    '%s: the patch rebuilds the new version byte for byte, and applying it again changes nothing',
    (_, next) => {
      const steps = diffDocuments(base, next)!;
      expect(steps).not.toBeNull();
      const rebuilt = applyPatch(base, steps);
      expect(bytes(rebuilt)).toBe(bytes(next));
      expect(bytes(applyPatch(rebuilt, steps))).toBe(bytes(next));
      expect(bytes(base)).toBe(
        bytes({ _id: 1, a: { b: 1, c: [1, 2, 3] }, list: [{ x: 1 }, { x: 2 }], s: 'v', n: null }),
      );
    },
  );

  test('an array that only grew is one append step carrying the new items', () => {
    const messages = Array.from({ length: 100 }, (_, i) => ({ id: i, text: 'x'.repeat(100) }));
    const prev = { _id: 1, agents: { a: { messages }, b: { messages } } };
    const next = { ...prev, agents: { ...prev.agents, a: { messages: [...messages, { id: 100, text: 'new' }] } } };
    expect(diffDocuments(prev, next)).toEqual([
      { k: 'a', p: ['agents', 'a', 'messages'], at: 100, v: [{ id: 100, text: 'new' }] },
    ]);
  });

  test('a changed top-level field order cannot be a patch', () => {
    expect(diffDocuments({ _id: 1, a: 1, b: 2 }, { _id: 1, b: 2, a: 1 })).toBeNull();
  });

  test('a step that does not fit the document (journal and state disagree) throws', () => {
    expect(() => applyPatch({ _id: 1 }, [{ k: 'a', p: ['missing'], at: 0, v: [1] }])).toThrow(/does not fit/);
    expect(() => applyPatch({ _id: 1, a: 5 }, [{ k: 's', p: ['a', 'b'], v: 1 }])).toThrow(/does not fit/);
  });
});

describe('update journaling and recovery', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'patch-test-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  async function open(): Promise<{
    engine: Engine;
    store: Store;
    log: DurableLog;
    run: (command: Document) => Promise<Document>;
  }> {
    const store = new Store();
    const log = await DurableLog.open(dir, store, { fsync: false });
    const engine = new Engine(store, log);
    const run = async (command: Document) => {
      const reply = await engine.execute({ ...command, $db: 'db' }, 1);
      expect(reply.ok).toBe(1);
      expect(reply.writeErrors).toBeUndefined();
      return reply;
    };
    return { engine, store, log, run };
  }

  const dump = (store: Store) => [...store.collection('db', 'c')!.docs.values()].map(bytes);

  test('a $push to a long array journals the new element, not the document', async () => {
    const appends: JournalOp[][] = [];
    const engine = new Engine(new Store(), { append: async (ops) => void appends.push(ops) });
    const items = Array.from({ length: 200 }, (_, i) => ({ i, pad: 'p'.repeat(200) }));
    await engine.execute({ insert: 'c', documents: [{ _id: 1, items }], $db: 'db' }, 1);
    await engine.execute(
      { update: 'c', updates: [{ q: { _id: 1 }, u: { $push: { items: { i: 200 } } } }], $db: 'db' },
      1,
    );
    const [, op] = appends[1]; // after the clock op of its change event
    expect(op).toEqual({
      t: 'patch',
      db: 'db',
      coll: 'c',
      id: 1,
      steps: [{ k: 'a', p: ['items'], at: 200, v: [{ i: 200 }] }],
    });
    expect(BSON.serialize(op).length).toBeLessThan(200);
    engine.close();
  });

  test('every kind of update replays from the journal (and from a snapshot plus journal) to byte-identical documents', async () => {
    const first = await open();
    const { run } = first;
    await run({ createIndexes: 'c', indexes: [{ key: { tag: 1 }, name: 'tag_1' }] });
    await run({
      insert: 'c',
      documents: [
        {
          _id: 1,
          tag: 'a',
          n: 1,
          items: [
            { k: 1, v: 'x' },
            { k: 2, v: 'y' },
          ],
          nested: { deep: { x: 1 } },
          big: Long.fromString('9007199254740993'),
        },
        { _id: 2, tag: 'b', agents: { a: { messages: [{ message_id: 1, text: 'hi' }] } } },
        { _id: new ObjectId(), tag: 'c', bin: new Binary(Buffer.from([1, 2]), 4), dec: Decimal128.fromString('1.10') },
      ],
    });
    const updates: Document[] = [
      { q: { _id: 1 }, u: { $set: { 'nested.deep.y': 2, tag: 'z' }, $inc: { n: 1, big: Long.fromNumber(1) } } },
      { q: { _id: 1 }, u: { $unset: { 'nested.deep.x': '' }, $rename: { n: 'm' } } },
      { q: { _id: 1 }, u: { $set: { 'items.$[e].v': 'w' } }, arrayFilters: [{ 'e.k': 2 }] },
      { q: { _id: 1 }, u: { $pull: { items: { k: 1 } }, $currentDate: { at: true } } },
      { q: { _id: 1 }, u: { $push: { items: { $each: [{ k: 3 }, { k: 0 }], $sort: { k: 1 } } } } },
      { q: { tag: 'c' }, u: { $set: { bin: new Binary(Buffer.from([1, 2]), 0), dec: new Double(1.1) } } },
      {
        q: { _id: 2 },
        u: [
          {
            $set: {
              'agents.a.messages': {
                $concatArrays: [
                  '$agents.a.messages',
                  [{ message_id: { $add: [{ $max: '$agents.a.messages.message_id' }, 1] }, text: 'next' }],
                ],
              },
              'agents.b.created': { $literal: new Date(0) },
              updated: '$$ROOT.tag',
            },
          },
        ],
      },
      { q: { _id: 2 }, u: [{ $set: { tag: 'y' } }, { $unset: 'updated' }] },
      { q: { _id: 3 }, u: { $set: { fresh: true } }, upsert: true },
      { q: { _id: 3 }, u: { _id: 3, replaced: [1, 2] } },
    ];
    for (const statement of updates) await run({ update: 'c', updates: [statement] });
    const expected = dump(first.store);
    await first.log.close();
    first.engine.close();

    const second = await open();
    expect(second.log.recovery.ops).toBeGreaterThan(updates.length);
    expect(dump(second.store)).toEqual(expected);
    // The secondary index was rebuilt from the replayed documents.
    expect(
      (await second.run({ find: 'c', filter: { tag: 'z' } })).cursor.firstBatch.map((doc: Document) => doc._id),
    ).toEqual([1]);
    await second.log.compact();
    await second.run({
      update: 'c',
      updates: [{ q: { _id: 2 }, u: { $push: { 'agents.a.messages': { message_id: 3 } } } }],
    });
    const afterCompaction = dump(second.store);
    await second.log.close();
    second.engine.close();

    const third = await open();
    expect(third.log.recovery.snapshot).not.toBeNull();
    expect(dump(third.store)).toEqual(afterCompaction);
    await third.log.close();
    third.engine.close();
  });
});

describe('pipeline updates made of $set stages', () => {
  let engine: Engine;
  let store: Store;
  const run = (command: Document) => engine.execute({ ...command, $db: 'db' }, 1);
  beforeEach(() => {
    store = new Store();
    engine = new Engine(store, { append: async () => undefined });
  });
  afterEach(() => engine.close());

  const pipelines: Array<[string, Document[]]> = [
    [
      'a computed nested path',
      [
        {
          $set: {
            'agents.a.messages': {
              $concatArrays: ['$agents.a.messages', [{ id: { $add: [{ $max: '$agents.a.messages.id' }, 1] } }]],
            },
          },
        },
      ],
    ],
    ['missing and null parents become documents', [{ $set: { 'none.x.y': 1, 'nul.z': '$_id' } }]],
    [
      'fields see the stage input, stages see the previous stage',
      [{ $set: { total: { $size: '$agents.a.messages' }, 'agents.a.count': 0 } }, { $addFields: { again: '$total' } }],
    ],
    [
      '$mergeObjects over an existing sub-document',
      [{ $set: { 'agents.b': { $mergeObjects: ['$agents.b', { seen: true }] } } }],
    ],
  ];

  test.each(pipelines)('%s: the result equals the same stages run as an aggregation', async (_, stages) => {
    const doc = { _id: 1, nul: null, agents: { a: { messages: [{ id: 1 }, { id: 2 }] }, b: { name: 'b' } } };
    await run({ insert: 'c', documents: [doc] });
    const aggregated = await run({ aggregate: 'c', pipeline: [{ $match: { _id: 1 } }, ...stages], cursor: {} });
    const updated = await run({ findAndModify: 'c', query: { _id: 1 }, update: stages, new: true });
    expect(updated.ok).toBe(1);
    expect(bytes(updated.value)).toBe(bytes(aggregated.cursor.firstBatch[0]));
  });

  test('subtrees a $set does not write stay the stored objects (copy on write)', async () => {
    await run({
      insert: 'c',
      documents: [{ _id: 1, agents: { a: { messages: [{ id: 1 }] }, b: { messages: [{ id: 1 }] } }, meta: { k: 1 } }],
    });
    const before = store.collection('db', 'c')!.get(1)!;
    await run({
      update: 'c',
      updates: [
        {
          q: { _id: 1 },
          u: [{ $set: { 'agents.a.messages': { $concatArrays: ['$agents.a.messages', [{ id: 2 }]] } } }],
        },
      ],
    });
    const after = store.collection('db', 'c')!.get(1)!;
    expect(after.agents.a.messages).toEqual([{ id: 1 }, { id: 2 }]);
    expect(after.agents.a.messages[0]).toBe(before.agents.a.messages[0]);
    expect(after.agents.b).toBe(before.agents.b);
    expect(after.meta).toBe(before.meta);
    expect(before.agents.a.messages).toEqual([{ id: 1 }]);
  });
});

test('the cached size of a document equals bson’s size for every value type', () => {
  const doc = {
    _id: new ObjectId(),
    s: 'héllo ✓ 𝄞',
    ké: 1,
    negZero: -0,
    int32Max: 2 ** 31 - 1,
    beyondInt32: 2 ** 31,
    fraction: 1.5,
    nan: NaN,
    long: Long.fromNumber(5),
    date: new Date(),
    bool: true,
    nul: null,
    undef: undefined,
    bin: new Binary(Buffer.from('abc'), 4),
    dec: Decimal128.fromString('1.10'),
    ts: new Timestamp({ t: 1, i: 2 }),
    i32: new Int32(3),
    dbl: new Double(2),
    re: /a+b/gi,
    min: new MinKey(),
    arr: [1, 'x', [null, undefined, { a: [] }], {}],
    nested: { deep: { deeper: [new Date(0), 'z'] } },
  };
  expect(immutableSize(doc)).toBe(BSON.calculateObjectSize(doc));
  expect(immutableSize(doc)).toBe(BSON.serialize(doc).length);
});
