import {
  embeddingCacheHits,
  embeddingCacheMisses,
  embeddingDuration,
  embeddingErrors,
  embeddingTruncations,
} from './metrics';
import { inSpan } from './tracing';

/** Who answers an embedding call: the provider's id and model (never its key or endpoint). */
export interface EmbedderName {
  provider: string;
  model: string;
}

/** Counts the texts of an `embed` call found in the cache and those sent to the provider. */
export function countEmbeddingCache(hits: number, misses: number): void {
  if (hits > 0) embeddingCacheHits.inc(hits);
  if (misses > 0) embeddingCacheMisses.inc(misses);
}

/** Counts the texts of an `embed` call that were cut to the model's input limit. */
export function countEmbeddingTruncations(embedder: EmbedderName, texts: number): void {
  if (texts > 0) embeddingTruncations.labels(embedder.provider).inc(texts);
}

/**
 * Runs one call to the embedding provider (`texts` texts), timed, counted when it fails, and a span when tracing: a
 * child of the request whose `signal` it runs under.
 */
export async function embeddingCall<T>(
  embedder: EmbedderName,
  texts: number,
  signal: AbortSignal | undefined,
  call: () => Promise<T>,
): Promise<T> {
  const started = performance.now();
  try {
    return await inSpan(
      `embeddings ${embedder.model}`,
      {
        'gen_ai.operation.name': 'embeddings',
        'gen_ai.provider.name': embedder.provider,
        'gen_ai.request.model': embedder.model,
        'hindsight.embedding.texts': texts,
      },
      signal,
      call,
    );
  } catch (error) {
    embeddingErrors.labels(embedder.provider).inc();
    throw error;
  } finally {
    embeddingDuration.labels(embedder.provider).observe((performance.now() - started) / 1000);
  }
}
