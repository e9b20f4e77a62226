import type { MongoClient, Db } from 'mongodb';
import type { Config } from './config';
import type { Logger } from './logger';
import type { DatabaseKind } from './db/connection';
import type { EmbeddingProvider } from './embeddings/provider';
import type { EmbeddingService } from './embeddings/embedding.service';
import type { SearchIndexes } from './search/search-index';
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
