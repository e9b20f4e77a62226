/**
 * `npm run db`: the embedded engine alone, for tools such as mongosh or Compass. Settings: see engineOptionsFromEnv.
 * `npm run db -- --repair`: repairs DATA_DIR (see repair.ts) instead of starting.
 */
import { DataDamagedError, repairDataDir, startEmbeddedServer } from './index';
import { engineOptionsFromEnv } from './options';

async function repair(): Promise<void> {
  const { dataDir } = engineOptionsFromEnv();
  const report = await repairDataDir(dataDir);
  for (const line of report.summary) console.log(`repair: ${line}`);
  if (report.reportFile) console.log(`repair: originals and report in ${report.damagedDir}`);
}

async function main(): Promise<void> {
  const server = await startEmbeddedServer({
    ...engineOptionsFromEnv(),
    log: (line, level) => (level === 'warn' ? console.warn(line) : console.log(line)),
  });
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

if (process.argv.includes('--repair')) {
  repair().catch((error: unknown) => {
    console.error('Hindsight embedded engine: repair failed:', error);
    process.exit(1);
  });
} else {
  main().catch((error: unknown) => {
    // The data damage message says what to do; its stack adds nothing.
    console.error(
      'Hindsight embedded engine failed to start:',
      error instanceof DataDamagedError ? error.message : error,
    );
    process.exit(1);
  });
}
