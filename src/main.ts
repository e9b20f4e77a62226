import { OPERATOR_NODE_ENV } from './production-env';
import os from 'node:os';
import 'reflect-metadata';
import { ConfigError, loadConfig, loadDotEnv, type Config } from './config';
import { createLogger, type Logger } from './logger';
import { redact } from './redact';
import { connectDatabase } from './db/connection';
import { createEmbeddingProvider } from './embeddings';
import { buildAppSchema } from './schema';
import { createServer } from './http/server';
import { removeServerPid, writeServerPid } from './auth/server-pid';
import { VERSION, createAppDeps, prepareDatabase, type AppDeps } from './app';
import { createDegradedServer } from './http/degraded';
import { DataDamagedError } from '@hindsight/engine';
import { HARD_STOP_MARGIN_MS, startStopWatchdog, stopDeadlineMs } from './stop-watchdog';

export interface RunningHindsight {
  url: string;
  deps: AppDeps;
  /** Graceful stop: in-flight requests finish, then the database (and the embedded engine's journal) closes. */
  stop(): Promise<void>;
}

/** Thrown when the API would listen beyond this machine with no key: anyone reaching it would be admin. */
export class AnonymousExposureError extends Error {
  constructor(host: string) {
    super(
      `Refusing to listen on HOST=${host} without API keys: anyone reaching it could read and delete all data. ` +
        'Create a key (npm run keys -- create --role admin --tenant default) or set API_KEYS, listen on 127.0.0.1, ' +
        'or set ALLOW_ANONYMOUS=true to accept this.',
    );
    this.name = 'AnonymousExposureError';
  }
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
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
        newClient: connection.newClient,
      },
      embeddings,
    });
    // Before the search spaces load: a refused start then exits with nothing of theirs still running.
    if (!isLoopback(config.host) && !config.allowAnonymous && !(await deps.keys.required())) {
      throw new AnonymousExposureError(config.host);
    }
    await prepareDatabase(deps, connection.db);
    deps.search.startAutoSave();
    const server = await createServer(deps, await buildAppSchema());
    const url = await server.listen(config.port, config.host);
    if (connection.kind === 'EMBEDDED') writeServerPid(config.dataDir);
    return {
      url,
      deps,
      async stop() {
        await server.stop();
        // The search index is saved under DATA_DIR, so the next start restores it instead of rebuilding it.
        await deps.search.close();
        await embeddings.close?.();
        await connection.close();
        if (connection.kind === 'EMBEDDED') removeServerPid(config.dataDir);
      },
    };
  } catch (error) {
    await connection.close();
    throw error;
  }
}

/**
 * The start when the embedded engine refused a damaged data directory: logs the damage at ERROR and serves only the
 * reason (/health, /ready 503, `serverInfo`; see createDegradedServer) until it is repaired and restarted, so that an
 * operator sees why instead of a process that keeps exiting. No file of the directory is touched.
 */
export async function startDegraded(
  config: Config,
  logger: Logger,
  damage: DataDamagedError,
): Promise<{ url: string; reason: string; stop(): Promise<void> }> {
  const reason = `data directory damaged: ${damage.detail}; stop the server and run npm run db -- --repair with this DATA_DIR`;
  logger.error('data directory damaged: serving no data until it is repaired', {
    file: damage.file,
    offset: damage.offset,
    detail: damage.detail,
    dataDir: damage.dataDir,
    repair: `DATA_DIR=${damage.dataDir} npm run db -- --repair`,
  });
  const embeddings = await createEmbeddingProvider(config);
  const server = createDegradedServer(
    { version: VERSION, database: { kind: 'EMBEDDED' }, embeddings },
    reason,
    await buildAppSchema(),
    logger,
  );
  const url = await server.listen(config.port, config.host);
  return {
    url,
    reason,
    async stop() {
      await server.stop();
      await embeddings.close?.();
    },
  };
}

async function main(): Promise<void> {
  let config: Config;
  try {
    loadDotEnv();
    // production-env.ts defaults NODE_ENV for graphql-js; the configuration sees the operator's own value.
    config = loadConfig({ ...process.env, NODE_ENV: OPERATOR_NODE_ENV });
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`Configuration error: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel);
  // Before the start: the watchdog's signal watch replaces the signals' default action (death) for the whole process,
  // so from here on this process's handlers answer every SIGTERM and SIGINT.
  const deadlineMs = stopDeadlineMs(config.shutdownTimeoutMs);
  const watchdog = await startStopWatchdog(deadlineMs + HARD_STOP_MARGIN_MS);
  let running: RunningHindsight | Awaited<ReturnType<typeof startDegraded>> | undefined;
  let stopping = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    watchdog.arm(signal);
    if (!running) {
      // Still starting: end as the signal's default action would (acknowledged writes are already in the journal).
      logger.info('stopped while starting', { signal });
      process.exit(128 + os.constants.signals[signal]);
    }
    logger.info('shutting down', { signal });
    setTimeout(() => {
      logger.error('shutdown did not finish in time: exiting', { signal, deadlineMs });
      process.exit(1);
    }, deadlineMs).unref();
    running.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error('shutdown failed', { error: error instanceof Error ? error.stack : String(error) });
        process.exit(1);
      },
    );
  };
  // Before the ready line: a supervisor may signal as soon as it reads it, and an unanswered signal would wait for
  // the watchdog's hard stop (the search index then unsaved).
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  try {
    running = await startHindsight(config, logger);
  } catch (error) {
    if (error instanceof AnonymousExposureError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    if (!(error instanceof DataDamagedError)) throw error;
    const degraded = await startDegraded(config, logger, error);
    process.stdout.write(`Hindsight ${VERSION} serves no data: ${degraded.reason}\n  GraphQL API: ${degraded.url}\n`);
    running = degraded;
  }
  if (!('deps' in running)) return;
  const kind =
    running.deps.database.kind === 'EMBEDDED' ? `embedded engine, data in ${config.dataDir}` : 'MongoDB at MONGODB_URI';
  process.stdout.write(
    `Hindsight ${VERSION} ready (${kind}, embeddings: ${running.deps.embeddings.id}/${running.deps.embeddings.model})\n` +
      `  GraphQL API: ${running.url}\n` +
      (config.playground ? `  Playground:  ${running.url} (open in a browser)\n` : ''),
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
