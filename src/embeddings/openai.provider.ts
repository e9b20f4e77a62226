import OpenAI, { APIConnectionError, APIError } from 'openai';
import { ServiceUnavailableError } from '../coded-error';
import { inBatches, normalize, type EmbeddingPrefixes, type EmbeddingProvider, type InputLimit } from './provider';
import { backoffDelayMs, withRetries, type RetryPolicy } from './retry';

export const DEFAULT_OPENAI_EMBEDDING_MODEL = 'text-embedding-3-small';
const DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/** Native vector sizes of OpenAI's embedding models; other models are probed once. */
const KNOWN_DIMENSIONS: Record<string, number> = {
  'text-embedding-3-small': 1536,
  'text-embedding-3-large': 3072,
  'text-embedding-ada-002': 1536,
};

export interface OpenAIProviderOptions {
  apiKey: string;
  /** Any OpenAI-compatible API (e.g. Ollama's http://localhost:11434/v1); default api.openai.com. */
  baseURL?: string;
  /** Default text-embedding-3-small. */
  model?: string;
  /** Sent as the `dimensions` parameter when set (models that support shortening). */
  dimensions?: number;
  /** Texts per request. */
  batchSize: number;
  /** Timeout of one attempt. */
  timeoutMs: number;
  /** Retries on 408, 429, 5xx, timeouts and network errors. */
  maxRetries: number;
  /** First backoff delay (default 500 ms; doubles per retry). */
  retryBaseDelayMs?: number;
  /** Longest wait between attempts, also caps the server's Retry-After (default 8 s). */
  retryMaxDelayMs?: number;
  /** For models trained with them (e5, nomic-embed served by Ollama or vLLM): see {@link EmbeddingProvider.prefixes}. */
  prefixes?: EmbeddingPrefixes;
}

/**
 * Embeddings from an OpenAI-compatible `/embeddings` endpoint through the official client. Requests carry at most
 * `batchSize` texts and are sent one after the other; each is retried with exponential backoff (the client's own
 * retries are off so this policy is the only one). Every failure is a `ServiceUnavailableError` that names neither the endpoint nor what it answered (either may hold a secret).
 */
export class OpenAIEmbeddingProvider implements EmbeddingProvider {
  readonly id = 'openai';
  readonly model: string;
  readonly baseURL: string;
  /**
   * OpenAI's embedding models read at most 8,191 tokens and refuse a longer input (HTTP 400, which failed the whole
   * write). Without a tokenizer, bytes bound tokens safely: every token of a byte-level BPE (cl100k, o200k) covers at
   * least one UTF-8 byte, so 8,191 bytes are at most 8,191 tokens (English runs about 4 bytes a token, so this keeps
   * some 2,000 tokens of it).
   */
  readonly inputLimit: InputLimit = { unit: 'bytes', max: 8191 };
  readonly prefixes?: EmbeddingPrefixes;
  private readonly client: OpenAI;
  private readonly retry: RetryPolicy;

  /** Prefer `create`, which finds the vector size; `dimensions` here must be what the model returns. */
  constructor(
    private readonly options: OpenAIProviderOptions,
    readonly dimensions: number,
  ) {
    this.model = options.model ?? DEFAULT_OPENAI_EMBEDDING_MODEL;
    // Passed explicitly: the client would otherwise read OPENAI_BASE_URL itself, behind config's back.
    this.baseURL = options.baseURL ?? DEFAULT_BASE_URL;
    if (options.prefixes) this.prefixes = options.prefixes;
    this.client = new OpenAI({ apiKey: options.apiKey, baseURL: this.baseURL, maxRetries: 0 });
    this.retry = {
      maxRetries: options.maxRetries,
      baseDelayMs: options.retryBaseDelayMs ?? 500,
      maxDelayMs: options.retryMaxDelayMs ?? 8000,
    };
  }

  /**
   * Builds the provider with its vector size: `dimensions` when given, else the model's known size, else the
   * length of one probe embedding (so an unknown model on an unreachable endpoint fails here, at startup).
   */
  static async create(options: OpenAIProviderOptions): Promise<OpenAIEmbeddingProvider> {
    const known = options.dimensions ?? KNOWN_DIMENSIONS[options.model ?? DEFAULT_OPENAI_EMBEDDING_MODEL];
    if (known !== undefined) return new OpenAIEmbeddingProvider(options, known);
    const prober = new OpenAIEmbeddingProvider(options, 0);
    const [probe] = await prober.request(['dimensions']);
    if (probe.length === 0) throw prober.failure('it returned an empty vector for a probe text');
    return new OpenAIEmbeddingProvider(options, probe.length);
  }

