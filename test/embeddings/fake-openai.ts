import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash } from 'node:crypto';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: { model: string; input: string[]; dimensions?: number; encoding_format?: string };
  /** Date.now() when the request arrived. */
  at: number;
}

/** What to do with request number `index` (0-based): answer normally, fail, drop the connection or never answer. */
export type Behaviour =
  | { kind: 'ok' }
  | { kind: 'status'; status: number; headers?: Record<string, string> }
  | { kind: 'drop' }
  | { kind: 'hang' };

export interface FakeOpenAIOptions {
  /** Vector size when the request has no `dimensions` (default 8). */
  dimensions?: number;
  /** Ignore the `dimensions` parameter, like models that cannot shorten their vectors. */
  ignoreDimensions?: boolean;
  /** Always answer JSON number arrays, like servers that ignore `encoding_format`. */
  floatsOnly?: boolean;
  behaviour?: (index: number) => Behaviour;
}

export interface FakeOpenAI {
  /** Base URL to give the client, ending in /v1. */
  baseURL: string;
  requests: RecordedRequest[];
  /** The vector the fake answers for `text` (before the provider normalises it). */
  vectorFor(text: string, dimensions?: number): Float32Array;
  close(): Promise<void>;
}

/**
 * An OpenAI-compatible `/v1/embeddings` endpoint on 127.0.0.1 (port 0) that records every request. Vectors are
 * deterministic and not unit length (so normalisation is visible) and `data` comes back in reverse
 * order with correct `index` values, so a client that ignores `index` gets the wrong vectors.
 */
export async function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const requests: RecordedRequest[] = [];
  const hanging = new Set<http.ServerResponse>();
  const vectorFor = (text: string, dimensions = options.dimensions ?? 8) => {
    const vector = new Float32Array(dimensions);
    for (let i = 0; i < dimensions; i++) vector[i] = createHash('sha256').update(`${i}:${text}`).digest()[0] - 127.5;
    return vector;
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as RecordedRequest['body'];
      const index = requests.length;
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, at: Date.now() });
      const behaviour = options.behaviour?.(index) ?? { kind: 'ok' };
      if (behaviour.kind === 'drop') return req.socket.destroy();
      if (behaviour.kind === 'hang') return void hanging.add(res);
      if (behaviour.kind === 'status') {
        res.writeHead(behaviour.status, { 'content-type': 'application/json', ...behaviour.headers });
        return res.end(JSON.stringify({ error: { message: `fake failure ${behaviour.status}`, type: 'fake' } }));
      }
      const dimensions = options.ignoreDimensions ? undefined : body.dimensions;
      const data = body.input.map((text, i) => {
        const vector = vectorFor(text, dimensions);
        const embedding =
          body.encoding_format === 'base64' && !options.floatsOnly ? Buffer.from(vector.buffer).toString('base64') : Array.from(vector);
        return { object: 'embedding', index: i, embedding };
      });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', model: body.model, data: data.reverse(), usage: { prompt_tokens: 1, total_tokens: 1 } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    vectorFor,
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A base URL where nothing listens (a port that was free a moment ago): connections are refused. */
export async function refusedBaseURL(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/v1`;
}
