/** Data directories for the damage, fault and backup tests: made, written, damaged and fingerprinted. */
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { startEmbeddedServer, type EngineOptions } from '../../src/index';

export const J = (seq: number): string => `journal-${String(seq).padStart(12, '0')}.log`;

const dirs: string[] = [];

/** A new temporary directory, removed by {@link removeTempDirs} (call it in afterAll). */
export async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'damage-test-'));
  dirs.push(dir);
  return dir;
}

export async function removeTempDirs(): Promise<void> {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

/** Starts the engine on `dataDir`, runs `use` with a client, closes both; returns the log lines. */
export async function withEngine(
  dataDir: string,
  use: (client: MongoClient) => Promise<void>,
  options: Partial<EngineOptions> = {},
): Promise<{ line: string; level?: string }[]> {
  const lines: { line: string; level?: string }[] = [];
  const engine = await startEmbeddedServer({
    dataDir,
    port: 0,
    log: (line, level) => lines.push({ line, level }),
    ...options,
  });
  const client = await new MongoClient(engine.uri).connect();
  try {
    await use(client);
  } finally {
    await client.close();
    await engine.close();
  }
  return lines;
}

/** A data directory whose journal holds one record per document inserted into `app.c`. */
export async function journalOf(docs: number, options: Partial<EngineOptions> = {}): Promise<string> {
  const dir = await tempDir();
  await withEngine(
    dir,
    async (client) => {
      const coll = client.db('app').collection('c');
      for (let i = 0; i < docs; i++) await coll.insertOne({ _id: i as never, payload: `document ${i} `.repeat(10) });
    },
    options,
  );
  return dir;
}

/** How many documents `app.c` holds when the engine starts on `dir`. */
export async function count(dir: string): Promise<number> {
  let n = 0;
  await withEngine(dir, async (client) => {
    n = await client.db('app').collection('c').countDocuments();
  });
  return n;
}

/** The offsets of a journal's (or snapshot's) records, by their length fields. */
export function recordOffsets(data: Buffer): number[] {
  const offsets: number[] = [];
  for (let at = 0; at < data.length; at += 8 + data.readUInt32LE(at)) offsets.push(at);
  return offsets;
}

/** Each data file's SHA-256, to show a refused start changed nothing. */
export async function fingerprint(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of (await readdir(dir)).sort()) {
    if (!/^(journal|snapshot)-|^engine-id$/.test(name)) continue;
    out[name] = createHash('sha256')
      .update(await readFile(path.join(dir, name)))
      .digest('hex');
  }
  return out;
}

export async function flipByte(file: string, at: number): Promise<void> {
  const data = await readFile(file);
  data[at] ^= 0x5a;
  await writeFile(file, data);
}
