import 'reflect-metadata';
import type { GraphQLFormattedError } from 'graphql';
import { loadConfig, type Config } from '../../src/config';
import { silentLogger, type Logger } from '../../src/logger';
import { VERSION, type AppDeps } from '../../src/app';
import { createContext, type ContextOptions } from '../../src/context';
import { ensureIndexes } from '../../src/db/indexes';
import { HashEmbeddingProvider } from '../../src/embeddings/hash.provider';
import { createEmbeddingService } from '../../src/embeddings';
import type { EmbeddingProvider } from '../../src/embeddings/provider';
import { buildAppSchema } from '../../src/schema';
import { SearchIndexes } from '../../src/search/search-index';
import { createServer, type HindsightServer } from '../../src/server';
import { openTestDatabase, type TestDatabase } from './db';
import { testTarget } from './target';

export interface ExecutionResult<TData = Record<string, any>> {
  data?: TData | null;
  errors?: readonly GraphQLFormattedError[];
}

export interface TestApp extends TestDatabase {
  deps: AppDeps;
  server: HindsightServer;
  /** Runs one operation in-process through Apollo (the same schema, context and formatError as over HTTP). */
  execute<TData = Record<string, any>>(query: string, variables?: Record<string, unknown>, context?: ContextOptions): Promise<ExecutionResult<TData>>;
  /** Like execute, but fails the test on any GraphQL error and returns `data`. */
  run<TData = Record<string, any>>(query: string, variables?: Record<string, unknown>): Promise<TData>;
}

export interface TestAppOptions {
  config?: Partial<Config>;
  embeddings?: EmbeddingProvider;
  logger?: Logger;
}

/** The app over this test file's own database, with the hash embedder unless another provider is given. */
export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const database = await openTestDatabase();
  const config = loadConfig({}, { embeddingsProvider: 'hash', port: 0, host: '127.0.0.1', ...options.config });
  const embeddings = options.embeddings ?? new HashEmbeddingProvider(config.embeddingDimensions ?? 384);
  const logger = options.logger ?? silentLogger;
  const deps: AppDeps = {
    config,
    logger,
    version: VERSION,
    database: {
      kind: testTarget() === 'mongod' ? 'EXTERNAL' : 'EMBEDDED',
      version: String((await database.db.admin().command({ buildInfo: 1 })).version),
      client: database.client,
      db: database.db,
    },
    embeddings,
    embedder: createEmbeddingService(embeddings, database.db, config),
    search: new SearchIndexes({ mode: config.vectorSearch, dimensions: embeddings.dimensions, logger }),
  };
  await ensureIndexes(database.db, config);
  const server = await createServer(deps, await buildAppSchema());

  const execute: TestApp['execute'] = async (query, variables, context) => {
    const response = await server.apollo.executeOperation(
      { query, variables },
      { contextValue: createContext(deps, context) },
    );
    if (response.body.kind !== 'single') throw new Error('incremental delivery is not used by these tests');
    return response.body.singleResult as ExecutionResult<any>;
  };

  return {
    ...database,
    deps,
    server,
    execute,
    async run(query, variables) {
      const result = await execute(query, variables);
      if (result.errors?.length) throw new Error(`GraphQL errors: ${JSON.stringify(result.errors, null, 2)}`);
      return result.data as any;
    },
    async close() {
      await server.stop();
      await database.close();
    },
  };
}
