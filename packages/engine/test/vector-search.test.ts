/** Atlas Vector Search through the official driver: search index commands, $listSearchIndexes and $vectorSearch. */
import { readdir } from 'node:fs/promises';
import { MongoClient, MongoServerError, type Collection, type Document } from 'mongodb';
import { startEmbeddedServer, type EmbeddedServer } from '../src/index';
import { removeTempDirs, tempDir, withEngine } from './support/data-dir';

let engine: EmbeddedServer;
let client: MongoClient;

beforeAll(async () => {
  engine = await startEmbeddedServer({ dataDir: await tempDir() });
  client = await new MongoClient(engine.uri).connect();
});

afterAll(async () => {
  await client?.close();
  await engine?.close();
  await removeTempDirs();
});

/** Documents keyed by number or string, as the tests write them. */
interface Row extends Document {
  _id: number | string;
}

let n = 0;
async function freshCollection(docs: Row[] = []): Promise<Collection<Row>> {
  const collection = client.db('vs').collection<Row>(`c${n++}`);
  await client.db('vs').createCollection(collection.collectionName);
  if (docs.length) await collection.insertMany(docs);
  return collection;
}

const vectorIndex = (numDimensions: number, similarity = 'cosine', filters: string[] = []) => ({
  name: 'vec',
  type: 'vectorSearch',
  definition: {
    fields: [
      { type: 'vector', path: 'v', numDimensions, similarity },
      ...filters.map((path) => ({ type: 'filter', path })),
    ],
  },
});

const search = (collection: Collection<Row>, stage: Document, more: Document[] = []) =>
  collection.aggregate([{ $vectorSearch: { index: 'vec', path: 'v', ...stage } }, ...more]).toArray();

