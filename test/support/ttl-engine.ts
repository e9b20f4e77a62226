import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedServer } from '@hindsight/engine';

/**
 * An embedded engine of this test file's own whose TTL pass runs every `ttlIntervalMs` instead of mongod's 60 s, so
 * that expiry is seen within a test (the run's shared engine keeps the default).
 */
export interface TtlEngine {
  uri: string;
  close(): Promise<void>;
}

export async function startTtlEngine(ttlIntervalMs = 100): Promise<TtlEngine> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'hindsight-ttl-'));
  const server = await startEmbeddedServer({ dataDir, port: 0, host: '127.0.0.1', ttlIntervalMs });
  return {
    uri: server.uri,
    async close() {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
