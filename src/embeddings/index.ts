import type { Config } from '../config';
import type { EmbeddingProvider } from './provider';
import { HashEmbeddingProvider } from './hash.provider';

export type { EmbeddingProvider } from './provider';

/** Builds the provider chosen by EMBEDDINGS_PROVIDER. */
export async function createEmbeddingProvider(config: Config): Promise<EmbeddingProvider> {
  switch (config.embeddingsProvider) {
    case 'hash':
      return new HashEmbeddingProvider(config.embeddingDimensions ?? 384);
    default:
      throw new Error(`EMBEDDINGS_PROVIDER=${config.embeddingsProvider} is not available in this build`);
  }
}
