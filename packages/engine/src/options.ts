/** How the engine is started: in this process, in a worker thread, or by its CLI (`npm run db`). */
import { isIP } from 'node:net';
import { scramCredential, type ScramCredential } from './auth';
import type { EngineLog } from './durability';

/** Where the engine keeps its files, where it listens, and its limits. Only `dataDir` is required. */
export interface EngineOptions {
  /**
   * Directory of the journal, snapshots and the vector spill file (created if missing; made 0700, its files 0600).
   * The engine listens on the Unix domain socket `<dataDir>/engine.sock`, or, when that path is over the ~107-byte
   * limit of a socket address, in a private 0700 directory under the system's temporary directory.
   */
  dataDir: string;
  /**
   * TCP port; 0 picks a free one (the started server reports it). Absent: no TCP listener at all, only the Unix
   * socket (except on Windows, which has none: there the engine listens on a free port of 127.0.0.1).
   */
  port?: number;
  /** Interface of the TCP listener. Default 127.0.0.1. */
  host?: string;
  /** A message whose first bytes arrived must be complete within this many ms, else its connection is closed. Default 30,000. */
  frameTimeoutMs?: number;
  /** Open connections beyond which a new one is closed at once. Default 1,000. */
  maxConnections?: number;
  /**
   * A connection with no message and no command in flight for this many ms is closed (drivers reconnect
   * transparently). Default 600,000 (10 minutes).
   */
  idleTimeoutMs?: number;
  /**
   * When set, every connection must authenticate with SCRAM-SHA-256 as this user (`authSource=admin`) before any
   * command but the handshake, `ping` and `buildInfo`. Derive it with `scramCredential(user, password)`.
   */
  credential?: ScramCredential;
  /**
   * Receives notable events (recovery, compaction, dropped connections) with a level: `warn` for damage dropped,
   * `error` for an internal error. Default: discarded.
   */
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
  /**
   * Milliseconds between passes that delete the documents TTL indexes expire (mongod's ttlMonitorSleepSecs). Default
   * 60,000, as mongod.
   */
  ttlIntervalMs?: number;
}

/** A started engine. */
export interface EmbeddedServer {
  /**
   * How a client on this machine connects: through the Unix domain socket where there is one (cheaper per round trip
   * than TCP loopback, and only this user can open it), else `mongodb://host:port/?directConnection=true`.
   */
  uri: string;
  /** The TCP listener's interface and port; absent when the engine listens on its Unix socket only. */
  host?: string;
  port?: number;
  /** The Unix domain socket, when there is one. */
  socketPath?: string;
  /** Stops accepting, closes connections, flushes and closes the journal. */
  close(): Promise<void>;
}

/** The environment variables the CLI reads; they keep the names `npm run db` has always used. */
type Variable =
  | 'DATA_DIR'
  | 'DB_PORT'
  | 'DB_HOST'
  | 'DB_USER'
  | 'DB_PASSWORD'
  | 'DB_MAX_CONNECTIONS'
  | 'DB_IDLE_TIMEOUT_MS'
  | 'DB_FRAME_TIMEOUT_MS'
  | 'ENGINE_COMPACT_AFTER_BYTES'
  | 'ENGINE_CHANGE_LOG_EVENTS'
  | 'ENGINE_TTL_INTERVAL_MS';

/** An unset or empty variable is absent. */
const value = (env: NodeJS.ProcessEnv, name: Variable): string | undefined => env[name] || undefined;

function positiveInteger(env: NodeJS.ProcessEnv, name: Variable): number | undefined {
  const raw = value(env, name);
  if (raw === undefined) return undefined;
  const parsed = Number(raw);
  if (!Number.isInteger(parsed) || parsed <= 0) throw new Error(`${name} must be a positive integer, got '${raw}'`);
  return parsed;
}

/** Whether `host` names only this machine: a TCP listener there is out of other machines' reach. */
export function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}

/**
 * The CLI's options, from `DATA_DIR` (default ./data), `DB_PORT` (27017), `DB_HOST` (127.0.0.1), `DB_USER` and
 * `DB_PASSWORD` (SCRAM-SHA-256 credentials; required unless `DB_HOST` is a loopback address), `DB_MAX_CONNECTIONS`,
 * `DB_IDLE_TIMEOUT_MS`, `DB_FRAME_TIMEOUT_MS`, `ENGINE_COMPACT_AFTER_BYTES`, `ENGINE_CHANGE_LOG_EVENTS` and
 * `ENGINE_TTL_INTERVAL_MS` (unset: the engine's defaults). The one place the engine reads the environment; throws an Error naming the variable whose
 * value it cannot use. The password is turned into stored keys here and not kept.
 */
export function engineOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): EngineOptions {
  const rawPort = value(env, 'DB_PORT');
  const port = Number(rawPort ?? 27017);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`DB_PORT must be a port number, got '${rawPort}'`);
  const host = value(env, 'DB_HOST') ?? '127.0.0.1';
  const user = value(env, 'DB_USER');
  const password = value(env, 'DB_PASSWORD');
  if ((user === undefined) !== (password === undefined))
    throw new Error(`DB_USER and DB_PASSWORD must be set together (${user ? 'DB_PASSWORD' : 'DB_USER'} is unset)`);
  if (!user && !isLoopback(host))
    throw new Error(
      `DB_HOST=${host} is reachable from other machines: set DB_USER and DB_PASSWORD (SCRAM-SHA-256), or bind 127.0.0.1`,
    );
  return {
    dataDir: value(env, 'DATA_DIR') ?? './data',
    host,
    port,
    credential: user && password ? scramCredential(user, password) : undefined,
    maxConnections: positiveInteger(env, 'DB_MAX_CONNECTIONS'),
    idleTimeoutMs: positiveInteger(env, 'DB_IDLE_TIMEOUT_MS'),
    frameTimeoutMs: positiveInteger(env, 'DB_FRAME_TIMEOUT_MS'),
    compactAfterBytes: positiveInteger(env, 'ENGINE_COMPACT_AFTER_BYTES'),
    changeLogEvents: positiveInteger(env, 'ENGINE_CHANGE_LOG_EVENTS'),
    ttlIntervalMs: positiveInteger(env, 'ENGINE_TTL_INTERVAL_MS'),
  };
}
