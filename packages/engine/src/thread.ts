import { existsSync } from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import { Worker } from 'node:worker_threads';
import { DataDamagedError, type EngineLog } from './durability';
import type { EmbeddedServer, EngineOptions } from './options';

/** What the engine thread posts to the thread that started it. */
export type EngineThreadMessage =
  | { kind: 'started'; uri: string; host?: string; port?: number; socketPath?: string }
  | { kind: 'log'; line: string; level?: 'info' | 'warn' | 'error' }
  | { kind: 'closed' }
  | {
      kind: 'failed';
      message: string;
      /** Set when the start was refused for damaged data, so the caller gets a DataDamagedError too. */
      damage?: Pick<DataDamagedError, 'dataDir' | 'file' | 'offset' | 'detail'>;
    };

/** The engine's options, with the log (posted from the thread) required, and what to do if the thread dies. */
export interface EngineThreadOptions extends EngineOptions {
  log: EngineLog;
  /** Runs if the thread dies after it started. */
  onCrash: (error: Error) => void;
}

/** The compiled entry of the engine thread; absent when the sources run uncompiled (ts-jest), see `canStartEngineThread`. */
const ENTRY = path.join(__dirname, 'thread-entry.js');

/**
 * The engine thread's young generation: 64 MB semispaces (V8 reserves three of them), as the server's main thread
 * gets from `npm start` (package.json `config.serverNodeFlags`). Every request allocates its command, reply and
 * update copies there; with the default 16 MB they filled every few milliseconds under load, and each scavenge
 * copied the in-flight requests' objects again.
 */
const YOUNG_GENERATION_MB = 3 * 64;

/**
 * Heap growth once the engine thread runs: the next full collection comes when a heap has grown 30% past what
 * survived the last one, not V8's up to 4×. Under load the engine's heap otherwise reached 1.2–1.46 GB with 540–611 MB
 * alive, and the process's RSS 1.6–2.3 GB instead of 1.3–1.5 GB (README, Performance). V8 flags are per process, so
 * the API thread gets it too; it is set here, not on the command line, because the API thread alone (with
 * MONGODB_URI) is faster without it: a page of 50 experiences with their sessions at 599 and 671 req/s against 547
 * and 582, p99 130–161 against 196–202 ms. A value given on the command line is kept.
 */
const ENGINE_HEAP_GROWING_PERCENT = 30;

/** True when the engine can run in its own thread: its entry is compiled JavaScript (dist/), which a Worker needs. */
export function canStartEngineThread(): boolean {
  return existsSync(ENTRY);
}

/**
 * Starts the embedded engine in a worker thread of this process: same data directory, same wire protocol over the
 * same Unix socket, so the driver cannot tell the difference. The engine then has its own V8 heap and its own core:
 * garbage collection of the documents it holds (half a gigabyte of heap at 100k experiences) no longer pauses the API,
 * and API and engine work run in parallel. `onCrash` runs if the thread dies after it started.
 */
export function startEngineThread(options: EngineThreadOptions): Promise<EmbeddedServer> {
  const { log, onCrash, ...workerData } = options;
  if (!process.execArgv.some((flag) => flag.startsWith('--heap-growing-percent')))
    v8.setFlagsFromString(`--heap-growing-percent=${ENGINE_HEAP_GROWING_PERCENT}`);
  const worker = new Worker(ENTRY, { workerData, resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } });
  return new Promise((resolve, reject) => {
    let started = false;
    let closing: Promise<void> | undefined;
    let closed = false;
    let onClosed: () => void = () => undefined;
    worker.on('message', (message: EngineThreadMessage) => {
      if (message.kind === 'log') log(message.line, message.level);
      else if (message.kind === 'failed') {
        const { damage } = message;
        reject(
          damage
            ? new DataDamagedError(damage.dataDir, damage.file, damage.offset, damage.detail)
            : new Error(message.message),
        );
      } else if (message.kind === 'closed') {
        closed = true;
        onClosed();
      } else {
        started = true;
        resolve({
          uri: message.uri,
          host: message.host,
          port: message.port,
          socketPath: message.socketPath,
          close() {
            closing ??= new Promise<void>((done) => {
              onClosed = done;
              worker.postMessage('close');
            }).then(() => worker.terminate().then(() => undefined));
            return closing;
          },
        });
      }
    });
    worker.on('error', (error) => (started ? onCrash(error) : reject(error)));
    worker.on('exit', (code) => {
      if (!started) reject(new Error(`embedded engine thread exited with code ${code} before it started`));
      else if (!closed && !closing) onCrash(new Error(`embedded engine thread exited with code ${code}`));
    });
  });
}
