/** The engine stops a command that exceeds its maxTimeMS with 50 MaxTimeMSExpired, through the official driver. */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MongoClient, MongoServerError, type Collection, type Document } from 'mongodb';
import { startEmbeddedServer, type EmbeddedServer } from '../src';

let dir: string;
let server: EmbeddedServer;
let client: MongoClient;
let rows: Collection<{ _id: number }>;
const DOCS = 20_000;

// An unindexed filter whose expression costs milliseconds per document: over a minute for the whole collection.
const slow: Document = {
  $expr: { $lt: [{ $reduce: { input: { $range: [0, 300] }, initialValue: 0, in: { $add: ['$$value', 1] } } }, 0] },
};

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'max-time-test-'));
  server = await startEmbeddedServer({ dataDir: dir });
  client = await MongoClient.connect(server.uri);
  rows = client.db('t').collection('rows');
  await rows.insertMany(Array.from({ length: DOCS }, (_, i) => ({ _id: i })));
}, 60_000);
afterAll(async () => {
  await client.close();
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

/** The error `work` fails with and how long it took to come back. */
async function failure(work: () => Promise<unknown>): Promise<{ code: unknown; ms: number }> {
  const started = performance.now();
  const error = await work().then(
    () => undefined,
    (error: unknown) => error,
  );
  return { code: error instanceof MongoServerError ? error.code : error, ms: performance.now() - started };
}

test.each([
  ['find', () => rows.find(slow, { maxTimeMS: 100 }).toArray()],
  ['aggregate', () => rows.aggregate([{ $match: slow }], { maxTimeMS: 100 }).toArray()],
  ['aggregate without a filter', () => rows.aggregate([{ $project: { x: slow.$expr } }], { maxTimeMS: 100 }).toArray()],
  ['count', () => client.db('t').command({ count: 'rows', query: slow, maxTimeMS: 100 })],
  ['distinct', () => rows.distinct('_id', slow, { maxTimeMS: 100 })],
  ['updateMany', () => rows.updateMany(slow, { $set: { x: 1 } }, { maxTimeMS: 100 })],
  ['deleteMany', () => rows.deleteMany(slow, { maxTimeMS: 100 })],
])('%s past its maxTimeMS stops with 50 MaxTimeMSExpired', async (_name, work) => {
  const { code, ms } = await failure(work);
  expect(code).toBe(50);
  // Without the limit each runs for over a minute; the bound leaves room for a loaded machine.
  expect(ms).toBeLessThan(10_000);
});

test('within its maxTimeMS a command answers; the deadline does not outlive it', async () => {
  expect(await rows.countDocuments({ _id: { $lt: 10 } }, { maxTimeMS: 5_000 })).toBe(10);
  expect(await rows.find({ _id: { $gte: DOCS - 5 } }).toArray()).toHaveLength(5);
  expect(await rows.countDocuments()).toBe(DOCS);
});
