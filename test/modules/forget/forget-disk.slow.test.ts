/**
 * Forgetting a user leaves their text in no file under DATA_DIR: the built server, on its own data directory, with the
 * in-process search index persisted there.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { spawnServer, type SpawnedServer } from '../../support/build';
import { seedUser, type Run } from './seed';

/** The files under `root` holding `text`, relative. */
function filesHolding(root: string, text: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name))
    .filter((file) => readFileSync(file).includes(text))
    .map((file) => path.relative(root, file));
}

async function start(dataDir: string): Promise<{ server: SpawnedServer; run: Run; client: MongoClient }> {
  // The in-process index even in CI's atlas run: its snapshots are files under DATA_DIR.
  const server = spawnServer(dataDir, { HOST: '127.0.0.1', VECTOR_SEARCH: 'memory' });
  const url = await server.ready;
  const run: Run = async (query, variables) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await response.json()) as { data?: Record<string, any>; errors?: unknown };
    if (body.errors) throw new Error(JSON.stringify(body.errors));
    return body.data!;
  };
  // The engine's own socket, for the scope fields the API does not write yet.
  const socket = path.join(dataDir, 'engine.sock');
  const client = await MongoClient.connect(`mongodb://${encodeURIComponent(socket)}/?directConnection=true`);
  return { server, run, client };
}

async function stop({ server, client }: { server: SpawnedServer; client: MongoClient }): Promise<void> {
  await client.close();
  server.child.kill('SIGTERM');
  expect((await server.exited).code).toBe(0);
}

describe('forget on the embedded engine', () => {
  it("leaves the user's text in no file under DATA_DIR: journal, snapshots, spill file, search snapshots", async () => {
    const scratch = mkdtempSync(path.join(os.tmpdir(), 'forget-disk-'));
    const dataDir = path.join(scratch, 'data');
    // Stems keep a word's start: the first ten letters also find the keyword index's terms.
    const marker = 'qzvforgetmarkzz';
    const kept = 'qzvkeptmarkerzz';
    try {
      let running = await start(dataDir);
      await seedUser(running.run, running.client.db('hindsight'), 'leaving', marker);
      await seedUser(running.run, running.client.db('hindsight'), 'staying', kept);
      // Searches build the spaces; stopping saves them.
      await running.run('query { searchExperiences(query: "find the delayed parcel", limit: 5) { score } }');
      await stop(running);
      const before = filesHolding(dataDir, marker.slice(0, 10));
      expect(before.some((file) => file.startsWith('search'))).toBe(true);
      expect(before.some((file) => /^(journal|snapshot)-/.test(file))).toBe(true);

      running = await start(dataDir);
      const { forget } = await running.run(
        'mutation { forget(scope: { userId: "leaving" }) { erasedFromDisk counts { collection deleted } } }',
      );
      expect(forget.erasedFromDisk).toBe(true);
      expect(forget.counts.find((count: any) => count.collection === 'sessions').deleted).toBe(1);
      expect(filesHolding(dataDir, marker.slice(0, 10))).toEqual([]);
      // What was not forgotten is still on disk (the search for the marker looks where it would be).
      expect(filesHolding(dataDir, kept.slice(0, 10)).some((file) => file.startsWith('search'))).toBe(true);

      // Stopping (which saves the spaces) and restarting bring nothing back.
      await stop(running);
      expect(filesHolding(dataDir, marker.slice(0, 10))).toEqual([]);
      running = await start(dataDir);
      const hits = await running.run(`query { searchExperiences(query: "${marker}", mode: KEYWORD) { score } }`);
      expect(hits.searchExperiences).toEqual([]);
      await stop(running);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }, 180_000);
});
