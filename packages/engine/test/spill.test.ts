/** The engine keeps long numeric arrays (embedding vectors) in a spill file, and every reader still sees arrays. */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { BSON, type Document } from 'bson';
import { MongoClient } from 'mongodb';
import { ChangeLog } from '../src/changes';
import { Engine } from '../src/commands';
import { startEmbeddedServer } from '../src';
import { VectorSpill } from '../src/spill';
import { Store } from '../src/store';

/** A 384-d vector; `float32` ones hold only float32 values (as vectors made from a Float32Array do). */
function vector(seed: number, float32 = true, length = 384): number[] {
  return Array.from({ length }, (_, i) =>
    float32 ? Math.fround(Math.sin(seed * 1000 + i)) : Math.sin(seed * 1000 + i) / 3,
  );
}

type NumberedDoc = { _id: number; [field: string]: unknown };

const COMPACTION_BYTES = 64 << 10;
let dir: string;
let store: Store;
let spill: VectorSpill;
let engine: Engine;
/** Runs a command and returns its reply as the wire would carry it. */
const run = async (command: Document): Promise<Document> =>
  BSON.deserialize(BSON.serialize(await engine.execute({ ...command, $db: 'db' }, 1)));
const find = async (filter: Document = {}, extra: Document = {}): Promise<Document[]> =>
  ((await run({ find: 'c', filter, ...extra })).cursor as Document).firstBatch as Document[];
const stored = (id: number): Document => store.collection('db', 'c')!.get(id)!;
const isSpilled = (container: Document, key: string): boolean =>
  typeof Object.getOwnPropertyDescriptor(container, key)?.get === 'function';

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'hindsight-spill-'));
  spill = new VectorSpill(dir, () => store.documents(), COMPACTION_BYTES);
  store = new Store(new ChangeLog(), spill);
  engine = new Engine(store, { append: async () => undefined });
});
afterEach(async () => {
  engine.close();
  spill.close();
  await rm(dir, { recursive: true, force: true });
});

test('long numeric arrays at the top level and in top-level subdocuments are spilled, and read back exactly', async () => {
  const doc = {
    _id: 1,
    embeddings: { a: vector(1), b: vector(2, false) },
    top: vector(3),
    short: vector(4, true, 63),
    mixed: [...vector(5, true, 70), 'x'],
    deep: { inner: { v: vector(6) } },
  };
  await run({ insert: 'c', documents: [doc] });

  expect(await find()).toEqual([doc]);
  // float32 values take 4 bytes each, others 8.
  expect(spill.fileBytes).toBe(384 * 4 + 384 * 8 + 384 * 4);
  const kept = stored(1);
  expect([isSpilled(kept.embeddings, 'a'), isSpilled(kept.embeddings, 'b'), isSpilled(kept, 'top')]).toEqual([
    true,
    true,
    true,
  ]);
  expect([isSpilled(kept, 'short'), isSpilled(kept, 'mixed'), isSpilled(kept.deep.inner, 'v')]).toEqual([
    false,
    false,
    false,
  ]);
  expect(Object.keys(kept)).toEqual(Object.keys(doc));
  expect(Object.keys(kept.embeddings)).toEqual(['a', 'b']);
});

