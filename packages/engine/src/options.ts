/** How the engine is started: in this process, in a worker thread, or by its CLI (`npm run db`). */
import type { EngineLog } from './durability';

/** Where the engine keeps its files, where it listens, and its limits. Only `dataDir` is required. */
export interface EngineOptions {
  /**
   * Directory of the journal, snapshots and the vector spill file (created if missing). The engine also listens on
   * the Unix domain socket `<dataDir>/engine.sock` where the platform and the path's length allow one.
   */
  dataDir: string;
  /** TCP port; 0 picks a free one (the started server reports it). Default 27017. */
  port?: number;
  /** Interface of the TCP listener. Default 127.0.0.1. */
  host?: string;
  /** Receives notable events (recovery, compaction, dropped connections), `warn` for damage dropped. Default: discarded. */
  log?: EngineLog;
  /**
   * Journal bytes after which the engine writes a snapshot and starts a new journal (once the journal is also a
   * quarter of the last snapshot's size). Default 64 MiB.
   */
  compactAfterBytes?: number;
  /** Change events kept, across restarts, for change streams to resume from. Default 1,000,000. */
  changeLogEvents?: number;
  /** Serve test-only commands (`configureFailPoint`), as mongod does with `enableTestCommands=1`. Default false. */
  enableTestCommands?: boolean;
}

/** A started engine. */
export interface EmbeddedServer {
  /**
   * How a client on this machine connects: through the Unix domain socket `<dataDir>/engine.sock` where there
   * is one (cheaper per round trip than TCP loopback), else `mongodb://host:port/?directConnection=true`.
   */
  uri: string;
  host: string;
  port: number;
  /** Stops accepting, closes connections, flushes and closes the journal. */
  close(): Promise<void>;
}

/** The environment variables the CLI reads; they keep the names `npm run db` has always used. */
type Variable = 'DATA_DIR' | 'DB_PORT' | 'DB_HOST' | 'ENGINE_COMPACT_AFTER_BYTES' | 'ENGINE_CHANGE_LOG_EVENTS';

/** An unset or empty variable is absent. */
const value = (env: NodeJS.ProcessEnv, name: Variable): string | undefined => env[name] || undefined;

function positiveInteger(env: NodeJS.ProcessEnv, name: Variable): number | undefined {
  const raw = value(env, name);
  if (raw === undefined) return undefined;
  const parsed = Number(raw);
  if (!Number.isInteger(parsed) || parsed <= 0) throw new Error(`${name} must be a positive integer, got '${raw}'`);
  return parsed;
}

/**
 * The CLI's options, from `DATA_DIR` (default ./data), `DB_PORT` (27017), `DB_HOST` (127.0.0.1),
 * `ENGINE_COMPACT_AFTER_BYTES` and `ENGINE_CHANGE_LOG_EVENTS` (unset: the engine's defaults). The one place the
 * engine reads the environment; throws an Error naming the variable whose value it cannot use.
 */
export function engineOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): EngineOptions {
  const rawPort = value(env, 'DB_PORT');
  const port = Number(rawPort ?? 27017);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`DB_PORT must be a port number, got '${rawPort}'`);
  return {
    dataDir: value(env, 'DATA_DIR') ?? './data',
    host: value(env, 'DB_HOST') ?? '127.0.0.1',
    port,
    compactAfterBytes: positiveInteger(env, 'ENGINE_COMPACT_AFTER_BYTES'),
    changeLogEvents: positiveInteger(env, 'ENGINE_CHANGE_LOG_EVENTS'),
  };
}
