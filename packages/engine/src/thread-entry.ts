/** Entry of the engine thread (see thread.ts): starts the engine, reports to the parent, closes on request. */
import { parentPort, workerData } from 'node:worker_threads';
import { DataDamagedError } from './durability';
import { startEmbeddedServer } from './index';
import type { EngineOptions } from './options';
import type { EngineThreadMessage } from './thread';

const post = (message: EngineThreadMessage) => parentPort!.postMessage(message);

startEmbeddedServer({
  ...(workerData as EngineOptions),
  log: (line, level) => post({ kind: 'log', line, level }),
}).then(
  (server) => {
    post({ kind: 'started', uri: server.uri, host: server.host, port: server.port, socketPath: server.socketPath });
    parentPort!.on('message', (message) => {
      if (message === 'close') void server.close().then(() => post({ kind: 'closed' }));
    });
  },
  (error: unknown) =>
    post({
      kind: 'failed',
      message: error instanceof Error ? error.message : String(error),
      damage:
        error instanceof DataDamagedError
          ? { dataDir: error.dataDir, file: error.file, offset: error.offset, detail: error.detail }
          : undefined,
    }),
);
