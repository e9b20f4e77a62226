import { createHash } from 'node:crypto';
import { Binary, MongoBulkWriteError, type Collection, type WriteError } from 'mongodb';
import { BadInputError } from '../coded-error';
import { countEmbeddingCache, countEmbeddingTruncations, embeddingCall } from '../observability/embedding-calls';
import type { EmbeddingModelInfo } from './model-check';
import { cutForModel, inBatches, type EmbeddingProvider } from './provider';
import { fromStoredVector } from './vectors';

/** Characters of a provider batch from which it is embedded in a turn of the event loop of its own. */
const LARGE_BATCH_CHARS = 1 << 20;

/** Name of the cache collection, kept in the default database. */
export const EMBEDDING_CACHE_COLLECTION = 'embedding_cache';

/**
 * One cached vector. `_id` is the sha256 (hex) of provider, model, dimensions and text, so a text is embedded once
 * per embedder, and a changed embedder never reads another's vectors. `vector` is a BSON float32 vector (Binary
 * subtype 9): exactly the Float32Array the provider returned, in 4 bytes a number instead of ~14 for an array of
 * doubles with their keys (6 KiB instead of ~21 KiB for 1536 dimensions), and decoded without a per-number loop.
 */
export interface EmbeddingCacheDocument {
  _id: string;
  provider: string;
  model: string;
  dimensions: number;
  vector: Binary;
  created_at: Date;
}

export interface EmbeddingServiceOptions {
  /** Texts per provider call; each call's vectors are cached as soon as they arrive. */
  batchSize: number;
}

/**
 * What the rest of the server calls to embed text (`deps.embedder`): dedupes the texts of a call, answers from the
 * content-hash cache, embeds only the misses (one provider call per batch of `batchSize`) and caches them.
 * With `cache` null it still dedupes and batches but remembers nothing.
 */
export class EmbeddingService {
  /** Recorded as `embedding_model` next to every stored vector. */
  readonly signature: EmbeddingModelInfo;

  constructor(
    readonly provider: EmbeddingProvider,
    private readonly cache: Collection<EmbeddingCacheDocument> | null,
    private readonly options: EmbeddingServiceOptions,
  ) {
    this.signature = {
      provider: provider.id,
      model: modelMarker(provider.model, this.documentPrefix),
      dimensions: provider.dimensions,
    };
  }

  private get documentPrefix(): string {
    return this.provider.prefixes?.document ?? '';
  }

