/**
 * Entry of the engine's worker thread (see `startEmbeddedServer`): runs the engine on this thread and talks to
 * the starting thread in messages: `ready`/`failed` once, `log` lines, and `closed` after a `close` request.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { startEmbeddedServer, type EmbeddedServerOptions } from './index';

/** Messages from the worker to the thread that started it. */
export type WorkerMessage =
  | { kind: 'ready'; uri: string; port: number }
  | { kind: 'failed'; message: string; stack?: string }
  | { kind: 'log'; line: string }
  | { kind: 'closed' };

const port = parentPort!;
const send = (message: WorkerMessage): void => port.postMessage(message);
const options = workerData as Omit<EmbeddedServerOptions, 'log' | 'thread'>;

startEmbeddedServer({ ...options, thread: 'current', log: (line) => send({ kind: 'log', line }) }).then(
  (server) => {
    port.once('message', () => {
      server.close().then(
        () => {
          send({ kind: 'closed' });
          port.close();
        },
        (error: Error) => {
          send({ kind: 'log', line: `embedded engine: close failed: ${error.stack ?? error.message}` });
          send({ kind: 'closed' });
          port.close();
        },
      );
    });
    send({ kind: 'ready', uri: server.uri, port: server.port });
  },
  (error: Error) => {
    send({ kind: 'failed', message: error.message, stack: error.stack });
    port.close();
  },
);
