import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedServer } from '../../src';
import { DATA_DIR_KEY, SERVER_KEY, URI_VARIABLE, localMongodBinary, testTarget } from './target';

/**
 * Starts the server the driver-level suites share (each test file uses its own database on it): one engine, or a
 * real mongod for `npm run test:mongod`. Never downloads mongod.
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
        'TEST_TARGET=mongod needs a mongod: set TEST_MONGODB_URI, or MONGOMS_SYSTEM_BINARY to a mongod binary. Nothing is downloaded.',
      );
    }
    const { MongoMemoryServer } = await import('mongodb-memory-server');
    const mongod = await MongoMemoryServer.create({ binary: { systemBinary: binary } });
    process.env[URI_VARIABLE] = mongod.getUri();
    (globalThis as Record<string, unknown>)[SERVER_KEY] = mongod;
    return;
  }
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'hindsight-engine-test-'));
  const server = await startEmbeddedServer({ dataDir, port: 0, host: '127.0.0.1' });
  process.env[URI_VARIABLE] = server.uri;
  (globalThis as Record<string, unknown>)[SERVER_KEY] = server;
  (globalThis as Record<string, unknown>)[DATA_DIR_KEY] = dataDir;
}