  /**
   * One L2-normalised vector per text to store (a document: after the provider's document prefix), in order (equal
   * texts share one Float32Array: do not mutate). Texts must contain something besides whitespace (BadInputError
   * otherwise). Provider failures propagate (ServiceUnavailableError); vectors already embedded by earlier batches of
   * the call stay cached. What a search compares them with comes from {@link embedQueries}.
   */
  async embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    return (await this.embedDetailed(texts, signal)).vectors;
  }

  /**
   * {@link embed} for the texts a search looks for: after the provider's query prefix (models such as e5, bge and
   * nomic-embed are trained to embed a question and the passages that answer it differently).
   */
  async embedQueries(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    return (await this.embedDetailed(texts, signal, 'query')).vectors;
  }

  /** The vector of one search text (see {@link embedQueries}). */
  async embedQuery(text: string): Promise<Float32Array> {
    const [vector] = await this.embedQueries([text]);
    return vector;
  }

  /**
   * True when the model reads only the beginning of stored `text` (with its prefix, longer than
   * `provider.inputLimit`): what embed cuts.
   */
  cutsText(text: string): boolean {
    return cutForModel(this.documentPrefix + text, this.provider.inputLimit).truncated;
  }

  /**
   * {@link embed} (or for `role` query, {@link embedQueries}), saying which texts were longer than the model reads
   * (`provider.inputLimit`, prefix included): those were embedded from their beginning, cut to the limit (after
   * leading whitespace), and counted in `hindsight_embedding_inputs_truncated_total`.
   */
  async embedDetailed(
    texts: string[],
    signal?: AbortSignal,
    role: 'document' | 'query' = 'document',
  ): Promise<{ vectors: Float32Array[]; truncated: boolean[] }> {
    // Not `text.trim()`: that copies a 12 MB text to find its first non-blank character.
    const blank = texts.findIndex((text) => !/\S/.test(text));
    if (blank !== -1) throw new BadInputError(`Cannot embed an empty text (text ${blank + 1} of ${texts.length}).`);
    const prefix = (role === 'query' ? this.provider.prefixes?.query : this.provider.prefixes?.document) ?? '';
    const truncated = texts.map(() => false);
    const limit = this.provider.inputLimit;
    texts = texts.map((text, i) => {
      if (!limit || !cutForModel(prefix + text, limit).truncated) return prefix + text;
      truncated[i] = true;
      return cutForModel(prefix + text.trimStart(), limit).text;
    });
    if (limit) countEmbeddingTruncations(this.signature, truncated.filter(Boolean).length);
    return { vectors: await this.embedPrepared(texts, signal), truncated };
  }

  private async embedPrepared(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const keys = new Map<string, string>();
    for (const text of texts) if (!keys.has(text)) keys.set(text, this.cacheKey(text));

    const found = await this.lookup([...keys.values()]);
    const misses = [...keys].filter(([, key]) => !found.has(key)).map(([text]) => text);
    countEmbeddingCache(keys.size - misses.length, misses.length);
    for (const batch of inBatches(misses, this.options.batchSize)) {
      // A large batch is embedded in its own turn of the event loop (the hash embedder works synchronously, about
      // 10 ms a MB): what the request did before and does after (encoding the document) then never adds up to one
      // long stall of every other request.
      const large = batch.reduce((sum, text) => sum + text.length, 0) > LARGE_BATCH_CHARS;
      if (large) await new Promise((resolve) => setImmediate(resolve));
      signal?.throwIfAborted();
      const vectors = await embeddingCall(this.signature, batch.length, signal, () =>
        this.provider.embed(batch, signal),
      );
      if (large) await new Promise((resolve) => setImmediate(resolve));
      this.check(vectors, batch.length);
      batch.forEach((text, i) => found.set(keys.get(text)!, vectors[i]));
      await this.store(batch.map((text, i) => this.cacheDocument(keys.get(text)!, vectors[i])));
    }
    return texts.map((text) => found.get(keys.get(text)!)!);
  }

  /**
   * This service with every call made under `signal` (a request's: see `embed`), so a request that ends stops waiting
   * on the provider. The cache and everything else are shared.
   */
  withSignal(signal: AbortSignal): EmbeddingService {
    const bound = Object.create(this) as EmbeddingService;
    bound.embed = (texts) => this.embed(texts, signal);
    bound.embedDetailed = (texts, _signal, role) => this.embedDetailed(texts, signal, role);
    bound.embedQueries = (texts) => this.embedQueries(texts, signal);
    return bound;
  }

  /** The vector of one text to store (see `embed`). */
  async embedOne(text: string): Promise<Float32Array> {
    const [vector] = await this.embed([text]);
    return vector;
  }

  private cacheKey(text: string): string {
    // Without a cache the key only dedupes the call's texts: the text itself does, without hashing megabytes.
    if (!this.cache) return text;
    const { provider, model, dimensions } = this.signature;
    // NUL separators: no two (provider, model, dimensions, text) tuples give the same hashed string.
    return createHash('sha256').update(`${provider}\0${model}\0${dimensions}\0${text}`).digest('hex');
  }

  /** Cached vectors by key; entries of the wrong size (a corrupted or foreign document) count as misses. */
  private async lookup(keys: string[]): Promise<Map<string, Float32Array>> {
    const found = new Map<string, Float32Array>();
    if (!this.cache || keys.length === 0) return found;
    const documents = this.cache.find({ _id: { $in: keys } }, { projection: { vector: 1 } });
    for await (const document of documents) {
      const vector = fromStoredVector(document.vector);
      if (vector?.length === this.signature.dimensions) found.set(document._id, vector);
    }
    return found;
  }

  private check(vectors: Float32Array[], expected: number): void {
    const wrong = vectors.find((vector) => vector.length !== this.signature.dimensions);
    if (vectors.length !== expected || wrong) {
      throw new Error(
        `Embedding provider ${this.signature.provider}/${this.signature.model} broke its contract: ` +
          `${vectors.length} vectors for ${expected} texts, expected ${this.signature.dimensions} dimensions each`,
      );
    }
  }

  private cacheDocument(key: string, vector: Float32Array): EmbeddingCacheDocument {
    return { _id: key, ...this.signature, vector: Binary.fromFloat32Array(vector), created_at: new Date() };
  }

  /** Inserts new entries; one already written by a concurrent call (duplicate key) is as good as ours. */
  private async store(documents: EmbeddingCacheDocument[]): Promise<void> {
    if (!this.cache || documents.length === 0) return;
    try {
      await this.cache.insertMany(documents, { ordered: false });
    } catch (error) {
      if (!(error instanceof MongoBulkWriteError)) throw error;
      const writeErrors = ([] as WriteError[]).concat(error.writeErrors);
      if (writeErrors.length === 0 || writeErrors.some((writeError) => writeError.code !== 11000)) throw error;
    }
  }
}

/**
 * The model recorded with stored vectors: `model`, and the document prefix when there is one (the same model makes
 * other vectors of prefixed texts, so changing the prefix asks for a re-embedding like changing the model does).
 */
export function modelMarker(model: string, documentPrefix: string): string {
  return documentPrefix ? `${model} (documents prefixed ${JSON.stringify(documentPrefix)})` : model;
}