test('queries, projections, aggregations and updates see spilled arrays as arrays', async () => {
  const a = vector(1);
  const top = vector(2, false);
  await run({
    insert: 'c',
    documents: [
      { _id: 1, embeddings: { a }, top },
      { _id: 2, embeddings: { a: vector(3) }, top: vector(4) },
    ],
  });

  expect((await find({ 'embeddings.a.0': a[0] })).map((doc) => doc._id)).toEqual([1]);
  expect((await find({ top: { $elemMatch: { $eq: top[100] } } })).map((doc) => doc._id)).toEqual([1]);
  expect(await find({ 'embeddings.a': { $size: 384 } })).toHaveLength(2);
  expect(await find({ _id: 1 }, { projection: { 'embeddings.a': { $slice: 2 }, top: 0 } })).toEqual([
    { _id: 1, embeddings: { a: a.slice(0, 2) } },
  ]);
  const aggregated = await run({
    aggregate: 'c',
    pipeline: [
      { $match: { _id: 1 } },
      { $project: { fifth: { $arrayElemAt: ['$embeddings.a', 5] }, n: { $size: '$top' }, sum: { $sum: '$top' } } },
    ],
    cursor: {},
  });
  expect((aggregated.cursor as Document).firstBatch).toEqual([
    { _id: 1, fifth: a[5], n: 384, sum: top.reduce((x, y) => x + y, 0) },
  ]);

  await run({ update: 'c', updates: [{ q: { _id: 1 }, u: { $set: { 'embeddings.a.3': 0.5 }, $push: { top: 7 } } }] });
  const [updated] = await find({ _id: 1 });
  expect(updated.embeddings.a).toEqual([...a.slice(0, 3), 0.5, ...a.slice(4)]);
  expect(updated.top).toEqual([...top, 7]);
  expect([isSpilled(stored(1).embeddings, 'a'), isSpilled(stored(1), 'top')]).toEqual([true, true]);

  // An update of another field shares the subdocument with the new version, so its arrays are not written again;
  // the new top-level document holds copies of the top-level ones, which are.
  const before = spill.fileBytes;
  const embeddings = stored(2).embeddings;
  await run({ update: 'c', updates: [{ q: { _id: 2 }, u: { $set: { feedback: 'good' } } }] });
  expect(stored(2).embeddings).toBe(embeddings);
  expect(spill.fileBytes - before).toBe(384 * 4);
  expect(await find({ _id: 2 })).toEqual([{ _id: 2, embeddings: { a: vector(3) }, top: vector(4), feedback: 'good' }]);
});

test('compaction keeps the file near what stored documents refer to; a document read elsewhere keeps its arrays', async () => {
  const ids = [1, 2, 3, 4, 5];
  await run({ insert: 'c', documents: ids.map((_id) => ({ _id, embeddings: { a: vector(_id) } })) });
  const replaced = stored(1); // as a cursor's batch or a snapshot being written would hold it

  let round = 0;
  for (; round < 60; round++) {
    for (const _id of ids)
      await run({ update: 'c', updates: [{ q: { _id }, u: { $set: { 'embeddings.a': vector(100 * round + _id) } } }] });
  }
  const live = ids.length * 384 * 4;
  // Written in all: 305 vectors of 1.5 KB, 460 KB. Compaction keeps it under twice the threshold plus the live part.
  expect(spill.fileBytes).toBeLessThan(2 * COMPACTION_BYTES + live);
  expect(await find()).toEqual(ids.map((_id) => ({ _id, embeddings: { a: vector(100 * (round - 1) + _id) } })));
  expect(replaced.embeddings.a).toEqual(vector(1));
  // One file is current; retired ones were unlinked (their data stays readable through an open descriptor).
  expect((await readdir(dir)).filter((name) => name.startsWith('spill-'))).toHaveLength(1);
});

test('a restarted server rebuilds its spill file from the journal and snapshots', async () => {
  const dataDir = path.join(dir, 'data');
  const docs = Array.from({ length: 50 }, (_, i) => ({
    _id: i,
    embeddings: { a: vector(i), b: vector(i, false) },
    n: i,
  }));
  // A small compaction threshold makes the first server snapshot, so the second loads a snapshot and a journal.
  let server = await startEmbeddedServer({ dataDir, port: 0, compactAfterBytes: 64 << 10 });
  let client = await MongoClient.connect(server.uri);
  await client.db('db').collection<NumberedDoc>('c').insertMany(docs.slice(0, 40));
  await client.db('db').collection<NumberedDoc>('c').insertMany(docs.slice(40));
  await client
    .db('db')
    .collection<NumberedDoc>('c')
    .updateOne({ _id: 3 }, { $set: { 'embeddings.a': vector(1000) } });
  await client.close();
  await server.close();
  expect((await readdir(dataDir)).filter((name) => name.startsWith('spill-'))).toEqual([]);
  expect((await readdir(dataDir)).some((name) => name.startsWith('snapshot-'))).toBe(true);

  server = await startEmbeddedServer({ dataDir, port: 0 });
  client = await MongoClient.connect(server.uri);
  try {
    const expected = docs.map((doc) =>
      doc._id === 3 ? { ...doc, embeddings: { ...doc.embeddings, a: vector(1000) } } : doc,
    );
    expect(await client.db('db').collection<NumberedDoc>('c').find().sort({ _id: 1 }).toArray()).toEqual(expected);
  } finally {
    await client.close();
    await server.close();
  }
});
