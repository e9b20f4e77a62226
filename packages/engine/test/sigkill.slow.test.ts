import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { MongoClient, type Collection, type Document } from 'mongodb';
import { compiled } from './support/build';

/**
 * The engine runs as a child process (the compiled CLI) and is killed with SIGKILL in the middle of a stream of
 * concurrent writes. After each restart on the same data dir: every acknowledged write is there, no write is
 * half there, and a write found absent once never reappears. Compaction is forced small so kills also land
 * while snapshots are written.
 */

const ROUNDS = 5;
const WORKERS = 12;
const COMPACT_AFTER_BYTES = 32 * 1024;
const PAD = 'p'.repeat(200);
/** With ~350-byte records this is more than COMPACT_AFTER_BYTES per round, so every round compacts. */
const ACKED_BEFORE_KILL = 150;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Outcome = 'acked' | 'unknown';

interface Engine {
  child: ChildProcess;
  client: MongoClient;
  exited: Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function startEngine(cli: string, dataDir: string): Promise<Engine> {
  const port = await freePort();
  const child = spawn(process.execPath, [cli], {
    env: {
      ...process.env,
      DB_PORT: String(port),
      DATA_DIR: dataDir,
      ENGINE_COMPACT_AFTER_BYTES: String(COMPACT_AFTER_BYTES),
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const died = exited.then(() => {
    throw new Error(`engine exited during startup: ${stderr}`);
  });
  // The driver keeps retrying server selection until the child listens.
  const client = new MongoClient(`mongodb://127.0.0.1:${port}/?directConnection=true`, {
    serverSelectionTimeoutMS: 20_000,
    retryWrites: false,
    retryReads: false,
    maxPoolSize: WORKERS * 2,
  });
  died.catch(() => undefined);
  try {
    await Promise.race([client.connect(), died]);
  } catch (err) {
    child.kill('SIGKILL');
    await client.close(true).catch(() => undefined);
    throw err;
  }
  return { child, client, exited };
}

async function kill(engine: Engine): Promise<void> {
  engine.child.kill('SIGKILL');
  await engine.exited;
  await engine.client.close(true).catch(() => undefined);
}

/** What the test knows about each write; unknown outcomes become known when the next restart is inspected. */
class Ledger {
  readonly present = new Set<string>();
  readonly absent = new Set<string>();
  /** Documents written in this round whose outcome is not yet checked, with how each was written. */
  inserts: { ids: string[]; outcome: Outcome }[] = [];
  deletes: { id: string; outcome: Outcome }[] = [];
  counters = new Map<string, { base: number; acked: number; unknown: number }>();
  lists = new Map<string, { acked: number; unknown: boolean }>();
  sets = new Map<string, { acked: number; unknown: number | null }>();
  /** Per worker: inserted ids it can delete later. */
  deletable: string[][] = Array.from({ length: WORKERS }, () => []);
}

/** Shared between the workload and the killer: how many writes were acknowledged this round, and whether the kill happened. */
interface Round {
  acked: number;
  killed: boolean;
  failed?: boolean;
}

async function runWorkload(docs: Collection<Document>, ledger: Ledger, round: number, stop: Round): Promise<void> {
  async function record<T>(write: () => Promise<T>, onDone: (outcome: Outcome) => void): Promise<boolean> {
    try {
      await write();
      stop.acked++;
      onDone('acked');
      return true;
    } catch (err) {
      if (!stop.killed) throw err; // before the kill every write must succeed
      onDone('unknown');
      return false;
    }
  }

  await Promise.all(
    Array.from({ length: WORKERS }, async (_, w) => {
      for (let i = 0; !stop.killed; i++) {
        const tag = `r${round}-w${w}-${i}`;
        switch (i % 6) {
          case 0: {
            const id = `one-${tag}`;
            await record(
              () => docs.insertOne({ _id: id as never, a: i, b: 2 * i, pad: PAD }),
              (outcome) => {
                ledger.inserts.push({ ids: [id], outcome });
                if (outcome === 'acked') ledger.deletable[w].push(id);
              },
            );
            break;
          }
          case 1: {
            const id = `counter-${Math.floor(i / 6) % 3}`;
            await record(
              () => docs.updateOne({ _id: id as never }, { $inc: { n: 1, m: 2 } }, { upsert: true }),
              (outcome) =>
                outcome === 'acked' ? ledger.counters.get(id)!.acked++ : ledger.counters.get(id)!.unknown++,
            );
            break;
          }
          case 2: {
            const id = `list-w${w}`;
            const list = ledger.lists.get(id)!;
            await record(
              () =>
                docs.updateOne({ _id: id as never }, { $push: { items: list.acked } as Document }, { upsert: true }),
              (outcome) => (outcome === 'acked' ? list.acked++ : (list.unknown = true)),
            );
            break;
          }
          case 3: {
            const ids = [0, 1, 2].map((k) => `many-${tag}-${k}`);
            await record(
              () => docs.insertMany(ids.map((id, k) => ({ _id: id as never, a: k, b: 2 * k, pad: PAD }))),
              (outcome) => ledger.inserts.push({ ids, outcome }),
            );
            break;
          }
          case 4: {
            const id = ledger.deletable[w].shift();
            if (!id) break;
            await record(
              () => docs.deleteOne({ _id: id as never }),
              (outcome) => ledger.deletes.push({ id, outcome }),
            );
            break;
          }
          case 5: {
            const id = `set-w${w}`;
            await record(
              () =>
                docs.updateOne(
                  { _id: id as never },
                  { $set: { x: i, y: i, z: i }, $inc: { version: 1 } },
                  { upsert: true },
                ),
              (outcome) =>
                outcome === 'acked' ? (ledger.sets.get(id)!.acked = i) : (ledger.sets.get(id)!.unknown = i),
            );
            break;
          }
        }
      }
    }),
  );
}

/** Checks the restarted engine against the ledger, then turns this round's unknown outcomes into known ones. */
async function verify(docs: Collection<Document>, ledger: Ledger): Promise<void> {
  const all = new Map((await docs.find({}).toArray()).map((doc) => [String(doc._id), doc]));
  const deleted = new Map(ledger.deletes.map(({ id, outcome }) => [id, outcome]));

  for (const id of ledger.present)
    if (!deleted.has(id)) expect({ id, present: all.has(id) }).toEqual({ id, present: true });
  for (const id of ledger.absent) expect({ id, present: all.has(id) }).toEqual({ id, present: false });
  for (const [id, outcome] of deleted)
    if (outcome === 'acked') expect({ id, present: all.has(id) }).toEqual({ id, present: false });

  for (const { ids, outcome } of ledger.inserts) {
    if (ids.some((id) => deleted.has(id))) continue; // acknowledged, then deleted this round: checked above
    const found = ids.filter((id) => all.has(id));
    // One command is one journal record: an insertMany is there whole or not at all.
    const expected = outcome === 'acked' || found.length > 0 ? ids.length : 0;
    expect({ ids, outcome, found: found.length }).toEqual({ ids, outcome, found: expected });
    for (const id of found) expect(all.get(id)).toMatchObject({ b: 2 * all.get(id)!.a, pad: PAD });
  }
  for (const id of [...ledger.inserts.flatMap((insert) => insert.ids), ...deleted.keys()]) {
    ledger.present.delete(id);
    ledger.absent.delete(id);
    (all.has(id) ? ledger.present : ledger.absent).add(id);
  }

  for (const [id, counter] of ledger.counters) {
    const doc = all.get(id);
    const n = doc?.n ?? 0;
    // Both fields of one $inc land together.
    expect({ id, m: doc?.m ?? 0 }).toEqual({ id, m: 2 * n });
    expect(n - counter.base).toBeGreaterThanOrEqual(counter.acked);
    expect(n - counter.base).toBeLessThanOrEqual(counter.acked + counter.unknown);
    ledger.counters.set(id, { base: n, acked: 0, unknown: 0 });
  }
  for (const [id, list] of ledger.lists) {
    const items: number[] = all.get(id)?.items ?? [];
    const length = list.unknown && items.length === list.acked + 1 ? list.acked + 1 : list.acked;
    expect({ id, items }).toEqual({ id, items: Array.from({ length }, (_, k) => k) });
    ledger.lists.set(id, { acked: items.length, unknown: false });
  }
  for (const [id, set] of ledger.sets) {
    const doc = all.get(id);
    const x = doc?.x ?? -1;
    expect({ id, y: doc?.y ?? -1, z: doc?.z ?? -1 }).toEqual({ id, y: x, z: x });
    expect([set.acked, set.unknown]).toContain(x);
    ledger.sets.set(id, { acked: x, unknown: null });
  }
  ledger.inserts = [];
  ledger.deletes = [];
}

describe('embedded engine killed with SIGKILL under concurrent writes', () => {
  let cli: string;
  let dataDir: string;
  let engine: Engine | undefined;

  beforeAll(async () => {
    cli = compiled('src/cli.js');
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'hindsight-sigkill-'));
  }, 180_000);

  afterAll(async () => {
    if (engine) await kill(engine);
    await rm(dataDir, { recursive: true, force: true });
  });

  it(`every acknowledged write survives ${ROUNDS} kills and no write is half-applied`, async () => {
    const ledger = new Ledger();
    for (let k = 0; k < 3; k++) ledger.counters.set(`counter-${k}`, { base: 0, acked: 0, unknown: 0 });
    for (let w = 0; w < WORKERS; w++) {
      ledger.lists.set(`list-w${w}`, { acked: 0, unknown: false });
      ledger.sets.set(`set-w${w}`, { acked: -1, unknown: null });
    }
    let acknowledged = 0;
    let snapshotsSeen = 0;

    engine = await startEngine(cli, dataDir);
    for (let round = 0; round < ROUNDS; round++) {
      const docs = engine.client.db('sigkill').collection('docs');
      const stop: Round = { acked: 0, killed: false };
      const workload = runWorkload(docs, ledger, round, stop);
      workload.catch(() => (stop.failed = true)); // awaited after the kill
      // Kill at a random moment once enough writes went through, whatever the machine's speed.
      while (stop.acked < ACKED_BEFORE_KILL && !stop.failed) await sleep(5);
      await sleep(Math.random() * 300);
      stop.killed = true;
      await kill(engine);
      engine = undefined;
      await workload;
      acknowledged += ledger.inserts.filter((insert) => insert.outcome === 'acked').length;
      if ((await readdir(dataDir)).some((name) => name.startsWith('snapshot-'))) snapshotsSeen++;

      engine = await startEngine(cli, dataDir);
      await verify(engine.client.db('sigkill').collection('docs'), ledger);
    }
    // The test proves something only if writes were acknowledged and compaction ran.
    expect(acknowledged).toBeGreaterThan(ROUNDS * 20);
    expect(snapshotsSeen).toBeGreaterThan(0);
  }, 120_000);
});
