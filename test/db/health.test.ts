import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedServer, type EmbeddedServer } from '@hindsight/engine';
import { loadConfig } from '../../src/config';
import { silentLogger } from '../../src/logger';
import { startHindsight, type RunningHindsight } from '../../src/main';

/** A TCP port nothing listens on (taken from the OS, then released). */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await work();
  return { ms: performance.now() - started, value };
}

const WRITE = 'mutation { createSession(input: { sessionId: "s-1" }) { sessionId } }';

describe('a MongoDB URI whose server goes away and comes back (DB_TIMEOUT_MS default 2000)', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'hindsight-failfast-'));
  let port: number;
  let engine: EmbeddedServer | undefined;
  let running: RunningHindsight;
  const base = () => running.url.replace(/\/graphql$/, '');
  const graphql = async (query: string) => {
    const response = await fetch(running.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    });
    return (await response.json()) as { data?: unknown; errors?: { message: string; extensions: { code: string } }[] };
  };
  const startEngine = async () => {
    engine = await startEmbeddedServer({ dataDir: path.join(dataDir, 'engine'), port, host: '127.0.0.1' });
  };

  beforeAll(async () => {
    port = await closedPort();
    await startEngine();
    running = await startHindsight(
      loadConfig(
        {},
        {
          mongodbUri: `mongodb://127.0.0.1:${port}/failfast?directConnection=true`,
          dataDir,
          port: 0,
          host: '127.0.0.1',
          embeddingsProvider: 'hash',
        },
      ),
      silentLogger,
    );
  });
  afterAll(async () => {
    await running?.stop();
    await engine?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers SERVICE_UNAVAILABLE within 2.5 s without the URI, /ready 503 at once, and recovers by itself', async () => {
    expect((await graphql(WRITE)).errors).toBeUndefined();
    expect((await fetch(`${base()}/ready`)).status).toBe(200);

    await engine!.close();
    engine = undefined;
    const down = await timed(() => graphql('{ session(id: "s-1") { sessionId } }'));
    expect(down.ms).toBeLessThan(2500);
    expect(down.value.errors).toHaveLength(1);
    expect(down.value.errors![0].extensions.code).toBe('SERVICE_UNAVAILABLE');
    expect(JSON.stringify(down.value)).not.toMatch(new RegExp(`127\\.0\\.0\\.1|${port}|mongodb://`));
    const written = await timed(() => graphql('mutation { createSession(input: { sessionId: "s-2" }) { sessionId } }'));
    expect(written.ms).toBeLessThan(2500);
    expect(written.value.errors![0].extensions.code).toBe('SERVICE_UNAVAILABLE');

    const ready = await timed(() => fetch(`${base()}/ready`));
    expect(ready.ms).toBeLessThan(1000);
    expect(ready.value.status).toBe(503);

    await startEngine();
    // The driver's monitor finds the server again within its heartbeat (DB_TIMEOUT_MS here); no restart.
    const deadline = Date.now() + 10_000;
    let answer = await graphql('{ session(id: "s-1") { sessionId } }');
    while (answer.errors && Date.now() < deadline) answer = await graphql('{ session(id: "s-1") { sessionId } }');
    expect(answer).toEqual({ data: { session: { sessionId: 's-1' } } });
    expect(
      (await graphql('mutation { createSession(input: { sessionId: "s-3" }) { sessionId } }')).errors,
    ).toBeUndefined();
    // /ready answers from the recorded state at once; a failure that arrived late is cleared by the next recovery ping.
    const readyBy = Date.now() + 2000;
    let status = (await fetch(`${base()}/ready`)).status;
    while (status !== 200 && Date.now() < readyBy) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      status = (await fetch(`${base()}/ready`)).status;
    }
    expect(status).toBe(200);
  }, 30_000);
});

describe('GET /ready checks the database itself, not only what the driver last heard', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'hindsight-ready-'));
  let port: number;
  let engine: EmbeddedServer | undefined;
  let running: RunningHindsight;
  const ready = () => timed(() => fetch(`${running.url.replace(/\/graphql$/, '')}/ready`));

  beforeAll(async () => {
    port = await closedPort();
    engine = await startEmbeddedServer({ dataDir: path.join(dataDir, 'engine'), port, host: '127.0.0.1' });
    running = await startHindsight(
      loadConfig(
        {},
        {
          mongodbUri: `mongodb://127.0.0.1:${port}/ready?directConnection=true`,
          dataDir,
          port: 0,
          host: '127.0.0.1',
          embeddingsProvider: 'hash',
        },
      ),
      silentLogger,
    );
  });
  afterAll(async () => {
    await running?.stop();
    await engine?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers 503 at once when the database stops, before any request or heartbeat noticed, and 200 once it is back', async () => {
    expect((await ready()).value.status).toBe(200);
    // Past the age of the last ping /ready may answer from.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await engine!.close();
    engine = undefined;
    const down = await ready();
    expect(down.value.status).toBe(503);
    expect(await down.value.json()).toEqual({ status: 'unavailable', error: 'database unreachable' });
    // At most its ping's second (DB_TIMEOUT_MS when shorter), and some on a loaded machine.
    expect(down.ms).toBeLessThan(2500);

    engine = await startEmbeddedServer({ dataDir: path.join(dataDir, 'engine'), port, host: '127.0.0.1' });
    const deadline = Date.now() + 10_000;
    let status = (await ready()).value.status;
    while (status !== 200 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = (await ready()).value.status;
    }
    expect(status).toBe(200);
  }, 30_000);
});
