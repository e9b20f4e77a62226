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

/** A recorded `/chat/completions` request. */
export interface RecordedChatRequest {
  headers: http.IncomingHttpHeaders;
  body: {
    model: string;
    messages: Array<{ role: string; content: string }>;
    response_format?: { type: string };
    temperature?: number;
  };
  at: number;
}

/** How the fake answers a chat completion. */
export type ChatAnswer = Behaviour | { kind: 'reply'; content: string };

/** What to do with request number `index` (0-based): answer normally, fail, drop the connection or never answer. */
export type Behaviour =
  | { kind: 'ok' }
  /** `echoKey`: the error message repeats the Authorization header, as some servers' 401 bodies do. */
  | { kind: 'status'; status: number; headers?: Record<string, string>; echoKey?: boolean }
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
  /**
   * How to answer chat completion number `index` (0-based, counted apart from embeddings): `reply` with that
   * message content, or fail like `behaviour`; a promise holds the answer back until it settles. Default: the
   * content `{}`.
   */
  chat?: (request: RecordedChatRequest['body'], index: number) => ChatAnswer | Promise<ChatAnswer>;
}

export interface FakeOpenAI {
  /** Base URL to give the client, ending in /v1. */
  baseURL: string;
  requests: RecordedRequest[];
  /** Indexes (in `requests`) of hanging requests whose client closed the connection while waiting. */
  abandoned: number[];
  /** The chat completion requests, in arrival order. */
  chatRequests: RecordedChatRequest[];
  /** The vector the fake answers for `text` (before the provider normalises it). */
  vectorFor(text: string, dimensions?: number): Float32Array;
  close(): Promise<void>;
}

/**
 * An OpenAI-compatible `/v1/embeddings` endpoint on 127.0.0.1 (port 0) that records every request. Vectors are
 * deterministic and not unit length (so normalisation is visible) and `data` comes back in reverse
 * order with correct `index` values, so a client that ignores `index` gets the wrong vectors.
 * `/v1/chat/completions` is answered too (by `options.chat`), for the action enricher.
 */
export async function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const requests: RecordedRequest[] = [];
  const abandoned: number[] = [];
  let closing = false;
  const chatRequests: RecordedChatRequest[] = [];
  const hanging = new Set<http.ServerResponse>();
  const vectorFor = (text: string, dimensions = options.dimensions ?? 8) => {
    const vector = new Float32Array(dimensions);
    for (let i = 0; i < dimensions; i++) vector[i] = createHash('sha256').update(`${i}:${text}`).digest()[0] - 127.5;
    return vector;
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const raw = Buffer.concat(chunks).toString('utf8') || '{}';
      // Answers a failure behaviour; false when the request is to be answered normally.
      const misbehave = (behaviour: Behaviour): boolean => {
        if (behaviour.kind === 'ok') return false;
        if (behaviour.kind === 'drop') req.socket.destroy();
        else if (behaviour.kind === 'hang') {
          hanging.add(res);
          const index = requests.length - 1;
          res.on('close', () => !closing && abandoned.push(index));
        } else {
          res.writeHead(behaviour.status, { 'content-type': 'application/json', ...behaviour.headers });
          const message = behaviour.echoKey
            ? `Incorrect API key provided: ${req.headers.authorization ?? ''}`
            : `fake failure ${behaviour.status}`;
          res.end(JSON.stringify({ error: { message, type: 'fake' } }));
        }
        return true;
      };
      if (req.url?.endsWith('/chat/completions')) {
        const body = JSON.parse(raw) as RecordedChatRequest['body'];
        const index = chatRequests.length;
        chatRequests.push({ headers: req.headers, body, at: Date.now() });
        const answer = (await options.chat?.(body, index)) ?? { kind: 'reply', content: '{}' };
        if (answer.kind !== 'reply') return void misbehave(answer);
        const message = { role: 'assistant', content: answer.content, refusal: null };
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(
          JSON.stringify({
            id: `chatcmpl-fake-${index}`,
            object: 'chat.completion',
            created: Math.floor(Date.now() / 1000),
            model: body.model,
            choices: [{ index: 0, message, finish_reason: 'stop', logprobs: null }],
            usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
          }),
        );
      }
      const body = JSON.parse(raw) as RecordedRequest['body'];
      const index = requests.length;
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, at: Date.now() });
      if (misbehave(options.behaviour?.(index) ?? { kind: 'ok' })) return;
      const dimensions = options.ignoreDimensions ? undefined : body.dimensions;
      const data = body.input.map((text, i) => {
        const vector = vectorFor(text, dimensions);
        const embedding =
          body.encoding_format === 'base64' && !options.floatsOnly
            ? Buffer.from(vector.buffer).toString('base64')
            : Array.from(vector);
        return { object: 'embedding', index: i, embedding };
      });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          object: 'list',
          model: body.model,
          data: data.reverse(),
          usage: { prompt_tokens: 1, total_tokens: 1 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    abandoned,
    chatRequests,
    vectorFor,
    async close() {
      closing = true;
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
