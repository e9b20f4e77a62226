/**
 * One interface for every embedding provider. Vectors are L2-normalised so cosine similarity is a dot product.
 * `id`, `model` and `dimensions` are recorded with every stored vector, so vectors made by another model are
 * detected instead of being compared.
 */
export interface EmbeddingProvider {
  /** `openai`, `local` or `hash`. */
  readonly id: string;
  readonly model: string;
  readonly dimensions: number;
  /**
   * One vector per text, in order. Once `signal` (the request's) is aborted, stops waiting on the model and rejects
   * with its reason.
   */
  embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]>;
  /** Releases resources (model weights, sockets). */
  close?(): Promise<void>;
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
