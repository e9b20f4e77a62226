import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedServer } from '@hindsight/engine';
import { URI_VARIABLE, localMongodBinary, testTarget } from './target';

/**
 * Starts the database every test file connects to: one embedded engine for the whole run (each test file
 * uses its own database on it), or a real mongod for `npm run test:mongod`. Never downloads mongod.
 */
export default async function globalSetup(): Promise<void> {
  if (testTarget() === 'mongod') {
    if (process.env.TEST_MONGODB_URI) {
      process.env[URI_VARIABLE] = process.env.TEST_MONGODB_URI;
      return;
    }
    const binary = localMongodBinary();
    if (!binary) {
      throw new Error(
        'npm run test:mongod needs a mongod: set TEST_MONGODB_URI, or MONGOMS_SYSTEM_BINARY to a mongod binary. Nothing is downloaded.',
      );
    }
    const { MongoMemoryServer } = await import('mongodb-memory-server');
    const mongod = await MongoMemoryServer.create({ binary: { systemBinary: binary } });
    process.env[URI_VARIABLE] = mongod.getUri();
    (globalThis as Record<string, unknown>).__HINDSIGHT_TEST_DB__ = mongod;
    return;
  }
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'hindsight-test-engine-'));
  const server = await startEmbeddedServer({ dataDir, port: 0, host: '127.0.0.1' });
  process.env[URI_VARIABLE] = server.uri;
  (globalThis as Record<string, unknown>).__HINDSIGHT_TEST_DB__ = server;
  (globalThis as Record<string, unknown>).__HINDSIGHT_TEST_DATA_DIR__ = dataDir;
}
