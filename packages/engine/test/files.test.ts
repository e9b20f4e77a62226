/** The data dir is the engine's user's alone: 0700, every file in it 0600, also when it was written with wider modes. */
import { chmod, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { startEmbeddedServer } from '../src';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'files-test-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** Every entry under `root` (itself included) with its permission bits. */
async function modes(root: string): Promise<Record<string, string>> {
  const out: Record<string, string> = { '.': ((await stat(root)).mode & 0o777).toString(8) };
  for (const entry of await readdir(root, { recursive: true })) {
    out[entry] = ((await stat(path.join(root, entry))).mode & 0o777).toString(8);
  }
  return out;
}

/** Starts the engine on `dataDir`, writes enough for a snapshot, a journal and the id file, and closes it. */
async function writeSome(dataDir: string): Promise<void> {
  const server = await startEmbeddedServer({ dataDir, compactAfterBytes: 1 });
  const client = await MongoClient.connect(server.uri);
  try {
    const rows = client.db('d').collection<{ text: string }>('c');
    for (let i = 0; i < 5; i++) await rows.insertOne({ text: 'x'.repeat(1_000) });
  } finally {
    await client.close();
    await server.close();
  }
}

test('a new data dir is created 0700 and its journal, snapshots and id file 0600, whatever the umask allows', async () => {
  const dataDir = path.join(dir, 'data');
  await writeSome(dataDir);
  const found = await modes(dataDir);
  expect(Object.keys(found).some((name) => /journal/.test(name))).toBe(true);
  expect(Object.keys(found).some((name) => /snapshot/.test(name))).toBe(true);
  expect(found).toEqual(Object.fromEntries(Object.keys(found).map((name) => [name, name === '.' ? '700' : '600'])));
});

test('a data dir written with wider modes is tightened at start', async () => {
  const dataDir = path.join(dir, 'data');
  await writeSome(dataDir);
  await chmod(dataDir, 0o755);
  const loose = await readdir(dataDir);
  for (const name of loose) await chmod(path.join(dataDir, name), 0o644);
  const server = await startEmbeddedServer({ dataDir });
  try {
    const found = await modes(dataDir);
    for (const name of loose) expect([name, found[name]]).toEqual([name, '600']);
    expect(found['.']).toBe('700');
  } finally {
    await server.close();
  }
});
