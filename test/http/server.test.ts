import { mkdtempSync, existsSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config';
import { silentLogger } from '../../src/logger';
import { startHindsight, type RunningHindsight } from '../../src/main';
import { startEmbeddedServer } from '@hindsight/engine';

const SERVER_INFO = '{ serverInfo { database { kind } } }';

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

function tempDir(): string {
  return mkdtempSync(path.join(os.tmpdir(), 'hindsight-http-'));
}

describe('HTTP server (real listener, embedded engine by default)', () => {
  const dataDir = tempDir();
  let running: RunningHindsight;
  const base = () => running.url.replace(/\/graphql$/, '');

  beforeAll(async () => {
    running = await startHindsight(
      loadConfig({}, { dataDir, port: 0, host: '127.0.0.1', embeddingsProvider: 'hash' }),
      silentLogger,
    );
  });
  afterAll(async () => {
    await running?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('POST /graphql answers serverInfo with the EMBEDDED database kind', async () => {
    const { status, body } = await post(running.url, { query: SERVER_INFO });
    expect(status).toBe(200);
    expect(body).toEqual({ data: { serverInfo: { database: { kind: 'EMBEDDED' } } } });
  });

  it('GET /graphql runs a query (with the CSRF preflight header)', async () => {
    const response = await fetch(`${running.url}?query=${encodeURIComponent(SERVER_INFO)}`, {
      headers: { 'apollo-require-preflight': 'true' },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ data: { serverInfo: { database: { kind: 'EMBEDDED' } } } });
  });

  it('GET /graphql from a browser serves the playground page, whose every asset this server serves', async () => {
    const response = await fetch(running.url, { headers: { accept: 'text/html' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/html');
    const assets = [...(await response.text()).matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]);
    expect(assets).toEqual(expect.arrayContaining(['playground/graphiql.js', 'playground/graphiql.css']));
    for (const asset of assets) {
      const url = new URL(asset, running.url);
      expect(url.origin).toBe(new URL(running.url).origin);
      const served = await fetch(url);
      expect([asset, served.status, (await served.arrayBuffer()).byteLength > 0]).toEqual([asset, 200, true]);
    }
  });

  it('GET /health and GET /ready answer JSON', async () => {
    const health = await fetch(`${base()}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok' });
    const ready = await fetch(`${base()}/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', database: 'EMBEDDED' });
  });

  it('a body that is not JSON gets 400 with a code, and the server keeps serving', async () => {
    const { status, body } = await post(running.url, '{"query": ');
    expect(status).toBe(400);
    expect(body.errors[0].extensions.code).toBe('BAD_REQUEST');
    expect((await post(running.url, { query: SERVER_INFO })).status).toBe(200);
  });

  it('a client that reuses its connection after 6 s idle gets the answer to a 12 MB body on it', async () => {
    // A pooling client (a proxy, Python's requests) keeps an idle connection longer than Node's default 5 s
    // keep-alive: a server closing it first resets the request sent on it, and a large body cannot slip through.
    const { hostname, port } = new URL(running.url);
    const socket = net.connect(Number(port), hostname);
    let received = Buffer.alloc(0);
    let closed = false;
    socket.on('data', (chunk: Buffer) => (received = Buffer.concat([received, chunk])));
    socket.on('close', () => (closed = true));
    socket.on('error', () => undefined); // a reset shows as the missing answer below
    const answer = async (body: string): Promise<{ status: number; body: any }> => {
      received = Buffer.alloc(0);
      socket.write(
        `POST /graphql HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      for (;;) {
        const head = received.indexOf('\r\n\r\n');
        const length = head < 0 ? null : /content-length: (\d+)/i.exec(received.subarray(0, head).toString());
        if (length && received.length >= head + 4 + Number(length[1])) {
          const text = received.subarray(head + 4, head + 4 + Number(length[1])).toString();
          return { status: Number(received.subarray(9, 12).toString()), body: JSON.parse(text) };
        }
        if (closed) throw new Error(`the server closed the connection; it answered: ${received.toString()}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    try {
      const expected = { status: 200, body: { data: { serverInfo: { database: { kind: 'EMBEDDED' } } } } };
      expect(await answer(JSON.stringify({ query: SERVER_INFO }))).toEqual(expected);
      await new Promise((resolve) => setTimeout(resolve, 6000));
      // A mutation: a request running none may send at most MAX_READ_BODY_BYTES.
      const write = 'mutation { createSession(input: { sessionId: "after-idle" }) { sessionId } }';
      const large = JSON.stringify({ query: `#${'x'.repeat(12 * 1024 * 1024)}\n${write}` });
      expect(await answer(large)).toEqual({
        status: 200,
        body: { data: { createSession: { sessionId: 'after-idle' } } },
      });
    } finally {
      socket.destroy();
    }
  }, 60_000);

  it('an unknown path is a JSON 404', async () => {
    const response = await fetch(`${base()}/nope`);
    expect(response.status).toBe(404);
  });

  it('a second start on the same DATA_DIR sees the data written before the stop', async () => {
    await running.deps.database.db.collection('restart_probe').insertOne({ _id: 'kept' as any, value: 42 });
    await running.stop();
    running = await startHindsight(
      loadConfig({}, { dataDir, port: 0, host: '127.0.0.1', embeddingsProvider: 'hash' }),
      silentLogger,
    );
    expect(await running.deps.database.db.collection('restart_probe').findOne({ _id: 'kept' as any })).toEqual({
      _id: 'kept',
      value: 42,
    });
  });
});

describe('HTTP server with MONGODB_URI and API_KEYS', () => {
  it('uses the MongoDB at MONGODB_URI (EXTERNAL), never starts the engine, and enforces API keys', async () => {
    const engineDir = tempDir();
    const unusedDataDir = path.join(tempDir(), 'never-created');
    const engine = await startEmbeddedServer({ dataDir: engineDir, port: 0 });
    const running = await startHindsight(
      loadConfig(
        {},
        {
          mongodbUri: engine.uri,
          dataDir: unusedDataDir,
          port: 0,
          host: '127.0.0.1',
          embeddingsProvider: 'hash',
          apiKeys: ['k1', 'k2'],
        },
      ),
      silentLogger,
    );
    try {
      const denied = await post(running.url, { query: SERVER_INFO });
      expect(denied.status).toBe(401);
      expect(denied.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
      const wrong = await post(running.url, { query: SERVER_INFO }, { authorization: 'Bearer nope' });
      expect(wrong.status).toBe(401);
      const allowed = await post(running.url, { query: SERVER_INFO }, { authorization: 'Bearer k2' });
      expect(allowed.body).toEqual({ data: { serverInfo: { database: { kind: 'EXTERNAL' } } } });
      expect(existsSync(unusedDataDir)).toBe(false);
    } finally {
      await running.stop();
      await engine.close();
      rmSync(engineDir, { recursive: true, force: true });
    }
  });
});
