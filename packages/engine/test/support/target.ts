import { existsSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Where the driver-level suites run: the engine (default) or a real mongod (`npm run test:mongod`). */
export type TestTarget = 'engine' | 'mongod';

export function testTarget(): TestTarget {
  return process.env.TEST_TARGET === 'mongod' ? 'mongod' : 'engine';
}

/**
 * Env var through which globalSetup hands the server's URI to the test workers. Not the app's variable: under the
 * root jest config both projects' globalSetups run in one process, each with its own server.
 */
export const URI_VARIABLE = 'ENGINE_TEST_URI';

/** Where globalTeardown finds the server globalSetup started (the two share one global scope). */
export const SERVER_KEY = '__HINDSIGHT_ENGINE_TEST_SERVER__';
/** Where globalSetup keeps the shared engine's data directory, for globalTeardown to remove. */
export const DATA_DIR_KEY = '__HINDSIGHT_ENGINE_TEST_DATA_DIR__';

/** The directories and their parents, nearest first. */
function ancestors(dir: string): string[] {
  const parent = path.dirname(dir);
  return parent === dir ? [dir] : [dir, ...ancestors(parent)];
}

/**
 * A mongod binary that can be used without downloading: MONGOMS_SYSTEM_BINARY, or one already in
 * mongodb-memory-server's cache (`node_modules/.cache` of this directory or a parent, or the user's cache).
 * Undefined when none is present.
 */
export function localMongodBinary(): string | undefined {
  const system = process.env.MONGOMS_SYSTEM_BINARY;
  if (system && existsSync(system)) return system;
  const cacheDirs = [
    process.env.MONGOMS_DOWNLOAD_DIR,
    ...ancestors(process.cwd()).map((dir) => path.join(dir, 'node_modules', '.cache', 'mongodb-memory-server')),
    path.join(os.homedir(), '.cache', 'mongodb-binaries'),
  ].filter((dir): dir is string => Boolean(dir));
  for (const dir of cacheDirs) {
    if (!existsSync(dir)) continue;
    const binary = readdirSync(dir).find((name) => name.startsWith('mongod'));
    if (binary) return path.join(dir, binary);
  }
  return undefined;
}
