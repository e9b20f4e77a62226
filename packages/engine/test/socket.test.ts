/**
 * The engine is reached through a Unix domain socket in its data dir (cheaper per round trip than TCP loopback, and
 * only its user can open it), and through TCP on host:port only when a port is asked for. Every connection is held
 * to a frame deadline, a connection cap and an idle timeout.
 */
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { startEmbeddedServer, type EmbeddedServer } from '../src';

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

test('without a port there is no TCP listener: only the 0600 socket, in a 0700 directory, removed on close', async () => {
  const server = await startEmbeddedServer({ dataDir: dir });
  const socketPath = path.join(dir, 'engine.sock');
  try {
    expect([server.host, server.port, server.socketPath]).toEqual([undefined, undefined, socketPath]);
    expect(server.uri).toBe(`mongodb://${encodeURIComponent(socketPath)}/?directConnection=true`);
    expect((await stat(socketPath)).mode & 0o777).toBe(0o600);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    const client = await MongoClient.connect(server.uri);
    expect((await client.db('s').command({ ping: 1 })).ok).toBe(1);
    await client.close();
  } finally {
    await server.close();
  }
  await expect(stat(socketPath)).rejects.toThrow(/ENOENT/);
});

test('without a port, a data dir too long for a socket address gets a private 0700 socket dir, removed on close', async () => {
  const deep = path.join(dir, 'd'.repeat(120));
  const server = await startEmbeddedServer({ dataDir: deep });
  const socketDir = path.dirname(server.socketPath!);
  try {
    expect(server.port).toBeUndefined();
    expect(socketDir.startsWith(path.join(os.tmpdir(), 'hindsight-engine-'))).toBe(true);
    expect((await stat(socketDir)).mode & 0o777).toBe(0o700);
    const client = await MongoClient.connect(server.uri);
    expect((await client.db('s').command({ ping: 1 })).ok).toBe(1);
    await client.close();
  } finally {
    await server.close();
  }
  await expect(stat(socketDir)).rejects.toThrow(/ENOENT/);
});

describe('connection limits', () => {
  let server: EmbeddedServer;
  const open: net.Socket[] = [];
  afterEach(async () => {
    for (const socket of open.splice(0)) socket.destroy();
    await server.close();
  });

  /** A raw connection to the engine's socket, resolved once connected. */
  const connect = (): Promise<net.Socket> =>
    new Promise((resolve, reject) => {
      const socket = net.connect(server.socketPath!, () => resolve(socket));
      socket.on('error', reject);
      open.push(socket);
    });
  /** Milliseconds until the engine closes `socket`, or Infinity if it is still open after `waitMs`. */
  const closedAfter = (socket: net.Socket, waitMs: number): Promise<number> => {
    const started = performance.now();
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(Infinity), waitMs);
      socket.on('close', () => {
        clearTimeout(timer);
        resolve(performance.now() - started);
      });
    });
  };

  test('a message not completed within frameTimeoutMs closes its connection; a quiet one stays', async () => {
    server = await startEmbeddedServer({ dataDir: dir, frameTimeoutMs: 300 });
    const partial = await connect();
    const quiet = await connect();
    // The header announces 1 MB; 10 bytes arrive, then more trickles in, never the whole message.
    const header = Buffer.alloc(10);
    header.writeInt32LE(1_000_000, 0);
    partial.write(header);
    const trickle = setInterval(() => partial.write(Buffer.alloc(1)), 50);
    const [partialClosed, quietClosed] = await Promise.all([closedAfter(partial, 3_000), closedAfter(quiet, 1_000)]);
    clearInterval(trickle);
    expect(partialClosed).toBeGreaterThanOrEqual(250);
    expect(partialClosed).toBeLessThan(3_000);
    expect(quietClosed).toBe(Infinity);
  });

  test('beyond maxConnections a new connection is closed at once; below it again, one is accepted', async () => {
    server = await startEmbeddedServer({ dataDir: dir, maxConnections: 2 });
    const [first] = [await connect(), await connect()];
    expect(await closedAfter(await connect(), 2_000)).toBeLessThan(2_000);
    first.destroy();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await closedAfter(await connect(), 500)).toBe(Infinity);
  });

  test('an idle connection is closed after idleTimeoutMs and the driver carries on transparently', async () => {
    server = await startEmbeddedServer({ dataDir: dir, idleTimeoutMs: 300 });
    expect(await closedAfter(await connect(), 3_000)).toBeLessThan(3_000);
    // Heartbeats every 500 ms (the driver's floor) leave the pool's connection idle past the timeout.
    const client = await MongoClient.connect(server.uri, { heartbeatFrequencyMS: 500 });
    try {
      const rows = client.db('s').collection<Row>('c');
      await rows.insertOne({ _id: 1 });
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      await rows.insertOne({ _id: 2 });
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(await rows.countDocuments()).toBe(2);
    } finally {
      await client.close();
    }
  });
});
