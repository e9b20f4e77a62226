import 'reflect-metadata';
import { getOperationAST, print, type GraphQLFormattedError } from 'graphql';
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { loadConfig, type Config } from '../../src/config';
import { silentLogger, type Logger } from '../../src/logger';
import { createAppDeps, prepareDatabase, type AppDeps } from '../../src/app';
import { createContext, type ContextOptions } from '../../src/context';
import { HashEmbeddingProvider } from '../../src/embeddings/hash.provider';
import type { EmbeddingProvider } from '../../src/embeddings/provider';
import { buildAppSchema } from '../../src/schema';
import { createServer, type HindsightServer } from '../../src/http/server';
import { openTestDatabase, type TestDatabase } from './db';
import { testTarget } from './target';

// Here too for the files that build an app; files that only spawn the built server import ./http, without the app.
export { postGraphQL } from './http';

export interface ExecutionResult<TData = Record<string, any>> {
  data?: TData | null;
  errors?: readonly GraphQLFormattedError[];
}

/**
 * An operation of test/support/operations/*.graphql as graphql-codegen types it (`SessionDocument` from
 * test/support/generated/graphql.ts): its result and variables types come with it.
 */
export type Operation<TData = any, TVariables = any> = TypedDocumentNode<TData, TVariables>;

/** The name of a typed operation, for messages naming the case that failed. */
export function operationName(document: Operation): string {
  return getOperationAST(document)?.name?.value ?? '(anonymous)';
}

/** One operation with its variables, checked against each other when built with `call`: a row of a table of cases. */
export interface OperationCall {
  document: Operation;
  variables: Record<string, unknown>;
}

export function call<TData, TVariables extends Record<string, unknown>>(
  document: Operation<TData, TVariables>,
  variables: NoInfer<TVariables>,
): OperationCall {
  return { document, variables };
}

export interface TestApp extends TestDatabase {
  deps: AppDeps;
  server: HindsightServer;
  /**
   * Runs one operation in-process through Apollo (the same schema, context and formatError as over HTTP). A typed
   * document gives the result's and the variables' types; a string (an ad-hoc or deliberately invalid query) is
   * untyped.
   */
  execute<TData, TVariables>(
    document: Operation<TData, TVariables>,
    variables?: NoInfer<TVariables>,
    context?: ContextOptions,
  ): Promise<ExecutionResult<TData>>;
  execute(query: string, variables?: Record<string, unknown>, context?: ContextOptions): Promise<ExecutionResult>;
  /** Like execute, but fails the test on any GraphQL error and returns `data`. */
  run<TData, TVariables>(
    document: Operation<TData, TVariables>,
    variables?: NoInfer<TVariables>,
    context?: ContextOptions,
  ): Promise<TData>;
  run(query: string, variables?: Record<string, unknown>, context?: ContextOptions): Promise<Record<string, any>>;
}

export interface TestAppOptions {
  config?: Partial<Config>;
  embeddings?: EmbeddingProvider;
  logger?: Logger;
  /** Another database server than the run's (e.g. an engine with test commands, see fail-point.ts). */
  databaseUri?: string;
}

/** The app over this test file's own database, with the hash embedder unless another provider is given. */
export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const database = await openTestDatabase(options.databaseUri);
  // VECTOR_SEARCH=atlas runs the app's tests on the engine's $vectorSearch (as against Atlas).
  const config = loadConfig(
    { VECTOR_SEARCH: process.env.VECTOR_SEARCH },
    // The message index is opt-in (MESSAGE_INDEX); the app's tests run with it on, so searchMessages and recall work.
    { embeddingsProvider: 'hash', port: 0, host: '127.0.0.1', messageIndex: true, ...options.config },
  );
  const embeddings = options.embeddings ?? new HashEmbeddingProvider(config.embeddingDimensions ?? 384);
  const logger = options.logger ?? silentLogger;
  const deps = createAppDeps({
    config,
    logger,
    database: {
      kind: testTarget() === 'mongod' ? 'EXTERNAL' : 'EMBEDDED',
      version: String((await database.db.admin().command({ buildInfo: 1 })).version),
      client: database.client,
      db: database.db,
    },
    embeddings,
  });
  await prepareDatabase(deps, database.db);
  const server = await createServer(deps, await buildAppSchema());

  const execute = async (
    query: string | Operation,
    variables?: Record<string, unknown>,
    context?: ContextOptions,
  ): Promise<ExecutionResult<any>> => {
    // A caller works on its tenant's database, as over HTTP.
    const db = context?.db ?? (context?.caller ? await deps.tenantDb(context.caller.tenant) : undefined);
    const response = await server.apollo.executeOperation(
      { query: typeof query === 'string' ? query : print(query), variables },
      { contextValue: createContext(deps, { ...context, db }) },
    );
    if (response.body.kind !== 'single') throw new Error('incremental delivery is not used by these tests');
    return response.body.singleResult;
  };

  return {
    ...database,
    deps,
    server,
    execute,
    async run(query: string | Operation, variables?: Record<string, unknown>, context?: ContextOptions) {
      const result = await execute(query, variables, context);
      if (result.errors?.length) throw new Error(`GraphQL errors: ${JSON.stringify(result.errors, null, 2)}`);
      return result.data as any;
    },
    async close() {
      await server.stop();
      await database.close();
    },
  };
}

/**
 * Stops the following of `app`'s search spaces (and its message index) once it has begun: a stream still opening when following stops is
 * closed once open, and its commands would land in what a test counts.
 */
export async function stopFollowing(app: TestApp): Promise<void> {
  const index = app.deps.search.forDb(app.db);
  const deadline = Date.now() + 10_000;
  while (
    app.deps.config.searchFollow &&
    app.deps.search.spaces.some((space) => index.followStatus(space.name).position === null)
  ) {
    if (Date.now() > deadline) throw new Error('following did not begin within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await index.stopFollowing();
  // The message index follows the sessions too (src/modules/messages/message.indexer.ts).
  await app.deps.messageIndex.forDb(app.db).close();
}
