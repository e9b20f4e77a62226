import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { print } from 'graphql';
import { OpenAIEmbeddingProvider } from '../../src/embeddings/openai.provider';
import { createTestApp, type TestApp } from '../support/app';
import { startFakeOpenAI, type FakeOpenAI } from '../support/fake-openai';
import { SearchExperiencesDocument } from '../support/generated/graphql';

const TIMEOUT_MS = 2500;

describe('an embedding call stops when its request ends', () => {
  let fake: FakeOpenAI;
  let app: TestApp;
  let url: string;

  beforeAll(async () => {
    fake = await startFakeOpenAI({ dimensions: 8, behaviour: () => ({ kind: 'hang' }) });
    // The provider's own timeout and retries are far beyond the test: only the request's end can stop the call.
    const embeddings = new OpenAIEmbeddingProvider(
      { apiKey: 'sk-test', baseURL: fake.baseURL, batchSize: 64, timeoutMs: 60_000, maxRetries: 5, dimensions: 8 },
      8,
    );
    app = await createTestApp({ embeddings, config: { requestTimeoutMs: TIMEOUT_MS, embeddingDimensions: 8 } });
    url = await app.server.listen(0, '127.0.0.1');
  });
  afterAll(async () => {
    await app.close();
    await fake.close();
  });

  /** Posts a search for `text` (embedded by the fake, which never answers). */
  function search(text: string): { request: http.ClientRequest; reply: Promise<{ code?: unknown; ms: number }> } {
    const started = Date.now();
    const request = http.request(url, { method: 'POST', headers: { 'content-type': 'application/json' } });
    const reply = new Promise<{ code?: unknown; ms: number }>((resolve, reject) => {
      request.on('response', (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const body = JSON.parse(Buffer.concat(chunks).toString()) as {
            errors?: Array<{ extensions?: { code?: unknown } }>;
          };
          resolve({ code: body.errors?.[0]?.extensions?.code, ms: Date.now() - started });
        });
      });
      request.on('error', reject);
    });
    request.end(JSON.stringify({ query: print(SearchExperiencesDocument), variables: { query: text } }));
    return { request, reply };
  }

  async function until(condition: () => boolean, ms: number): Promise<void> {
    for (const end = Date.now() + ms; !condition(); await sleep(10)) {
      if (Date.now() > end) throw new Error(`condition not met within ${ms} ms`);
    }
  }

  it('a client that disconnects aborts the call to the provider', async () => {
    const seen = fake.requests.length;
    const { request, reply } = search('a text the client gives up on');
    reply.catch(() => undefined);
    await until(() => fake.requests.length > seen, 5000);
    request.destroy();
    await until(() => fake.abandoned.includes(seen), 1000);
    expect(fake.requests).toHaveLength(seen + 1); // not retried
  });

  it('the deadline aborts the call and answers TIMEOUT', async () => {
    const seen = fake.requests.length;
    const { reply } = search('a text past the deadline');
    const answer = await reply;
    expect(answer.code).toBe('TIMEOUT');
    expect(answer.ms).toBeLessThan(TIMEOUT_MS + 500);
    await until(() => fake.abandoned.includes(seen), 500);
    expect(fake.requests).toHaveLength(seen + 1);
  }, 10_000);

  it('a request that shared the query vector of one that left embeds it for itself', async () => {
    const seen = fake.requests.length;
    const first = search('a text two requests search');
    first.reply.catch(() => undefined);
    await until(() => fake.requests.length > seen, 5000);
    const second = search('a text two requests search');
    await sleep(50);
    first.request.destroy();
    await until(() => fake.requests.length > seen + 1, 1000);
    expect((await second.reply).code).toBe('TIMEOUT');
  }, 10_000);
});
