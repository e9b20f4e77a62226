/** `npm run db`: the embedded engine alone, for tools such as mongosh or Compass. Settings: see engineOptionsFromEnv. */
import { startEmbeddedServer } from './index';
import { engineOptionsFromEnv } from './options';

async function main(): Promise<void> {
  const server = await startEmbeddedServer({ ...engineOptionsFromEnv(), log: (line) => console.log(line) });
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
