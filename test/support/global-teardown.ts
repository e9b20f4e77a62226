/** Stops the database started by globalSetup. */
export default async function globalTeardown(): Promise<void> {
  const server = (globalThis as Record<string, unknown>).__HINDSIGHT_TEST_DB__ as
    { close?: () => Promise<void>; stop?: () => Promise<unknown> } | undefined;
  if (server?.close) await server.close();
  else if (server?.stop) await server.stop();
}
