/**
 * One interface for every embedding provider. Vectors are L2-normalised so cosine similarity is a dot product.
 * `id`, `model` and `dimensions` are recorded with every stored vector, so vectors made by another model are
 * detected instead of being compared.
 */
export interface EmbeddingProvider {
  /** `openai`, `onnx`, `local` or `hash`. */
  readonly id: string;
  readonly model: string;
  readonly dimensions: number;
  /**
   * One vector per text, in order. Once `signal` (the request's) is aborted, stops waiting on the model and rejects
   * with its reason.
   */
  embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]>;
  /**
   * The longest text the model reads; {@link EmbeddingService} cuts a longer one to it ({@link cutForModel}) before
   * anything else (cache key included). Absent: no limit (the hash embedder, linear in the text).
   */
  readonly inputLimit?: InputLimit;
  /**
   * Texts {@link EmbeddingService} puts before what it embeds, for models trained with them (e5's `query: ` and
   * `passage: `): `query` before a search's text, `document` before a stored one. Absent: none.
   */
  readonly prefixes?: EmbeddingPrefixes;
  /** Releases resources (model weights, sockets). */
  close?(): Promise<void>;
}

/** See {@link EmbeddingProvider.prefixes}; an empty string is no prefix. */
export interface EmbeddingPrefixes {
  query: string;
  document: string;
}

/** A model's input limit: `max` UTF-16 code units (`chars`) or UTF-8 bytes (`bytes`). */
export interface InputLimit {
  unit: 'chars' | 'bytes';
  max: number;
}

/**
 * `text` cut to `limit`, never inside a surrogate pair (nor, for bytes, inside a character's encoding); whether it was
 * cut. Reads only the first `max` units of a longer text.
 */
export function cutForModel(text: string, limit: InputLimit | undefined): { text: string; truncated: boolean } {
  if (!limit || text.length <= (limit.unit === 'bytes' ? limit.max / 3 : limit.max)) return { text, truncated: false };
  let end = 0;
  let used = 0;
  while (end < text.length) {
    const code = text.charCodeAt(end);
    const next = text.charCodeAt(end + 1);
    const pair = code >= 0xd800 && code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff;
    const size = limit.unit === 'chars' ? (pair ? 2 : 1) : pair ? 4 : code < 0x80 ? 1 : code < 0x800 ? 2 : 3;
    if (used + size > limit.max) break;
    used += size;
    end += pair ? 2 : 1;
  }
  return end === text.length ? { text, truncated: false } : { text: text.slice(0, end), truncated: true };
}

/** Scales a vector to unit length in place (a zero vector stays zero) and returns it. */
export function normalize(vector: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i] * vector[i];
  if (sum > 0) {
    const scale = 1 / Math.sqrt(sum);
    for (let i = 0; i < vector.length; i++) vector[i] *= scale;
  }
  return vector;
}

/** Splits `items` into consecutive slices of at most `size` (the texts of one provider request each). */
export function inBatches<T>(items: readonly T[], size: number): T[][] {
  const batches: T[][] = [];
  for (let start = 0; start < items.length; start += size) batches.push(items.slice(start, start + size));
  return batches;
}
