/**
 * The engine is reached through a Unix domain socket in its data dir (cheaper per round trip than TCP loopback)
 * and through TCP on host:port, both serving the same data.
 */
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { startEmbeddedServer } from '../src';

interface Row {
  _id: number;
  via?: string;
  seen?: string[];
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'socket-test-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

test('the uri names the socket in the data dir, which serves the same data as TCP; a stale socket file is replaced', async () => {
  const socketPath = path.join(dir, 'engine.sock');
  await writeFile(socketPath, 'left behind by a killed engine');
  const server = await startEmbeddedServer({ dataDir: dir, port: 0 });
  expect(server.uri).toBe(`mongodb://${encodeURIComponent(socketPath)}/?directConnection=true`);
  expect((await stat(socketPath)).isSocket()).toBe(true);
  const overSocket = await MongoClient.connect(server.uri);
  const overTcp = await MongoClient.connect(`mongodb://${server.host}:${server.port}/?directConnection=true`);
  try {
    await overSocket.db('s').collection<Row>('c').insertOne({ _id: 1, via: 'socket' });
    await overTcp
      .db('s')
      .collection<Row>('c')
      .updateOne({ _id: 1 }, { $push: { seen: 'tcp' } });
    expect(await overSocket.db('s').collection<Row>('c').findOne({ _id: 1 })).toEqual({
      _id: 1,
      via: 'socket',
      seen: ['tcp'],
    });
  } finally {
    await overSocket.close();
    await overTcp.close();
    await server.close();
  }
  await expect(stat(socketPath)).rejects.toThrow(/ENOENT/);
});

test('a data dir whose socket path would be too long is served over TCP only', async () => {
  const deep = path.join(dir, 'd'.repeat(120));
  const server = await startEmbeddedServer({ dataDir: deep, port: 0 });
  try {
    expect(server.uri).toBe(`mongodb://${server.host}:${server.port}/?directConnection=true`);
    const client = await MongoClient.connect(server.uri);
    expect((await client.db('s').command({ ping: 1 })).ok).toBe(1);
    await client.close();
  } finally {
    await server.close();
  }
});
