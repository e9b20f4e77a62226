import type { Db } from 'mongodb';
import type { Config } from '../config';
import type { EmbeddingPrefixes, EmbeddingProvider } from './provider';
import { HashEmbeddingProvider } from './hash.provider';
import { LocalEmbeddingProvider } from './local.provider';
import { EMBEDDING_CACHE_COLLECTION, EmbeddingService, type EmbeddingCacheDocument } from './embedding.service';

export type { EmbeddingProvider } from './provider';
export { EmbeddingService, EMBEDDING_CACHE_COLLECTION } from './embedding.service';
export { assertSameEmbeddingModel, EmbeddingModelMismatchError, type EmbeddingModelInfo } from './model-check';
export { toStoredVector, fromStoredVector } from './vectors';

/**
 * Builds the provider chosen by EMBEDDINGS_PROVIDER. `openai` may send one probe request (model of unknown size
 * without EMBEDDING_DIMENSIONS); `local` and `onnx` load their model in a worker thread (`onnx` refuses to start,
 * naming the file, when one of EMBEDDING_MODEL_DIR's is missing or broken). Close it with `close()` on shutdown.
 * The `openai` client and onnxruntime are loaded only when chosen: every importer of this module (the app) would pay
 * their load time.
 */
export async function createEmbeddingProvider(config: Config): Promise<EmbeddingProvider> {
  const prefixes: EmbeddingPrefixes | undefined =
    config.embeddingQueryPrefix || config.embeddingDocumentPrefix
      ? { query: config.embeddingQueryPrefix, document: config.embeddingDocumentPrefix }
      : undefined;
  switch (config.embeddingsProvider) {
    case 'hash':
      return new HashEmbeddingProvider(config.embeddingDimensions ?? 384);
    case 'local':
      return LocalEmbeddingProvider.create({ batchSize: config.embeddingBatchSize });
    case 'onnx': {
      if (!config.embeddingModelDir) throw new Error('EMBEDDINGS_PROVIDER=onnx needs EMBEDDING_MODEL_DIR');
      const { OnnxEmbeddingProvider } = await import('./onnx.provider');
      return OnnxEmbeddingProvider.create({
        dir: config.embeddingModelDir,
        model: config.embeddingModel,
        pooling: config.embeddingPooling,
        maxTokens: config.embeddingMaxTokens,
        batchSize: config.embeddingBatchSize,
        prefixes,
      });
    }
    case 'openai': {
      if (!config.openaiApiKey) throw new Error('EMBEDDINGS_PROVIDER=openai needs OPENAI_API_KEY');
      const { OpenAIEmbeddingProvider } = await import('./openai.provider');
      return OpenAIEmbeddingProvider.create({
        apiKey: config.openaiApiKey,
        baseURL: config.openaiBaseUrl,
        model: config.embeddingModel,
        dimensions: config.embeddingDimensions,
        batchSize: config.embeddingBatchSize,
        timeoutMs: config.embeddingTimeoutMs,
        maxRetries: config.embeddingMaxRetries,
        prefixes,
      });
    }
  }
}

/**
 * The app's embedder (`deps.embedder`): `provider` behind the `embedding_cache` collection of `db`, except the `hash`
 * provider, which computes a vector in microseconds: a cache lookup and insert are two database round trips, and
 * took about 1 ms of a search's 7 (100k experiences, one client).
 */
export function createEmbeddingService(provider: EmbeddingProvider, db: Db, config: Config): EmbeddingService {
  const cache = provider.id === 'hash' ? null : db.collection<EmbeddingCacheDocument>(EMBEDDING_CACHE_COLLECTION);
  return new EmbeddingService(provider, cache, { batchSize: config.embeddingBatchSize });
}
