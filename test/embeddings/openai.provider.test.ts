import { loadConfig } from '../../src/config';
import { ServiceUnavailableError } from '../../src/coded-error';
import { createEmbeddingProvider } from '../../src/embeddings';
import { EmbeddingService } from '../../src/embeddings/embedding.service';
import { OpenAIEmbeddingProvider, type OpenAIProviderOptions } from '../../src/embeddings/openai.provider';
import { normalize } from '../../src/embeddings/provider';
import { refusedBaseURL, startFakeOpenAI, type FakeOpenAI, type FakeOpenAIOptions } from '../support/fake-openai';

let fake: FakeOpenAI | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function serve(options: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  fake = await startFakeOpenAI(options);
  return fake;
}

function options(baseURL: string, overrides: Partial<OpenAIProviderOptions> = {}): OpenAIProviderOptions {
  return {
    apiKey: 'test-key',
    baseURL,
    model: 'fake-embed',
    dimensions: 8,
    batchSize: 64,
    timeoutMs: 5000,
    maxRetries: 0,
    ...overrides,
  };
}

async function failure(promise: Promise<unknown>): Promise<ServiceUnavailableError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ServiceUnavailableError);
  return error as ServiceUnavailableError;
}

const texts = (n: number) => Array.from({ length: n }, (_, i) => `text number ${i}`);

