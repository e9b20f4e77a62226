import { createHash } from 'node:crypto';
import { Binary, type Collection } from 'mongodb';
import { BadInputError } from '../../src/coded-error';
import {
  EMBEDDING_CACHE_COLLECTION,
  EmbeddingService,
  type EmbeddingCacheDocument,
} from '../../src/embeddings/embedding.service';
import { HashEmbeddingProvider } from '../../src/embeddings/hash.provider';
import { OpenAIEmbeddingProvider } from '../../src/embeddings/openai.provider';
import type { EmbeddingProvider } from '../../src/embeddings/provider';
import { openTestDatabase, type TestDatabase } from '../support/db';
import { createTestApp } from '../support/app';
import { startFakeOpenAI } from '../support/fake-openai';

/** Wraps a provider and records the texts of every `embed` call. */
class CountingProvider implements EmbeddingProvider {
  readonly calls: string[][] = [];
  constructor(
    private readonly inner: EmbeddingProvider,
    private readonly delayMs = 0,
  ) {}
  get id() {
    return this.inner.id;
  }
  get model() {
    return this.inner.model;
  }
  get dimensions() {
    return this.inner.dimensions;
  }
  async embed(texts: string[]): Promise<Float32Array[]> {
    this.calls.push(texts);
    if (this.delayMs) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    return this.inner.embed(texts);
  }
}

let database: TestDatabase;
let cache: Collection<EmbeddingCacheDocument>;
let collections = 0;

beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(async () => {
  await database.close();
});
beforeEach(() => {
  // A collection per test: each starts with an empty cache.
  cache = database.db.collection<EmbeddingCacheDocument>(`${EMBEDDING_CACHE_COLLECTION}_${++collections}`);
});

