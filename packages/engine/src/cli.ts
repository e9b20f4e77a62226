/**
 * `npm run db`: the embedded engine alone, for tools such as mongosh or Compass. Settings: see engineOptionsFromEnv.
 * `npm run db -- --repair`: repairs DATA_DIR (see repair.ts) instead of starting.
 * `npm run db -- --backup DIR`: backs up the stopped DATA_DIR into the new directory DIR (see backup.ts).
 */
import { resolve } from 'node:path';
import { DataDamagedError, backupDataDir, repairDataDir, startEmbeddedServer } from './index';
import { engineOptionsFromEnv, type EngineOptions } from './options';

async function repair(): Promise<void> {
  const { dataDir } = engineOptionsFromEnv();
  const report = await repairDataDir(dataDir);
  for (const line of report.summary) console.log(`repair: ${line}`);
  if (report.reportFile) console.log(`repair: originals and report in ${report.damagedDir}`);
}

async function backup(to: string | undefined): Promise<void> {
  if (!to || to.startsWith('--')) throw new Error('--backup needs the directory to write, e.g. --backup ./backup-1');
  const { dataDir } = engineOptionsFromEnv();
  const result = await backupDataDir(dataDir, resolve(to));
  console.log(`backup: ${dataDir} verified and copied to ${result.backupDir} (${result.files.join(', ')})`);
}

async function main(options: EngineOptions): Promise<void> {
  const server = await startEmbeddedServer({
    ...options,
    log: (line, level) => (level === 'info' || level === undefined ? console.log(line) : console.warn(line)),
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
  const auth = options.credential ? ` (SCRAM-SHA-256, user ${options.credential.user}, authSource=admin)` : '';
  console.log(`Hindsight embedded engine listening on mongodb://${server.host}:${server.port}/${auth}`);
}

if (process.argv.includes('--repair')) {
  repair().catch((error: unknown) => {
    console.error('Hindsight embedded engine: repair failed:', error);
    process.exit(1);
  });
} else if (process.argv.includes('--backup')) {
  backup(process.argv[process.argv.indexOf('--backup') + 1]).catch((error: unknown) => {
    console.error('Hindsight embedded engine: backup failed:', error instanceof Error ? error.message : error);
    process.exit(1);
  });
} else {
  let options: EngineOptions | undefined;
  try {
    options = engineOptionsFromEnv();
  } catch (error) {
    // A setting it cannot use (or an unsafe one) stops it before it touches DATA_DIR or listens.
    console.error(`Hindsight embedded engine: ${(error as Error).message}`);
    process.exit(2);
  }
  main(options).catch((error: unknown) => {
    // The data damage message says what to do; its stack adds nothing.
    console.error(
      'Hindsight embedded engine failed to start:',
      error instanceof DataDamagedError ? error.message : error,
    );
    process.exit(1);
  });
}
