/** `npm run db`: the embedded engine alone, for tools such as mongosh or Compass. */
import { startEmbeddedServer } from './index';

/** Where the engine listens and keeps its files (to move into src/config.ts with the other settings). */
function engineSettings(env: NodeJS.ProcessEnv = process.env): { host: string; port: number; dataDir: string; compactAfterBytes?: number; changeLogEvents?: number } {
  const port = Number(env.DB_PORT ?? 27017);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`DB_PORT must be a port number, got '${env.DB_PORT}'`);
  // Journal bytes before a snapshot; unset keeps the engine's default (64 MiB). Tests set it small to exercise compaction.
  const compactAfterBytes = env.ENGINE_COMPACT_AFTER_BYTES ? Number(env.ENGINE_COMPACT_AFTER_BYTES) : undefined;
  if (compactAfterBytes !== undefined && !(Number.isInteger(compactAfterBytes) && compactAfterBytes > 0)) {
    throw new Error(`ENGINE_COMPACT_AFTER_BYTES must be a positive integer, got '${env.ENGINE_COMPACT_AFTER_BYTES}'`);
  }
  // Change events kept for change streams to resume from; unset keeps the engine's default (1,000,000).
  const changeLogEvents = env.ENGINE_CHANGE_LOG_EVENTS ? Number(env.ENGINE_CHANGE_LOG_EVENTS) : undefined;
  if (changeLogEvents !== undefined && !(Number.isInteger(changeLogEvents) && changeLogEvents > 0)) {
    throw new Error(`ENGINE_CHANGE_LOG_EVENTS must be a positive integer, got '${env.ENGINE_CHANGE_LOG_EVENTS}'`);
  }
  return { host: env.DB_HOST || '127.0.0.1', port, dataDir: env.DATA_DIR || './data', compactAfterBytes, changeLogEvents };
}

async function main(): Promise<void> {
  const settings = engineSettings();
  const server = await startEmbeddedServer({ ...settings, log: (line) => console.log(line) });
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: closing the embedded engine`);
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('failed to close cleanly:', error);
        process.exit(1);
      },
    );
  };
  // Before the line that says it listens: a signal sent on reading it must close the engine, not kill it.
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  console.log(`Hindsight embedded engine listening on mongodb://${server.host}:${server.port}/`);
}

main().catch((error: unknown) => {
  console.error('Hindsight embedded engine failed to start:', error);
  process.exit(1);
});
