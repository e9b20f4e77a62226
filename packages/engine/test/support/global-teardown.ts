import { SERVER_KEY } from './target';

/** Stops the server started by globalSetup. */
export default async function globalTeardown(): Promise<void> {
  const server = (globalThis as Record<string, unknown>)[SERVER_KEY] as
    { close?: () => Promise<void>; stop?: () => Promise<unknown> } | undefined;
  if (server?.close) await server.close();
  else if (server?.stop) await server.stop();
}
