import { existsSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Where the suites run: the embedded engine (default) or a real mongod (`npm run test:mongod`). */
export type TestTarget = 'embedded' | 'mongod';

export function testTarget(): TestTarget {
  return process.env.TEST_TARGET === 'mongod' ? 'mongod' : 'embedded';
}

/** Env var through which globalSetup hands the server's URI to the test workers. */
export const URI_VARIABLE = 'HINDSIGHT_TEST_URI';

/**
 * A mongod binary that can be used without downloading: MONGOMS_SYSTEM_BINARY, or one already in
 * mongodb-memory-server's cache. Undefined when none is present.
 */
export function localMongodBinary(): string | undefined {
  const system = process.env.MONGOMS_SYSTEM_BINARY;
  if (system && existsSync(system)) return system;
  const cacheDirs = [
    process.env.MONGOMS_DOWNLOAD_DIR,
    path.join(process.cwd(), 'node_modules', '.cache', 'mongodb-memory-server'),
    path.join(os.homedir(), '.cache', 'mongodb-binaries'),
  ].filter((dir): dir is string => Boolean(dir));
  for (const dir of cacheDirs) {
    if (!existsSync(dir)) continue;
    const binary = readdirSync(dir).find((name) => name.startsWith('mongod'));
    if (binary) return path.join(dir, binary);
  }
  return undefined;
}
