/**
 * Backups: `createBackup` on a running engine holds every write acknowledged before it, at one instant, under
 * concurrent writes; `backupDataDir` (`npm run db -- --backup`) copies a stopped directory, verified, without changing
 * it. Each backup is a data directory an engine starts on.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MongoClient, MongoServerError } from 'mongodb';
import { DataDamagedError, backupDataDir, startEmbeddedServer } from '../src/index';
import { compiled } from './support/build';

const J1 = 'journal-000000000001.log';
const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'backup-test-'));
  dirs.push(dir);
  return dir;
}

type Doc = { _id: string; writer: number; n: number };

/** Starts an engine on `dataDir`, runs `use`, closes both. */
async function withEngine<T>(dataDir: string, use: (client: MongoClient) => Promise<T>): Promise<T> {
  const engine = await startEmbeddedServer({ dataDir, port: 0 });
  const client = await new MongoClient(engine.uri).connect();
  try {
    return await use(client);
  } finally {
    await client.close();
    await engine.close();
  }
}

async function fingerprint(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of (await readdir(dir)).sort()) {
    if (name === 'engine.sock' || name.startsWith('spill-')) continue;
    out[name] = createHash('sha256')
      .update(await readFile(path.join(dir, name)))
      .digest('hex');
  }
  return out;
}

describe('createBackup on a running engine', () => {
  it('under 8 concurrent writers: the backup starts and holds every write acknowledged before it, at one instant', async () => {
    const source = await tempDir();
    const target = path.join(await tempDir(), 'backup');
    const acknowledged = new Set<string>();
    let backedUpAfter = new Set<string>();
    let result: unknown;
    await withEngine(source, async (client) => {
      const coll = client.db('app').collection<Doc>('c');
      let stop = false;
      const writers = Array.from({ length: 8 }, async (_, writer) => {
        for (let n = 0; !stop; n++) {
          await coll.insertOne({ _id: `${writer}-${n}`, writer, n });
          acknowledged.add(`${writer}-${n}`);
        }
      });
      while (acknowledged.size < 400) await new Promise((resolve) => setTimeout(resolve, 5));
      backedUpAfter = new Set(acknowledged);
      result = await client.db('admin').command({ createBackup: 1, backupDir: target });
      await new Promise((resolve) => setTimeout(resolve, 50)); // writes go on after it
      stop = true;
      await Promise.all(writers);
    });
    expect(result).toEqual({ ok: 1, backupDir: target, files: [expect.stringMatching(/^snapshot-/), J1, 'engine-id'] });

    const restored = await withEngine(target, (client) => client.db('app').collection<Doc>('c').find().toArray());
    const ids = new Set(restored.map((doc) => doc._id));
    for (const id of backedUpAfter) expect(ids.has(id)).toBe(true);
    expect(ids.size).toBeLessThan(acknowledged.size); // the writes after the backup are not in it
    // One instant: each writer's writes are sequential, so the backup holds a prefix of each, without gaps.
    for (let writer = 0; writer < 8; writer++) {
      const ns = restored.filter((doc) => doc.writer === writer).map((doc) => doc.n);
      expect(ns.sort((a, b) => a - b)).toEqual(ns.map((_, i) => i));
    }
    expect(await readFile(path.join(target, 'engine-id'), 'utf8')).toBe(
      await readFile(path.join(source, 'engine-id'), 'utf8'),
    );
  });

  it('refuses an existing directory, a relative path and a database other than admin, writing nothing', async () => {
    const source = await tempDir();
    const existing = await tempDir();
    await writeFile(path.join(existing, 'keep'), 'x');
    await withEngine(source, async (client) => {
      await client.db('app').collection('c').insertOne({ a: 1 });
      const admin = client.db('admin');
      const refused = async (promise: Promise<unknown>) =>
        (await promise.then(
          () => null,
          (e: unknown) => e,
        )) as MongoServerError;
      expect(await refused(admin.command({ createBackup: 1, backupDir: existing }))).toMatchObject({
        code: 2,
        message: expect.stringContaining('already exists'),
      });
      expect(await refused(admin.command({ createBackup: 1, backupDir: 'relative/dir' }))).toMatchObject({ code: 2 });
      expect(
        await refused(client.db('app').command({ createBackup: 1, backupDir: path.join(existing, 'x') })),
      ).toMatchObject({
        code: 13,
      });
    });
    expect(await readdir(existing)).toEqual(['keep']);
  });
});

/** A stopped data directory with `docs` documents, one journal record each. */
async function stoppedDir(docs: number): Promise<string> {
  const dir = await tempDir();
  await withEngine(dir, async (client) => {
    for (let i = 0; i < docs; i++)
      await client
        .db('app')
        .collection('c')
        .insertOne({ _id: i as never, text: 'x'.repeat(50) });
  });
  return dir;
}

const countIn = (dir: string) => withEngine(dir, (client) => client.db('app').collection('c').countDocuments());

describe('backupDataDir (npm run db -- --backup) on a stopped directory', () => {
  it('copies it verified, leaves the source byte-identical, and the copy starts with every document', async () => {
    const source = await stoppedDir(30);
    const before = await fingerprint(source);
    const target = path.join(await tempDir(), 'backup');
    const result = await backupDataDir(source, target);
    expect(result).toEqual({ backupDir: target, files: [J1, 'engine-id'] });
    expect(await fingerprint(source)).toEqual(before);
    expect(await countIn(target)).toBe(30);
  });

  it('a torn tail is dropped from the copy only; damage fails the backup and leaves no directory', async () => {
    const source = await stoppedDir(10);
    const journal = path.join(source, J1);
    await truncate(journal, (await stat(journal)).size - 3);
    const before = await fingerprint(source);
    const target = path.join(await tempDir(), 'backup');
    await backupDataDir(source, target);
    expect(await fingerprint(source)).toEqual(before);
    expect(await countIn(target)).toBe(9);

    const damaged = await stoppedDir(10);
    const data = await readFile(path.join(damaged, J1));
    data[Math.floor(data.length / 2)] ^= 0x5a;
    await writeFile(path.join(damaged, J1), data);
    const refusedTarget = path.join(await tempDir(), 'backup');
    await expect(backupDataDir(damaged, refusedTarget)).rejects.toBeInstanceOf(DataDamagedError);
    await expect(stat(refusedTarget)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('the CLI: npm run db -- --backup DIR prints what it wrote; the copy starts', async () => {
    const source = await stoppedDir(5);
    const target = path.join(await tempDir(), 'backup');
    const out = execFileSync(process.execPath, [compiled('src/cli.js'), '--backup', target], {
      env: { ...process.env, DATA_DIR: source },
      encoding: 'utf8',
    });
    expect(out).toContain(`copied to ${target}`);
    expect(await countIn(target)).toBe(5);
  });
});