describe('EmbeddingService', () => {
  test('embeds each distinct text once: duplicates in a call are deduped and a later call is served from the cache', async () => {
    const hash = new HashEmbeddingProvider(64);
    const provider = new CountingProvider(hash);
    const service = new EmbeddingService(provider, cache, { batchSize: 64 });

    const first = await service.embed(['alpha', 'beta', 'alpha', 'gamma']);
    expect(provider.calls).toEqual([['alpha', 'beta', 'gamma']]);
    expect(first[0]).toBe(first[2]);

    const second = await service.embed(['gamma', 'beta', 'delta']);
    expect(provider.calls).toEqual([['alpha', 'beta', 'gamma'], ['delta']]);

    const expected = await hash.embed(['gamma', 'beta', 'delta']);
    second.forEach((vector, i) => expect(Array.from(vector)).toEqual(Array.from(expected[i])));
    expect(Array.from(first[1])).toEqual(Array.from(second[1]));

    // A new service (e.g. after a restart) reads the same cache.
    const restarted = new CountingProvider(hash);
    await new EmbeddingService(restarted, cache, { batchSize: 64 }).embed(['alpha', 'delta']);
    expect(restarted.calls).toEqual([]);
  });

  test('makes one provider call per batch of batchSize misses', async () => {
    const provider = new CountingProvider(new HashEmbeddingProvider(16));
    const service = new EmbeddingService(provider, cache, { batchSize: 2 });
    await service.embed(['a']);
    await service.embed(['a', 'b', 'c', 'd', 'e', 'f']);
    expect(provider.calls).toEqual([['a'], ['b', 'c'], ['d', 'e'], ['f']]);
  });

  test('stores one cache document per text: sha256 key of provider, model, dimensions and text, float32 vector, metadata', async () => {
    const service = new EmbeddingService(new HashEmbeddingProvider(32), cache, { batchSize: 64 });
    const [vector] = await service.embed(['the cached text']);

    const key = createHash('sha256').update('hash\0feature-hash-v1-32\u000032\0the cached text').digest('hex');
    const document = await cache.findOne({ _id: key });
    expect(document).toMatchObject({ provider: 'hash', model: 'feature-hash-v1-32', dimensions: 32 });
    expect(document!.created_at).toBeInstanceOf(Date);
    expect(document!.vector).toBeInstanceOf(Binary);
    expect(document!.vector.sub_type).toBe(Binary.SUBTYPE_VECTOR);
    expect(Array.from(document!.vector.toFloat32Array())).toEqual(Array.from(vector));
    expect(await cache.countDocuments()).toBe(1);
  });

  test('another embedder does not reuse the cached vectors of the first', async () => {
    const small = new CountingProvider(new HashEmbeddingProvider(16));
    const large = new CountingProvider(new HashEmbeddingProvider(24));
    await new EmbeddingService(small, cache, { batchSize: 64 }).embed(['shared text']);
    const [vector] = await new EmbeddingService(large, cache, { batchSize: 64 }).embed(['shared text']);
    expect(large.calls).toEqual([['shared text']]);
    expect(vector).toHaveLength(24);
    expect(await cache.countDocuments()).toBe(2);
  });

  test('concurrent calls for the same new texts both succeed (the second insert is a tolerated duplicate)', async () => {
    const provider = new CountingProvider(new HashEmbeddingProvider(16), 50);
    const service = new EmbeddingService(provider, cache, { batchSize: 64 });
    const [one, two] = await Promise.all([service.embed(['race', 'car']), service.embed(['race', 'car'])]);
    expect(provider.calls).toHaveLength(2);
    expect(Array.from(one[0])).toEqual(Array.from(two[0]));
    expect(await cache.countDocuments()).toBe(2);
  });

  test('refuses blank texts with BAD_USER_INPUT before calling the provider', async () => {
    const provider = new CountingProvider(new HashEmbeddingProvider(16));
    const service = new EmbeddingService(provider, cache, { batchSize: 64 });
    const error = await service.embed(['fine', '   ']).catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(BadInputError);
    expect((error as BadInputError).message).toBe('Cannot embed an empty text (text 2 of 2).');
    expect(provider.calls).toEqual([]);
  });

  test('without a cache it still dedupes and batches, and remembers nothing', async () => {
    const provider = new CountingProvider(new HashEmbeddingProvider(16));
    const service = new EmbeddingService(provider, null, { batchSize: 64 });
    await service.embed(['x', 'x', 'y']);
    await service.embed(['x']);
    expect(provider.calls).toEqual([['x', 'y'], ['x']]);
  });

  test('with the openai provider, texts embedded once send no request the second time (fake server request log)', async () => {
    const server = await startFakeOpenAI({ dimensions: 8 });
    try {
      const provider = new OpenAIEmbeddingProvider(
        {
          apiKey: 'k',
          baseURL: server.baseURL,
          model: 'fake-embed',
          dimensions: 8,
          batchSize: 3,
          timeoutMs: 5000,
          maxRetries: 0,
        },
        8,
      );
      const service = new EmbeddingService(provider, cache, { batchSize: 3 });
      const texts = ['one', 'two', 'three', 'four', 'five', 'two'];
      const first = await service.embed(texts);
      expect(server.requests.map((request) => request.body.input)).toEqual([
        ['one', 'two', 'three'],
        ['four', 'five'],
      ]);
      const second = await service.embed(texts);
      expect(server.requests).toHaveLength(2);
      second.forEach((vector, i) => expect(Array.from(vector)).toEqual(Array.from(first[i])));
      expect(service.signature).toEqual({ provider: 'openai', model: 'fake-embed', dimensions: 8 });
    } finally {
      await server.close();
    }
  });
});

test('the app wires deps.embedder over embedding_cache in the default database, but not for the hash provider', async () => {
  const hashed = await createTestApp();
  try {
    expect(hashed.deps.embedder.signature).toEqual({ provider: 'hash', model: 'feature-hash-v1-384', dimensions: 384 });
    await hashed.deps.embedder.embedOne('wired');
    expect(await hashed.db.collection(EMBEDDING_CACHE_COLLECTION).countDocuments({})).toBe(0);
  } finally {
    await hashed.close();
  }
  const server = await startFakeOpenAI({ dimensions: 8 });
  const provider = new OpenAIEmbeddingProvider(
    {
      apiKey: 'k',
      baseURL: server.baseURL,
      model: 'fake-embed',
      dimensions: 8,
      batchSize: 3,
      timeoutMs: 5000,
      maxRetries: 0,
    },
    8,
  );
  const cached = await createTestApp({ embeddings: provider });
  try {
    await cached.deps.embedder.embedOne('wired');
    await cached.deps.embedder.embedOne('wired');
    expect(await cached.db.collection(EMBEDDING_CACHE_COLLECTION).countDocuments({ provider: 'openai' })).toBe(1);
    expect(server.requests).toHaveLength(1);
  } finally {
    await cached.close();
    await server.close();
  }
});
