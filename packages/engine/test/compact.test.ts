/** `compact` rewrites the data directory so that deleted documents are in no file under it. */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { startEmbeddedServer } from '../src';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'compact-test-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** The files under `root` whose bytes contain `text`. */
async function filesHolding(root: string, text: string | Buffer): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    if ((await readFile(file)).includes(text)) found.push(path.relative(root, file));
  }
  return found;
}

test('after compact, deleted documents and their vectors are in no file; kept ones survive a restart', async () => {
  const dataDir = path.join(dir, 'data');
  const marker = 'zqx-compact-marker-7731';
  const vector = Array.from({ length: 64 }, (_, i) => i / 64 + 0.123456);
  let server = await startEmbeddedServer({ dataDir });
  let client = await MongoClient.connect(server.uri);
  try {
    const rows = client.db('d').collection<{ _id: string; [field: string]: unknown }>('c');
    // Before a first snapshot, and after it: both the journal and a snapshot hold the marker.
    await rows.insertMany([
      { _id: 'gone', text: marker, embeddings: { v: vector } },
      { _id: 'kept', text: 'ordinary' },
    ]);
    await client.db('d').command({ compact: 'c' });
    await rows.updateOne({ _id: 'kept' }, { $set: { note: marker } });
    const vectorBytes = Buffer.from(Float64Array.from(vector).buffer).subarray(8, 40);
    expect((await filesHolding(dataDir, marker)).length).toBeGreaterThan(0);
    expect((await filesHolding(dataDir, vectorBytes)).length).toBeGreaterThan(0);

    await rows.deleteOne({ _id: 'gone' });
    await rows.updateOne({ _id: 'kept' }, { $unset: { note: '' } });
    await client.db('d').command({ compact: 'c' });
    expect(await filesHolding(dataDir, marker)).toEqual([]);
    // Stored as float64 (the values do not survive float32): in the spill file, a snapshot and the journal before.
    expect(await filesHolding(dataDir, vectorBytes)).toEqual([]);
  } finally {
    await client.close();
    await server.close();
  }
  server = await startEmbeddedServer({ dataDir });
  client = await MongoClient.connect(server.uri);
  try {
    expect(await client.db('d').collection('c').find().toArray()).toEqual([{ _id: 'kept', text: 'ordinary' }]);
  } finally {
    await client.close();
    await server.close();
  }
});

test('compact needs a collection name, as mongod does', async () => {
  const server = await startEmbeddedServer({ dataDir: path.join(dir, 'data') });
  const client = await MongoClient.connect(server.uri);
  try {
    await expect(client.db('d').command({ compact: 1 })).rejects.toMatchObject({ code: 73 });
  } finally {
    await client.close();
    await server.close();
  }
});
