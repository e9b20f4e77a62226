import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { spawnServer } from '../support/build';

interface Started {
  child: ChildProcess;
  graphqlUrl: string;
  engineUri: string;
  exited: Promise<number | null>;
}

/**
 * Starts `node dist/src/main.js` as `npm start` does and waits for the printed URLs. `signalOnReady` is sent the moment
 * the URL line arrives, as a supervisor reading it would.
 */
async function startMain(
  dataDir: string,
  signalOnReady?: NodeJS.Signals,
  env: Record<string, string> = {},
): Promise<Started> {
  const server = spawnServer(dataDir, { HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env });
  if (signalOnReady)
    server.ready.then(
      () => server.child.kill(signalOnReady),
      () => undefined,
    );
  const graphqlUrl = await server.ready;
  // The engine logs its URI before the server prints its own.
  const engineUri = /"uri":"(mongodb:\/\/[^"]+)"/.exec(server.output())?.[1];
  if (!engineUri) throw new Error(`no engine URI before the API's:\n${server.output()}`);
  return { child: server.child, graphqlUrl, engineUri, exited: server.exited.then(({ code }) => code) };
}

describe('npm start process', () => {
  it('prints its URL, shuts down cleanly on SIGTERM and SIGINT, and a restart on the same DATA_DIR sees every write', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'hindsight-shutdown-'));
    try {
      const first = await startMain(dataDir);
      const response = await fetch(first.graphqlUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ serverInfo { database { kind } } }' }),
      });
      expect(await response.json()).toEqual({ data: { serverInfo: { database: { kind: 'EMBEDDED' } } } });

      const client = await MongoClient.connect(first.engineUri);
      const docs = Array.from({ length: 500 }, (_, i) => ({ _id: i, text: `write ${i}` }));
      await client
        .db('hindsight')
        .collection('shutdown_probe')
        .insertMany(docs as any[]);
      await client.close();

      first.child.kill('SIGTERM');
      expect(await first.exited).toBe(0);

      const second = await startMain(dataDir);
      const reader = await MongoClient.connect(second.engineUri);
      expect(await reader.db('hindsight').collection('shutdown_probe').countDocuments()).toBe(500);
      await reader.close();
      second.child.kill('SIGINT');
      expect(await second.exited).toBe(0);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('ends within 10 s of SIGTERM while a request holds the main thread in a synchronous loop, keeping acknowledged writes', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'hindsight-shutdown-'));
    // A request whose body holds the marker never leaves JSON.parse: a synchronous loop no deadline or timer can end.
    const preload = path.join(dataDir, '..', `${path.basename(dataDir)}-spin.js`);
    writeFileSync(
      preload,
      `const parse = JSON.parse;
       JSON.parse = function (text, reviver) {
         if (typeof text === 'string' && text.includes('spin-forever-marker')) for (;;);
         return parse.call(this, text, reviver);
       };`,
    );
    try {
      const server = await startMain(dataDir, undefined, { NODE_OPTIONS: `--require ${preload}` });
      const post = (query: string) =>
        fetch(server.graphqlUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query }),
        });
      const created = await post('mutation { createSession(input: { sessionId: "before-the-stall" }) { sessionId } }');
      expect(await created.json()).toEqual({ data: { createSession: { sessionId: 'before-the-stall' } } });
      const client = await MongoClient.connect(server.engineUri);
      await client
        .db('hindsight')
        .collection('shutdown_probe')
        .insertMany(Array.from({ length: 200 }, (_, i) => ({ _id: i, text: `write ${i}` })) as any[]);
      await client.close();

      const stuck = post('{ session(id: "spin-forever-marker") { sessionId } }').catch((error: Error) => error);
      // The main thread is stuck once /health no longer answers.
      await expect(
        fetch(server.graphqlUrl.replace(/graphql$/, 'health'), { signal: AbortSignal.timeout(1000) }),
      ).rejects.toThrow();

      const signalled = Date.now();
      server.child.kill('SIGTERM');
      await server.exited;
      expect(Date.now() - signalled).toBeLessThanOrEqual(10_000);
      // The stuck request was never answered: its connection closed with the process (fetch's TypeError).
      expect(await stuck).toHaveProperty('name', 'TypeError');

      const second = await startMain(dataDir);
      const reader = await MongoClient.connect(second.engineUri);
      expect(await reader.db('hindsight').collection('shutdown_probe').countDocuments()).toBe(200);
      await reader.close();
      const read = await fetch(second.graphqlUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ session(id: "before-the-stall") { sessionId } }' }),
      });
      expect(await read.json()).toEqual({ data: { session: { sessionId: 'before-the-stall' } } });
      second.child.kill('SIGTERM');
      expect(await second.exited).toBe(0);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(preload, { force: true });
    }
  }, 90_000);

  it('shuts down cleanly on a SIGTERM sent as soon as it prints its URL', async () => {
    // Three starts: a signal that beats the handler kills the process by its default action only now and then. They
    // run side by side, each on its own DATA_DIR: each is still signalled the moment its own URL line arrives.
    const dataDirs = Array.from({ length: 3 }, () => mkdtempSync(path.join(os.tmpdir(), 'hindsight-shutdown-')));
    try {
      const codes = await Promise.all(dataDirs.map(async (dataDir) => (await startMain(dataDir, 'SIGTERM')).exited));
      // 0 from the shutdown handler; null when the signal killed it (its search index then went unsaved).
      expect(codes).toEqual([0, 0, 0]);
    } finally {
      for (const dataDir of dataDirs) rmSync(dataDir, { recursive: true, force: true });
    }
  }, 180_000); // three starts
});