describe('OpenAIEmbeddingProvider against an OpenAI-compatible HTTP server', () => {
  test('built from the config: 10 texts with EMBEDDING_BATCH_SIZE=4 go in 3 requests to OPENAI_BASE_URL, vectors in input order and unit length', async () => {
    const server = await serve();
    const provider = await createEmbeddingProvider(
      loadConfig({
        OPENAI_API_KEY: 'sk-test',
        OPENAI_BASE_URL: server.baseURL,
        EMBEDDING_MODEL: 'fake-embed',
        EMBEDDING_DIMENSIONS: '8',
        EMBEDDING_BATCH_SIZE: '4',
      }),
    );
    expect(provider).toMatchObject({ id: 'openai', model: 'fake-embed', dimensions: 8 });

    const input = texts(10);
    const vectors = await provider.embed(input);

    expect(server.requests.map((request) => request.body.input.length)).toEqual([4, 4, 2]);
    expect(server.requests.flatMap((request) => request.body.input)).toEqual(input);
    for (const request of server.requests) {
      expect(request).toMatchObject({ method: 'POST', path: '/v1/embeddings' });
      expect(request.headers.authorization).toBe('Bearer sk-test');
      expect(request.body.model).toBe('fake-embed');
    }
    vectors.forEach((vector, i) => {
      expect(Array.from(vector)).toEqual(Array.from(normalize(server.vectorFor(input[i]))));
      expect(Math.hypot(...vector)).toBeCloseTo(1, 5);
    });
  });

  test('EMBEDDING_QUERY_PREFIX and EMBEDDING_DOCUMENT_PREFIX go before searched and stored texts, as sent', async () => {
    const server = await serve();
    const provider = await createEmbeddingProvider(
      loadConfig({
        OPENAI_API_KEY: 'sk-test',
        OPENAI_BASE_URL: server.baseURL,
        EMBEDDING_MODEL: 'nomic-embed-text',
        EMBEDDING_DIMENSIONS: '8',
        EMBEDDING_QUERY_PREFIX: 'search_query: ',
        EMBEDDING_DOCUMENT_PREFIX: 'search_document: ',
      }),
    );
    const service = new EmbeddingService(provider, null, { batchSize: 64 });
    const query = await service.embedQuery('restart the worker');
    const [stored] = await service.embed(['restart the worker']);
    expect(server.requests.map((request) => request.body.input)).toEqual([
      ['search_query: restart the worker'],
      ['search_document: restart the worker'],
    ]);
    expect(Array.from(query)).toEqual(Array.from(normalize(server.vectorFor('search_query: restart the worker'))));
    expect(Array.from(stored)).toEqual(Array.from(normalize(server.vectorFor('search_document: restart the worker'))));
    expect(service.signature.model).toBe('nomic-embed-text (documents prefixed "search_document: ")');
  });

  test('sends EMBEDDING_DIMENSIONS as the dimensions parameter, and no dimensions parameter for a known model without it', async () => {
    const server = await serve({ dimensions: 1536 });
    const shortened = new OpenAIEmbeddingProvider(options(server.baseURL, { dimensions: 16 }), 16);
    expect((await shortened.embed(['a']))[0]).toHaveLength(16);
    expect(server.requests[0].body.dimensions).toBe(16);

    const native = await OpenAIEmbeddingProvider.create(
      options(server.baseURL, { model: 'text-embedding-3-small', dimensions: undefined }),
    );
    expect(native.dimensions).toBe(1536);
    expect(server.requests).toHaveLength(1); // a known model needs no probe
    expect((await native.embed(['b']))[0]).toHaveLength(1536);
    expect(server.requests[1].body).not.toHaveProperty('dimensions');
  });

  test('probes an unknown model once at startup to learn its vector size', async () => {
    const server = await serve({ dimensions: 24 });
    const provider = await OpenAIEmbeddingProvider.create(
      options(server.baseURL, { model: 'nomic-embed-text', dimensions: undefined }),
    );
    expect(provider.dimensions).toBe(24);
    expect(server.requests.map((request) => request.body.input)).toEqual([['dimensions']]);
  });

  test('decodes plain number arrays from a server that ignores encoding_format', async () => {
    const server = await serve({ floatsOnly: true });
    const [vector] = await new OpenAIEmbeddingProvider(options(server.baseURL), 8).embed(['plain floats']);
    expect(server.requests[0].body.encoding_format).toBe('base64');
    expect(Array.from(vector)).toEqual(Array.from(normalize(server.vectorFor('plain floats'))));
  });

  test('a model that ignores the dimensions parameter fails with a message that says so', async () => {
    const server = await serve({ ignoreDimensions: true, dimensions: 8 });
    const provider = new OpenAIEmbeddingProvider(options(server.baseURL, { dimensions: 16 }), 16);
    const error = await failure(provider.embed(['x']));
    expect(error.message).toMatch(/returned 8-dimensional vectors where 16 were expected .*dimensions parameter/);
  });

  test('retries a 429 and then a 500 with exponential backoff, then succeeds', async () => {
    const server = await serve({
      behaviour: (i) =>
        i === 0 ? { kind: 'status', status: 429 } : i === 1 ? { kind: 'status', status: 500 } : { kind: 'ok' },
    });
    const provider = new OpenAIEmbeddingProvider(options(server.baseURL, { maxRetries: 3, retryBaseDelayMs: 100 }), 8);
    const [vector] = await provider.embed(['eventually']);

    expect(Array.from(vector)).toEqual(Array.from(normalize(server.vectorFor('eventually'))));
    expect(server.requests).toHaveLength(3);
    const [first, second, third] = server.requests.map((request) => request.at);
    // Delays of 100 ms then 200 ms, each minus at most 25% jitter.
    expect(second - first).toBeGreaterThanOrEqual(75);
    expect(third - second).toBeGreaterThanOrEqual(150);
  });

  test('retries a dropped connection (network error)', async () => {
    const server = await serve({ behaviour: (i) => (i === 0 ? { kind: 'drop' } : { kind: 'ok' }) });
    const provider = new OpenAIEmbeddingProvider(options(server.baseURL, { maxRetries: 1, retryBaseDelayMs: 10 }), 8);
    await expect(provider.embed(['again'])).resolves.toHaveLength(1);
    expect(server.requests).toHaveLength(2);
  });

  test("waits as long as the server's retry-after-ms asks", async () => {
    const server = await serve({
      behaviour: (i) =>
        i === 0 ? { kind: 'status', status: 429, headers: { 'retry-after-ms': '300' } } : { kind: 'ok' },
    });
    const provider = new OpenAIEmbeddingProvider(options(server.baseURL, { maxRetries: 1, retryBaseDelayMs: 1 }), 8);
    await provider.embed(['patience']);
    expect(server.requests[1].at - server.requests[0].at).toBeGreaterThanOrEqual(290);
  });

  test('gives up after EMBEDDING_MAX_RETRIES retries with SERVICE_UNAVAILABLE naming the URL and the status', async () => {
    const server = await serve({ behaviour: () => ({ kind: 'status', status: 503 }) });
    const provider = new OpenAIEmbeddingProvider(options(server.baseURL, { maxRetries: 2, retryBaseDelayMs: 5 }), 8);
    const error = await failure(provider.embed(['never']));
    expect(server.requests).toHaveLength(3);
    expect(error.extensions).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503 });
    expect(error.message).toContain('The embedding endpoint (OPENAI_BASE_URL) failed: it answered HTTP 503');
    expect(error.message).toContain('(3 attempts)');
  });

  test('does not retry a 401 (a wrong key will not get better)', async () => {
    const server = await serve({ behaviour: () => ({ kind: 'status', status: 401 }) });
    const provider = new OpenAIEmbeddingProvider(options(server.baseURL, { maxRetries: 3, retryBaseDelayMs: 5 }), 8);
    const error = await failure(provider.embed(['denied']));
    expect(server.requests).toHaveLength(1);
    expect(error.extensions.status).toBe(401);
  });

  test('times out each attempt after EMBEDDING_TIMEOUT_MS and retries the timeout', async () => {
    const server = await serve({ behaviour: () => ({ kind: 'hang' }) });
    const provider = new OpenAIEmbeddingProvider(
      options(server.baseURL, { timeoutMs: 200, maxRetries: 1, retryBaseDelayMs: 10 }),
      8,
    );
    const started = Date.now();
    const error = await failure(provider.embed(['silence']));
    const elapsed = Date.now() - started;
    expect(server.requests).toHaveLength(2);
    expect(elapsed).toBeGreaterThanOrEqual(400);
    expect(elapsed).toBeLessThan(3000);
    expect(error.message).toBe(
      'The embedding endpoint (OPENAI_BASE_URL) failed: it did not answer within 200 ms (2 attempts).',
    );
  });

  test('an endpoint that is down (connection refused) fails with SERVICE_UNAVAILABLE (not naming the URL), at startup for a model that needs a probe', async () => {
    const baseURL = await refusedBaseURL();
    const down = new OpenAIEmbeddingProvider(options(baseURL, { maxRetries: 1, retryBaseDelayMs: 5 }), 8);
    const error = await failure(down.embed(['anyone there?']));
    expect(error.extensions).toEqual({ code: 'SERVICE_UNAVAILABLE', provider: 'openai' });
    expect(error.message).toBe(
      'The embedding endpoint (OPENAI_BASE_URL) failed: it is unreachable: ECONNREFUSED (2 attempts).',
    );

    await failure(
      OpenAIEmbeddingProvider.create(options(baseURL, { model: 'nomic-embed-text', dimensions: undefined })),
    );
  });
});
