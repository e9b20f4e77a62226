import { MongoClient, type Db, type MongoClientOptions } from 'mongodb';
import type { Config } from '../config';
import type { Logger } from '../logger';
import {
  canStartEngineThread,
  startEmbeddedServer,
  startEngineThread,
  type EmbeddedServer,
  type EngineOptions,
} from '@hindsight/engine';

export type DatabaseKind = 'EMBEDDED' | 'EXTERNAL';

export interface DatabaseConnection {
  kind: DatabaseKind;
  client: MongoClient;
  /** Name of the default database (tenants may map to others later). */
  dbName: string;
  db: Db;
  /** The server's version as reported by `buildInfo`. */
  serverVersion: string;
  /** A new client of the same server with the same options (the change follower's; see ChangeFollower). */
  newClient(): MongoClient;
  /** Present when Hindsight started the embedded engine itself. */
  embedded?: EmbeddedServer;
  close(): Promise<void>;
}

const DEFAULT_DB = 'hindsight';

/** The database named by the URI's path, else MONGODB_DB, else `hindsight`. */
export function databaseNameFor(uri: string | undefined, configured: string | undefined): string {
  if (uri) {
    const afterHosts = uri.replace(/^mongodb(\+srv)?:\/\/[^/]*/, '');
    const name = decodeURIComponent(afterHosts.replace(/^\//, '').split('?')[0] ?? '');
    if (name) return name;
  }
  return configured ?? DEFAULT_DB;
}

/**
 * Driver options bounding how long an operation waits for an unreachable database (the driver's default is 30 s). A
 * retryable read or write may select a server twice (its first attempt fails on the dead connection, its retry waits
 * for a server again), so each selection gets half of `timeoutMs`. The monitor checks a server at least every
 * `timeoutMs`, so the readiness it feeds (DatabaseHealth) follows an outage and a recovery within about that.
 * Connecting keeps the driver's timeout: it also bounds the monitor's check, and a server busy for a second (the
 * embedded engine loading 100k documents at startup) is slow, not gone; a refused connection fails at once anyway.
 * Operations that reach a server are not bounded: a long aggregation or index build may take what it needs.
 */
export function failFastOptions(timeoutMs: number): MongoClientOptions {
  const half = Math.max(Math.round(timeoutMs / 2), 50);
  return {
    serverSelectionTimeoutMS: half,
    // The driver's floor is 500 ms; past 10 s (its default) a recovery would go unnoticed for longer than today.
    heartbeatFrequencyMS: Math.min(Math.max(timeoutMs, 500), 10_000),
  };
}

/**
 * Connects to MONGODB_URI, or starts the embedded engine under DATA_DIR, reachable only through its Unix socket,
 * and connects to it with the same driver. Never starts the engine when a URI is configured.
 */
export async function connectDatabase(
  config: Pick<
    Config,
    'mongodbUri' | 'mongodbDb' | 'dbTimeoutMs' | 'dataDir' | 'engineCompactAfterBytes' | 'engineChangeLogEvents'
  > &
    Partial<Pick<Config, 'otlpEndpoint' | 'engineTtlIntervalMs'>>,
  logger: Logger,
  clientOptions: MongoClientOptions = {},
): Promise<DatabaseConnection> {
  let embedded: EmbeddedServer | undefined;
  if (!config.mongodbUri) {
    const options = {
      // No port: the engine listens only on its Unix socket, which only this user can open.
      dataDir: config.dataDir,
      compactAfterBytes: config.engineCompactAfterBytes,
      changeLogEvents: config.engineChangeLogEvents,
      ttlIntervalMs: config.engineTtlIntervalMs,
      // The engine's level is kept: a dropped torn tail (warn) or an internal error must not read as routine.
      log: (line, level = 'info') => logger[level](line, { component: 'embedded-engine' }),
    } satisfies EngineOptions;
    // Its own thread when compiled (npm start); in this thread when the sources run uncompiled (ts-jest).
    const thread = canStartEngineThread();
    embedded = thread
      ? await startEngineThread({
          ...options,
          onCrash: (error) => {
            // Every acknowledged write is in the journal already; a restart recovers it.
            logger.error('embedded engine thread failed; exiting', { error: error.message });
            process.exit(1);
          },
        })
      : await startEmbeddedServer(options);
    logger.info('embedded engine started', {
      dataDir: config.dataDir,
      uri: embedded.uri,
      thread: thread ? 'worker' : 'main',
    });
  }
  const uri = config.mongodbUri ?? embedded!.uri;
  const options: MongoClientOptions = {
    ignoreUndefined: true,
    ...failFastOptions(config.dbTimeoutMs),
    ...clientOptions,
  };
  const client = new MongoClient(uri, options);
  try {
    await client.connect();
  } catch (error) {
    await embedded?.close();
    throw error;
  }
  const dbName = databaseNameFor(config.mongodbUri, config.mongodbDb);
  const db = client.db(dbName);
  const info = await db.admin().command({ buildInfo: 1 });
  return {
    kind: embedded ? 'EMBEDDED' : 'EXTERNAL',
    client,
    dbName,
    db,
    serverVersion: String(info.version),
    newClient: () => new MongoClient(uri, options),
    embedded,
    async close() {
      await client.close();
      await embedded?.close();
    },
  };
}
