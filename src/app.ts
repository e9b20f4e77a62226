import path from 'node:path';
import type { MongoClient, Db } from 'mongodb';
import type { Config } from './config';
import type { Logger } from './logger';
import type { DatabaseKind } from './db/connection';
import { ensureIndexes } from './db/indexes';
import type { EmbeddingProvider } from './embeddings/provider';
import type { EmbeddingService } from './embeddings/embedding.service';
import { createEmbeddingService } from './embeddings';
import { SearchIndexes } from './search/search-index';
import { SEARCH_SPACES } from './modules/search-spaces';
import packageJson from '../package.json';

/** Long-lived dependencies shared by every request (the connection, providers, indexes); built once at startup. */
export interface AppDeps {
  config: Config;
  logger: Logger;
  version: string;
  database: {
    kind: DatabaseKind;
    version: string;
    client: MongoClient;
    /** The default database; a request may work on another one (tenants map to databases). */
    db: Db;
  };
  embeddings: EmbeddingProvider;
  /** Embeds text through the content-hash cache; what features call (its `signature` goes into `embedding_model`). */
  embedder: EmbeddingService;
  /** Vector (HNSW or Atlas) and keyword (BM25) search: spaces defined once, `search.forDb(ctx.db)` per database. */
  search: SearchIndexes;
}

export const VERSION: string = packageJson.version;

/** Builds the long-lived deps around a connected database and an embedding provider (main and tests alike). */
export function createAppDeps(options: Pick<AppDeps, 'config' | 'logger' | 'database' | 'embeddings'>): AppDeps {
  const { config, logger, database, embeddings } = options;
  const search = new SearchIndexes({
    mode: config.vectorSearch,
    dimensions: embeddings.dimensions,
    logger,
    persistDir: path.join(config.dataDir, 'search'),
    model: `${embeddings.id}/${embeddings.model}/${embeddings.dimensions}`,
  });
  search.defineSpace(...SEARCH_SPACES);
  return {
    ...options,
    version: VERSION,
    embedder: createEmbeddingService(embeddings, database.db, config),
    search,
  };
}

/** Makes a database ready to serve: its indexes exist and its in-process search spaces are loaded. */
export async function prepareDatabase(deps: AppDeps, db: Db): Promise<void> {
  await ensureIndexes(db, deps.config);
  await deps.search.forDb(db).buildAll();
}
