import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { startEmbeddedServer } from '@hindsight/engine';

/**
 * An embedded engine of this test file's own, serving the test-only `failCommand` fail point (as mongod with
 * `enableTestCommands=1`): the run's shared engine does not, since a fail point would hit other files' commands.
 */
export interface FailPointEngine {
  uri: string;
  /** Fails the next `times` of the named commands with `errorCode` (default 8, UnknownError). */
  failNext(commands: string[], times?: number, errorCode?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startFailPointEngine(): Promise<FailPointEngine> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'hindsight-fail-point-'));
  const server = await startEmbeddedServer({ dataDir, port: 0, host: '127.0.0.1', enableTestCommands: true });
  const admin = new MongoClient(server.uri);
  await admin.connect();
  return {
    uri: server.uri,
    async failNext(commands, times = 1, errorCode = 8) {
      await admin.db('admin').command({
        configureFailPoint: 'failCommand',
        mode: { times },
        data: { failCommands: commands, errorCode },
      });
    },
    async close() {
      await admin.close();
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
