import { existsSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { EmbeddedServer, EmbeddedServerOptions } from './index';

/** What the engine thread posts to the thread that started it. */
export type EngineThreadMessage =
  | { kind: 'started'; uri: string; host: string; port: number }
  | { kind: 'log'; line: string }
  | { kind: 'closed' }
  | { kind: 'failed'; message: string };

/** The compiled entry of the engine thread; absent when the sources run uncompiled (ts-jest), see `canStartEngineThread`. */
const ENTRY = path.join(__dirname, 'thread-entry.js');

/**
 * The engine thread's young generation: 64 MB semispaces (V8 reserves three of them), as the server's main thread
 * gets from `npm start` (package.json `config.serverNodeFlags`). Every request allocates its command, reply and
 * update copies there; with the default 16 MB they filled every few milliseconds under load, and each scavenge
 * copied the in-flight requests' objects again.
 */
const YOUNG_GENERATION_MB = 3 * 64;

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
export function startEngineThread(options: Omit<EmbeddedServerOptions, 'log'> & { log: (line: string) => void; onCrash: (error: Error) => void }): Promise<EmbeddedServer> {
  const { log, onCrash, ...workerData } = options;
  const worker = new Worker(ENTRY, { workerData, resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB } });
  return new Promise((resolve, reject) => {
    let started = false;
    let closing: Promise<void> | undefined;
    let closed = false;
    let onClosed: () => void = () => undefined;
    worker.on('message', (message: EngineThreadMessage) => {
      if (message.kind === 'log') log(message.line);
      else if (message.kind === 'failed') reject(new Error(message.message));
      else if (message.kind === 'closed') {
        closed = true;
        onClosed();
      } else {
        started = true;
        resolve({
          uri: message.uri,
          host: message.host,
          port: message.port,
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
