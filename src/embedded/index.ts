import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { Engine } from './commands';
import { DurableLog } from './durability';
import { listen } from './server';
import { Store } from './store';
import type { WorkerMessage } from './worker';

/** Whether this module runs compiled (then worker.js sits beside it), rather than as TypeScript under ts-jest or ts-node. */
const COMPILED = __filename.endsWith('.js');

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
  /**
   * `worker` (the default where the engine is compiled to JavaScript) runs the engine on a worker thread of
   * this process, so its work (BSON, queries, updates, journal) runs beside the caller's instead of taking
   * turns with it on one thread; `current` runs it on the calling thread (always under ts-jest or ts-node,
   * where there is no compiled worker script).
   */
  thread?: 'worker' | 'current';
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
  const host = options.host ?? '127.0.0.1';
  if ((options.thread ?? (COMPILED ? 'worker' : 'current')) === 'worker') return startInWorker({ ...options, host });
  const log = options.log ?? (() => undefined);
  const store = new Store();
  const journal = await DurableLog.open(options.dataDir, store, { log, compactAfterBytes: options.compactAfterBytes });
  const engine = new Engine(store, journal, log);
  let server;
  try {
    server = await listen(engine, host, options.port ?? 27017, log, localSocketPath(options.dataDir));
  } catch (error) {
    engine.close();
    await journal.close();
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
        await journal.close();
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

/** Starts the engine on a worker thread (see worker.ts) and proxies its address and `close`. */
function startInWorker(options: EmbeddedServerOptions & { host: string }): Promise<EmbeddedServer> {
  const log = options.log ?? (() => undefined);
  const { dataDir, port, host, compactAfterBytes } = options;
  const worker = new Worker(path.join(__dirname, 'worker.js'), { workerData: { dataDir, port, host, compactAfterBytes } });
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  let onClosed: (() => void) | undefined;
  return new Promise((resolve, reject) => {
    let started = false;
    worker.on('message', (message: WorkerMessage) => {
      switch (message.kind) {
        case 'log':
          log(message.line);
          break;
        case 'failed':
          reject(Object.assign(new Error(message.message), { stack: message.stack }));
          break;
        case 'closed':
          onClosed?.();
          break;
        case 'ready': {
          started = true;
          let closing: Promise<void> | undefined;
          resolve({
            uri: message.uri,
            host,
            port: message.port,
            close() {
              closing ??= (async () => {
                const closed = new Promise<void>((done) => (onClosed = done));
                worker.postMessage('close');
                await Promise.race([closed, exited]);
                // The journal is closed: nothing the thread still holds matters.
                await worker.terminate();
              })();
              return closing;
            },
          });
          break;
        }
      }
    });
    worker.on('error', (error) => {
      if (!started) reject(error);
      else log(`embedded engine: the engine thread failed: ${error.stack ?? error.message}`);
    });
    worker.once('exit', (code) => {
      if (!started) reject(new Error(`embedded engine: the engine thread exited with code ${code} before it was ready`));
    });
  });
}
