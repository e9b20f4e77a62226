import { rmSync } from 'node:fs';
import { DATA_DIR_KEY, SERVER_KEY } from './target';

/** Stops the server started by globalSetup and removes the engine's files. */
export default async function globalTeardown(): Promise<void> {
  const server = (globalThis as Record<string, unknown>)[SERVER_KEY] as
    { close?: () => Promise<void>; stop?: () => Promise<unknown> } | undefined;
  if (server?.close) await server.close();
  else if (server?.stop) await server.stop();
  const dataDir = (globalThis as Record<string, unknown>)[DATA_DIR_KEY] as string | undefined;
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}