  async embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const vectors: Float32Array[] = [];
    for (const batch of inBatches(texts, this.options.batchSize)) {
      for (const vector of await this.request(batch, signal)) {
        if (vector.length !== this.dimensions) {
          const fix = this.options.dimensions
            ? 'the model may not support the dimensions parameter; unset EMBEDDING_DIMENSIONS'
            : 'set EMBEDDING_DIMENSIONS to the size the model returns';
          throw this.failure(
            `${this.model} returned ${vector.length}-dimensional vectors where ${this.dimensions} were expected (${fix})`,
          );
        }
        vectors.push(normalize(vector));
      }
    }
    return vectors;
  }

  /** One `/embeddings` request for `texts` (with retries), vectors in input order; `signal` as in `embed`. */
  private async request(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const body: OpenAI.EmbeddingCreateParams = {
      model: this.model,
      input: texts,
      // Asked for explicitly, so the answer comes back untouched and servers that ignore it (plain float arrays)
      // still decode; base64 is a third of the size of JSON numbers.
      encoding_format: 'base64',
      ...(this.options.dimensions ? { dimensions: this.options.dimensions } : {}),
    };
    let attempts = 0;
    let timedOut = false;
    let response: OpenAI.CreateEmbeddingResponse;
    try {
      response = await withRetries(
        async () => {
          attempts++;
          // Our own signal rather than the client's timeout: `signal.aborted` tells a timeout apart from other
          // connection errors wherever the error objects come from.
          const timeout = AbortSignal.timeout(this.options.timeoutMs);
          try {
            // The request's signal too: a request that ends closes the connection instead of waiting for the answer.
            return await this.client.embeddings.create(body, {
              signal: signal ? AbortSignal.any([timeout, signal]) : timeout,
            });
          } catch (error) {
            timedOut = timeout.aborted;
            throw error;
          }
        },
        this.retry,
        (error, retry) =>
          timedOut || isTransient(error) ? (retryAfterMs(error) ?? backoffDelayMs(retry, this.retry)) : null,
        signal,
      );
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw this.unavailable(error, attempts, timedOut);
    }
    const data = [...(response.data ?? [])].sort((a, b) => a.index - b.index);
    if (data.length !== texts.length) {
      throw this.failure(`it returned ${data.length} vectors for ${texts.length} texts`);
    }
    return data.map((item) => {
      const vector = decodeEmbedding(item.embedding as unknown);
      if (!vector)
        throw this.failure('it returned an embedding that is neither base64 float32 nor an array of numbers');
      return vector;
    });
  }

  private unavailable(error: unknown, attempts: number, timedOut: boolean): ServiceUnavailableError {
    const tries = attempts > 1 ? ` (${attempts} attempts)` : '';
    if (timedOut) {
      return this.failure(`it did not answer within ${this.options.timeoutMs} ms${tries}`);
    }
    if (error instanceof APIConnectionError) {
      return this.failure(`it is unreachable: ${networkReason(error)}${tries}`);
    }
    if (error instanceof APIError) {
      // Not the body: an upstream's error text can echo the key it was sent.
      return this.failure(`it answered HTTP ${error.status ?? 'error'}${tries}`, { status: error.status });
    }
    return this.failure(error instanceof Error ? error.message : String(error));
  }

  private failure(reason: string, extensions: Record<string, unknown> = {}): ServiceUnavailableError {
    // The endpoint is not named: OPENAI_BASE_URL may hold credentials or a private address.
    return new ServiceUnavailableError(
      `The embedding endpoint (OPENAI_BASE_URL) failed: ${reason.replace(/\.$/, '')}.`,
      {
        provider: 'openai',
        ...extensions,
      },
    );
  }
}

/** Worth retrying: timeouts, network errors, 408, 429 and 5xx. */
export function isTransient(error: unknown): boolean {
  if (error instanceof APIConnectionError) return true;
  return (
    error instanceof APIError &&
    error.status !== undefined &&
    (error.status === 408 || error.status === 429 || error.status >= 500)
  );
}

/** The server's own wait (`retry-after-ms`, or `retry-after` in seconds or as a date), if it sent one. */
export function retryAfterMs(error: unknown): number | null {
  if (!(error instanceof APIError) || !error.headers) return null;
  const millis = Number.parseFloat(error.headers.get('retry-after-ms') ?? '');
  if (Number.isFinite(millis) && millis >= 0) return millis;
  const header = error.headers.get('retry-after');
  if (!header) return null;
  const seconds = Number.parseFloat(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, date - Date.now());
}

/**
 * The socket error code (ECONNREFUSED, ENOTFOUND...) under the client's generic "Connection error.". Duck-typed:
 * fetch's errors may come from another realm (jest's sandbox), where `instanceof Error` is false.
 */
function networkReason(error: Error): string {
  let cause: unknown = error.cause;
  for (let depth = 0; depth < 8 && typeof cause === 'object' && cause !== null; depth++) {
    const { code } = cause as { code?: unknown };
    if (typeof code === 'string') return code;
    cause = (cause as { cause?: unknown }).cause;
  }
  return error.message;
}

/** A vector as sent: base64 of little-endian float32 (what was asked for) or a plain array of numbers; else null. */
function decodeEmbedding(embedding: unknown): Float32Array | null {
  if (typeof embedding === 'string') {
    const bytes = Buffer.from(embedding, 'base64');
    if (bytes.length % 4 !== 0) return null;
    // Copied: a Float32Array view needs a 4-byte aligned offset, which a pooled Buffer does not promise.
    return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
  }
  if (Array.isArray(embedding) && embedding.every((value) => typeof value === 'number'))
    return Float32Array.from(embedding);
  return null;
}