/** Seeded random numbers (mulberry32), so a failure replays. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

test('createSearchIndex, listSearchIndexes, updateSearchIndex and dropSearchIndex as on Atlas', async () => {
  const collection = await freshCollection();
  expect(await collection.createSearchIndexes([vectorIndex(3)])).toEqual(['vec']);
  const [listed] = (await collection.listSearchIndexes('vec').toArray()) as Document[];
  expect(listed).toMatchObject({
    name: 'vec',
    type: 'vectorSearch',
    status: 'READY',
    queryable: true,
    latestDefinitionVersion: { version: 0 },
    latestDefinition: vectorIndex(3).definition,
  });
  expect(typeof listed.id).toBe('string');

  const updated = vectorIndex(3, 'euclidean', ['tag']).definition;
  await collection.updateSearchIndex('vec', updated);
  expect(await collection.listSearchIndexes().toArray()).toMatchObject([
    { name: 'vec', latestDefinition: updated, latestDefinitionVersion: { version: 1 } },
  ]);

  const duplicate = await collection.createSearchIndexes([vectorIndex(3)]).catch((error: unknown) => error);
  expect(duplicate).toBeInstanceOf(MongoServerError);
  expect(duplicate).toMatchObject({ code: 68 });

  await collection.dropSearchIndex('vec');
  expect(await collection.listSearchIndexes().toArray()).toEqual([]);
  await expect(collection.dropSearchIndex('vec')).rejects.toMatchObject({ code: 27 });
});

test('a bad definition is refused with BadValue naming the field, and nothing is created', async () => {
  const collection = await freshCollection();
  const bad = (field: Document) =>
    collection.createSearchIndexes([{ name: 'vec', type: 'vectorSearch', definition: { fields: [field] } }]);
  await expect(bad({ type: 'vector', path: 'v', numDimensions: 0, similarity: 'cosine' })).rejects.toMatchObject({
    code: 2,
    message: '"definition.fields[0].numDimensions" must be an integer from 1 to 8192',
  });
  await expect(bad({ type: 'vector', path: 'v', numDimensions: 3, similarity: 'manhattan' })).rejects.toMatchObject({
    code: 2,
    message: '"definition.fields[0].similarity" must be one of [cosine, euclidean, dotProduct]',
  });
  await expect(bad({ type: 'filter', path: 'tag' })).rejects.toMatchObject({ code: 2 });
  await expect(
    client
      .db('vs')
      .collection('missing')
      .createSearchIndexes([vectorIndex(3)]),
  ).rejects.toMatchObject({ code: 26 });
  expect(await collection.listSearchIndexes().toArray()).toEqual([]);
});

test('scores as Atlas computes them for cosine, euclidean and dotProduct', async () => {
  const docs = [
    { _id: 1, v: [1, 0, 0] },
    { _id: 2, v: [0.6, 0.8, 0] },
    { _id: 3, v: [0, 0, 1] },
    { _id: 4, v: [1, 2] }, // wrong dimensions: not indexed
    { _id: 5, v: 'not a vector' },
  ];
  const query = [0.6, 0.8, 0];
  const expected = {
    cosine: (v: number[]) => (1 + v[0] * 0.6 + v[1] * 0.8) / 2,
    dotProduct: (v: number[]) => (1 + v[0] * 0.6 + v[1] * 0.8) / 2,
    euclidean: (v: number[]) => 1 / (1 + (v[0] - 0.6) ** 2 + (v[1] - 0.8) ** 2 + v[2] ** 2),
  };
  for (const [similarity, score] of Object.entries(expected)) {
    const collection = await freshCollection(docs);
    await collection.createSearchIndexes([vectorIndex(3, similarity)]);
    const rows = await search(collection, { queryVector: query, numCandidates: 10, limit: 5 }, [
      { $project: { score: { $meta: 'vectorSearchScore' } } },
    ]);
    expect(rows.map((row) => row._id)).toEqual([2, 1, 3]);
    rows.forEach((row) => expect(row.score).toBeCloseTo(score(docs[row._id - 1].v as number[]), 6));
  }
});

test('the score reaches later stages through $meta only, and limit caps the results', async () => {
  const collection = await freshCollection([
    { _id: 1, v: [1, 0], tag: 'a' },
    { _id: 2, v: [0, 1], tag: 'b' },
  ]);
  await collection.createSearchIndexes([vectorIndex(2)]);
  expect(await search(collection, { queryVector: [1, 0], numCandidates: 10, limit: 1 })).toEqual([
    { _id: 1, v: [1, 0], tag: 'a' },
  ]);
  expect(
    await search(collection, { queryVector: [1, 0], exact: true, limit: 2 }, [
      { $addFields: { s: { $meta: 'vectorSearchScore' } } },
      { $match: { s: { $lt: 0.9 } } },
      { $project: { _id: 1, s: 1 } },
    ]),
  ).toEqual([{ _id: 2, s: 0.5 }]);
});

test('filter pre-filters on the index filter fields with the MQL subset Atlas allows', async () => {
  const docs = Array.from({ length: 40 }, (_, i) => ({
    _id: i,
    v: [Math.cos(i / 10), Math.sin(i / 10)],
    tag: i % 2 ? 'odd' : 'even',
    rank: i,
  }));
  const collection = await freshCollection(docs);
  await collection.createSearchIndexes([vectorIndex(2, 'cosine', ['tag', 'rank'])]);
  const ids = async (filter: Document) =>
    (await search(collection, { queryVector: [1, 0], numCandidates: 40, limit: 3, filter })).map((row) => row._id);
  expect(await ids({ tag: 'odd' })).toEqual([1, 3, 5]);
  expect(await ids({ tag: { $eq: 'even' }, rank: { $gte: 10 } })).toEqual([10, 12, 14]);
  expect(await ids({ $or: [{ rank: { $in: [7, 30] } }, { rank: { $lt: 1 } }] })).toEqual([0, 7, 30]);
  expect(await ids({ rank: { $not: { $lt: 38 } } })).toEqual([39, 38]);

  await expect(ids({ v: { $exists: true } })).rejects.toMatchObject({
    code: 2,
    message: expect.stringContaining("Path 'v' needs to be indexed as filter"),
  });
  await expect(ids({ tag: { $regex: 'o' } })).rejects.toMatchObject({
    code: 2,
    message: expect.stringContaining('Operator "$regex" is not supported in a $vectorSearch filter'),
  });
});

test('a bad stage gets the code and message Atlas gives; an unknown index gives no documents', async () => {
  const collection = await freshCollection([{ _id: 1, v: [1, 0] }]);
  await collection.createSearchIndexes([vectorIndex(2)]);
  const failure = (stage: Document, before: Document[] = []) =>
    collection.aggregate([...before, { $vectorSearch: stage }]).toArray();
  const valid = { index: 'vec', path: 'v', queryVector: [1, 0], numCandidates: 10, limit: 1 };

  await expect(failure(valid, [{ $match: {} }])).rejects.toMatchObject({
    code: 40602,
    message: '$vectorSearch is only valid as the first stage in a pipeline',
  });
  await expect(failure({ ...valid, queryVector: undefined })).rejects.toMatchObject({
    code: 9,
    message: '"$vectorSearch.queryVector" is required and must be an array of numbers',
  });
  await expect(failure({ ...valid, numCandidates: 10_001 })).rejects.toMatchObject({
    code: 2,
    message: '"$vectorSearch.numCandidates" must be within bounds [limit, 10000]',
  });
  await expect(failure({ ...valid, limit: 11 })).rejects.toMatchObject({ code: 2 });
  await expect(failure({ ...valid, exact: true })).rejects.toMatchObject({ code: 9 });
  await expect(failure({ ...valid, limit: 0 })).rejects.toMatchObject({ code: 9 });
  await expect(failure({ ...valid, bogus: 1 })).rejects.toMatchObject({ code: 9 });
  await expect(failure({ ...valid, path: 'w' })).rejects.toMatchObject({
    code: 2,
    message: "Path 'w' needs to be indexed as vector",
  });
  await expect(failure({ ...valid, queryVector: [1, 0, 0] })).rejects.toMatchObject({ code: 2 });
  expect(await failure({ ...valid, index: 'nope' })).toEqual([]);
});

test('ANN over 2,000 random vectors finds ≥ 95% of the exact top 10, and follows inserts, updates and deletes', async () => {
  const next = random(42);
  const dims = 32;
  const vector = () => Array.from({ length: dims }, () => next() * 2 - 1);
  const collection = await freshCollection(Array.from({ length: 2_000 }, (_, i) => ({ _id: i, v: vector() })));
  await collection.createSearchIndexes([vectorIndex(dims)]);
  let found = 0;
  const queries = Array.from({ length: 25 }, vector);
  for (const queryVector of queries) {
    const exact = await search(collection, { queryVector, exact: true, limit: 10 });
    const ann = await search(collection, { queryVector, numCandidates: 100, limit: 10 });
    const truth = new Set(exact.map((row) => row._id));
    found += ann.filter((row) => truth.has(row._id)).length;
  }
  const recall = found / (queries.length * 10);
  expect(recall).toBeGreaterThanOrEqual(0.95);

  // The graph catches up with writes made after it was built.
  const [query] = queries;
  const [best] = await search(collection, { queryVector: query, numCandidates: 100, limit: 1 });
  await collection.deleteOne({ _id: best._id });
  const [afterDelete] = await search(collection, { queryVector: query, numCandidates: 100, limit: 1 });
  expect(afterDelete._id).not.toBe(best._id);
  await collection.insertOne({ _id: 'new', v: query });
  expect((await search(collection, { queryVector: query, numCandidates: 100, limit: 1 }))[0]._id).toBe('new');
  await collection.updateOne({ _id: 'new' }, { $set: { v: query.map((x) => -x) } });
  expect((await search(collection, { queryVector: query, numCandidates: 100, limit: 1 }))[0]._id).not.toBe('new');
});

test('ANN over a collection none of whose documents has a vector at the path finds none', async () => {
  // Past the size below which every search is exact: the graph is walked, and it is empty.
  const collection = await freshCollection(Array.from({ length: 1_000 }, (_, i) => ({ _id: i, text: `row ${i}` })));
  await collection.createSearchIndexes([vectorIndex(3)]);
  expect(await search(collection, { queryVector: [1, 0, 0], numCandidates: 100, limit: 10 })).toEqual([]);
  await collection.insertOne({ _id: 'one', v: [1, 0, 0] });
  expect(
    (await search(collection, { queryVector: [1, 0, 0], numCandidates: 100, limit: 10 })).map((row) => row._id),
  ).toEqual(['one']);
});

test('search index definitions survive a restart, from the journal and from a snapshot', async () => {
  for (const compactAfterBytes of [undefined, 4096]) {
    const dataDir = await tempDir();
    await withEngine(
      dataDir,
      async (c) => {
        const kept = c.db('vs').collection<Row>('kept');
        await c.db('vs').createCollection('kept');
        await kept.insertOne({ _id: 1, v: [1, 0] });
        await kept.createSearchIndexes([vectorIndex(2)]);
        await kept.insertOne({ _id: 2, v: [0, 1], big: 'x'.repeat(8000) }); // past compactAfterBytes: a snapshot follows
      },
      { compactAfterBytes },
    );
    const files = await readdir(dataDir);
    // With a snapshot, the journal that held the createSearchIndexes is gone: the snapshot must carry the index.
    expect(files.includes('journal-000000000001.log')).toBe(compactAfterBytes === undefined);
    await withEngine(dataDir, async (c) => {
      const kept = c.db('vs').collection<Row>('kept');
      expect(await kept.listSearchIndexes().toArray()).toMatchObject([{ name: 'vec', status: 'READY' }]);
      expect((await search(kept, { queryVector: [0, 1], numCandidates: 10, limit: 1 }))[0]._id).toBe(2);
    });
  }
});
