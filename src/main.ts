import './production-env';
import 'reflect-metadata';
import { ConfigError, loadConfig, loadDotEnv, type Config } from './config';
import { createLogger, type Logger } from './logger';
import { redact } from './redact';
import { connectDatabase } from './db/connection';
import { createEmbeddingProvider } from './embeddings';
import { buildAppSchema } from './schema';
import { createServer } from './http/server';
import { VERSION, createAppDeps, prepareDatabase, type AppDeps } from './app';

export interface RunningHindsight {
  url: string;
  deps: AppDeps;
  /** Graceful stop: in-flight requests finish, then the database (and the embedded engine's journal) closes. */
  stop(): Promise<void>;
}

/** Bootstrap: config → database → indexes → schema → listen. */
export async function startHindsight(config: Config, logger: Logger): Promise<RunningHindsight> {
  const connection = await connectDatabase(config, logger);
  try {
    const embeddings = await createEmbeddingProvider(config);
    const deps = createAppDeps({
      config,
      logger,
      database: {
        kind: connection.kind,
        version: connection.serverVersion,
        client: connection.client,
        db: connection.db,
      },
      embeddings,
    });
    await prepareDatabase(deps, connection.db);
    deps.search.startAutoSave();
    const server = await createServer(deps, await buildAppSchema());
    const url = await server.listen(config.port, config.host);
    return {
      url,
      deps,
      async stop() {
        await server.stop();
        // The search index is saved under DATA_DIR, so the next start restores it instead of rebuilding it.
        await deps.search.close();
        await embeddings.close?.();
        await connection.close();
      },
    };
  } catch (error) {
    await connection.close();
    throw error;
  }
}

async function main(): Promise<void> {
  let config: Config;
  try {
    loadDotEnv();
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`Configuration error: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel);
  const running = await startHindsight(config, logger);
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down', { signal });
    running.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error('shutdown failed', { error: error instanceof Error ? error.stack : String(error) });
        process.exit(1);
      },
    );
  };
  // Before the ready line: a supervisor may signal as soon as it reads it, and without a handler the signal's default
  // action kills the process unsaved (the benchmark's restarts lost their snapshots' saves so).
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  const kind =
    running.deps.database.kind === 'EMBEDDED' ? `embedded engine, data in ${config.dataDir}` : 'MongoDB at MONGODB_URI';
  process.stdout.write(
    `Hindsight ${VERSION} ready (${kind}, embeddings: ${running.deps.embeddings.id}/${running.deps.embeddings.model})\n` +
      `  GraphQL API: ${running.url}\n` +
      `  Playground:  ${running.url} (open in a browser)\n`,
  );
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(
      `Hindsight failed to start: ${redact(error instanceof Error ? String(error.stack) : String(error))}\n`,
    );
    process.exit(1);
  });
}
