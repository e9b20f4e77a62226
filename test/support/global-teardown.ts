import { rmSync } from 'node:fs';

/** Stops the database started by globalSetup and removes the embedded engine's files. */
export default async function globalTeardown(): Promise<void> {
  const server = (globalThis as Record<string, unknown>).__HINDSIGHT_TEST_DB__ as
    { close?: () => Promise<void>; stop?: () => Promise<unknown> } | undefined;
  if (server?.close) await server.close();
  else if (server?.stop) await server.stop();
  const dataDir = (globalThis as Record<string, unknown>).__HINDSIGHT_TEST_DATA_DIR__ as string | undefined;
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}
