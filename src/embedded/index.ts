import path from 'node:path';
import { ChangeLog, dataDirId } from './changes';
import { Engine } from './commands';
import { DurableLog } from './durability';
import { listen } from './server';
import { VectorSpill } from './spill';
import { Store } from './store';

export interface EmbeddedServerOptions {
  /** Directory of the journal and snapshots (created if missing). */
  dataDir: string;
  /** 0 picks a free port. Default 27017. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Receives notable events (recovery, dropped connections). */
  log?: (line: string) => void;
  /** Journal bytes after which the engine snapshots and compacts (default 64 MiB; the CLI reads ENGINE_COMPACT_AFTER_BYTES). */
  compactAfterBytes?: number;
  /** Change events kept for change streams to resume from (default 1,000,000; see changes.ts). */
  changeLogEvents?: number;
  /** Serve test-only commands (`configureFailPoint`), like mongod's `enableTestCommands=1`. Default false. */
  enableTestCommands?: boolean;
}

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

/**
 * Starts the embedded MongoDB-compatible engine: recovers `dataDir` (snapshot + journal), then serves the
 * wire protocol so the official driver can use it like a standalone mongod.
 */
export async function startEmbeddedServer(options: EmbeddedServerOptions): Promise<EmbeddedServer> {
  const log = options.log ?? (() => undefined);
  const host = options.host ?? '127.0.0.1';
  const changes = new ChangeLog(await dataDirId(options.dataDir), options.changeLogEvents);
  const spill = new VectorSpill(options.dataDir, () => store.documents());
  const store: Store = new Store(changes, spill);
  let journal;
  try {
    journal = await DurableLog.open(options.dataDir, store, { log, compactAfterBytes: options.compactAfterBytes });
  } catch (error) {
    spill.close();
    throw error;
  }
  const engine = new Engine(store, journal, log, { enableTestCommands: options.enableTestCommands });
  let server;
  try {
    server = await listen(engine, host, options.port ?? 27017, log, localSocketPath(options.dataDir));
  } catch (error) {
    engine.close();
    await journal.close();
    spill.close();
    throw error;
  }
  const wire = server;
  let closing: Promise<void> | undefined;
  return {
    uri: wire.socketPath ? `mongodb://${encodeURIComponent(wire.socketPath)}/?directConnection=true` : `mongodb://${host}:${wire.port}/?directConnection=true`,
    host,
    port: wire.port,
    close() {
      closing ??= (async () => {
        await wire.close();
        engine.close();
        await journal!.close();
        spill.close();
      })();
      return closing;
    },
  };
}

/** `<dataDir>/engine.sock`, or undefined where a Unix domain socket cannot be used (Windows, or a path over the ~107-byte limit). */
function localSocketPath(dataDir: string): string | undefined {
  const socketPath = path.resolve(dataDir, 'engine.sock');
  return process.platform !== 'win32' && Buffer.byteLength(socketPath) < 100 ? socketPath : undefined;
}
