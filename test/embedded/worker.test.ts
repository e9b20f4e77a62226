/**
 * The compiled engine runs on a worker thread by default and is reached through a Unix domain socket in its
 * data dir; it behaves as the in-thread engine does (the other suites run that one, under ts-jest).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import type * as Embedded from '../../src/embedded';
import { compiled } from '../helpers/build';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startEmbeddedServer } = require(compiled('src/embedded/index.js')) as typeof Embedded;

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'worker-test-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

test('the engine thread serves the driver over its socket and TCP, and what it acknowledged is there after a restart', async () => {
  const server = await startEmbeddedServer({ dataDir: dir, port: 0 });
  expect(server.uri).toBe(`mongodb://${encodeURIComponent(path.join(dir, 'engine.sock'))}/?directConnection=true`);
  const overSocket = await MongoClient.connect(server.uri);
  const overTcp = await MongoClient.connect(`mongodb://${server.host}:${server.port}/?directConnection=true`);
  try {
    await overSocket.db('w').collection('c').insertOne({ _id: 1 as never, via: 'socket' });
    await overTcp.db('w').collection('c').updateOne({ _id: 1 as never }, { $push: { seen: 'tcp' } });
    expect(await overSocket.db('w').collection('c').findOne({ _id: 1 as never })).toEqual({ _id: 1, via: 'socket', seen: ['tcp'] });
  } finally {
    await overSocket.close();
    await overTcp.close();
    await server.close();
  }

  const again = await startEmbeddedServer({ dataDir: dir, port: 0, thread: 'current' });
  const client = await MongoClient.connect(again.uri);
  try {
    expect(await client.db('w').collection('c').findOne({ _id: 1 as never })).toEqual({ _id: 1, via: 'socket', seen: ['tcp'] });
  } finally {
    await client.close();
    await again.close();
  }
});

test('a failure to start on the engine thread rejects with the engine’s error', async () => {
  const file = path.join(dir, 'not-a-dir');
  await writeFile(file, 'x');
  await expect(startEmbeddedServer({ dataDir: file, port: 0 })).rejects.toThrow(/EEXIST|ENOTDIR/);
});
