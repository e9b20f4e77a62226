/**
 * `npm run build && node dist/bench/restart.js [--experiences N] [--restarts N] [--keep DIR]`: how long the engine
 * takes to recover a data directory of the benchmark's shape and answer. It seeds the default sizes (1,000 sessions
 * of 2 × 50 messages, 100,000 experiences with four 384-d vectors each, 10,000 tasks with two, 50 tools) through the
 * engine with bench/seed.ts, creates the server's indexes, has the engine write one snapshot, then starts the engine
 * alone (`npm run db`, as `npm run bench` starts it) `--restarts` times and times each from spawn until a `find` on
 * the experiences answers. Prints each start and met / missed against the target.
 *
 * `--keep DIR` seeds DIR once and reuses it on later runs (a directory holding a snapshot is not seeded again), so
 * builds can be compared on the same files; the first restart of a build whose snapshot format differs loads the
 * other format, which `--snapshot` (rewrite the directory as one snapshot in this build's format first) avoids. `--engine CLI` runs another
 * build's `packages/engine/dist/src/cli.js` (e.g. a copy of the one before a change; with NODE_PATH pointing at this
 * checkout's node_modules when the copy is outside it).
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rename, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { COLLECTION_INDEXES } from '../src/app';
import { createIndexes } from '../src/db/indexes';
import { EXPERIENCES_COLLECTION } from '../src/modules/experiences/experience.document';
import { DEFAULT_SIZES } from './options';
import { ENGINE_SCRIPT, processCpuMs, startEngine } from './processes';
import { seedDatabase, type SeedSizes } from './seed';

/** The target of issue 40: the engine recovers 100k experiences (with their sessions and tasks) in at most 5 s. */
export const RESTART_TARGET_MS = 5_000;
const DATABASE = 'hindsight';
/** Large enough that seeding writes no snapshot of its own (each would rewrite the growing data set). */
const NEVER_COMPACT = 64 * 1024 ** 3;

export const RESTART_SIZES: SeedSizes = DEFAULT_SIZES;

export interface RestartFigures {
  /** Bytes of the snapshot the restarts load, and of the journal after it. */
  snapshotBytes: number;
  journalBytes: number;
  /**
   * Each start: spawn until the listening line (`readyMs`) and until a find answered (`answeredMs`); the CPU time
   * the engine's process had used by then (all its threads: on a busy machine a steadier figure than the wall time).
   */
  starts: Array<{
    readyMs: number;
    answeredMs: number;
    cpuMs: number | null;
    /** Of which the main thread's (recovery runs there; the rest is mostly the garbage collector's helpers). */
    mainCpuMs: number | null;
    /**
     * After the answer: one query on each index of the experiences, in turn. An index a snapshot loaded is built by
     * the first query that uses it, so this is what the first such queries add after a restart.
     */
    indexedMs: number;
    rssMB: number | null;
  }>;
  medianMs: number;
  targetMs: number;
  met: boolean;
}

/**
 * Seeds `dataDir` (which must be empty or absent) at `sizes` through the engine alone, with the server's indexes, and
 * has the engine write it as one snapshot. Returns the seconds each step took.
 */
export async function seedForRestart(
  dataDir: string,
  sizes: SeedSizes = RESTART_SIZES,
  log: (line: string) => void = () => undefined,
  engine = ENGINE_SCRIPT,
): Promise<{ seedSeconds: number; snapshotSeconds: number }> {
  await mkdir(dataDir, { recursive: true });
  const seeded = performance.now();
  const started = await startEngine(dataDir, NEVER_COMPACT, engine);
  try {
    const client = await MongoClient.connect(withDatabase(started.url, DATABASE), { ignoreUndefined: true });
    try {
      await createIndexes(client.db(), { metadataIndexFields: [] }, COLLECTION_INDEXES);
      await seedDatabase(client.db(), sizes, log);
    } finally {
      await client.close();
    }
  } finally {
    await started.stop();
  }
  const seedSeconds = (performance.now() - seeded) / 1000;
  const snapshotSeconds = await snapshotDataDir(dataDir, engine);
  return { seedSeconds, snapshotSeconds };
}

/** Starts the engine on `dataDir` with a 1-byte compaction threshold, so it writes one snapshot, and stops it. */
export async function snapshotDataDir(dataDir: string, engine = ENGINE_SCRIPT): Promise<number> {
  const started = performance.now();
  const compacting = await startEngine(dataDir, 1, engine);
  await compacting.stop();
  return (performance.now() - started) / 1000;
}

/**
 * Rewrites a data directory that has a snapshot already (which a compaction threshold alone does not replace) as one
 * snapshot in the format of the build at `engine`: its `createBackup` writes a directory an engine starts on as it
 * is, which then takes the place of `dataDir` (the old files are removed).
 */
export async function rewriteDataDir(dataDir: string, engine = ENGINE_SCRIPT): Promise<number> {
  const started = performance.now();
  const backupDir = `${dataDir}.rewritten`;
  await rm(backupDir, { recursive: true, force: true });
  const server = await startEngine(dataDir, undefined, engine);
  try {
    const client = await MongoClient.connect(server.url);
    try {
      await client.db('admin').command({ createBackup: 1, backupDir });
    } finally {
      await client.close();
    }
  } finally {
    await server.stop();
  }
  await rm(dataDir, { recursive: true, force: true });
  await rename(backupDir, dataDir);
  return (performance.now() - started) / 1000;
}

/**
 * Starts the engine alone on a seeded `dataDir` `restarts` times and times each start until a find answers. The
 * figure for the target is the median start.
 */
export async function measureEngineRestart(
  dataDir: string,
  restarts = 3,
  log: (line: string) => void = () => undefined,
  engine = ENGINE_SCRIPT,
): Promise<RestartFigures> {
  const files = await readdir(dataDir);
  const sizeOf = async (pattern: RegExp) => {
    let bytes = 0;
    for (const name of files.filter((file) => pattern.test(file))) bytes += (await stat(path.join(dataDir, name))).size;
    return bytes;
  };
  const snapshotBytes = await sizeOf(/^snapshot-\d+\.bson$/);
  const journalBytes = await sizeOf(/^journal-\d+\.log$/);
  const starts: RestartFigures['starts'] = [];
  for (let i = 1; i <= restarts; i++) {
    const started = performance.now();
    const server = await startEngine(dataDir, undefined, engine);
    try {
      const client = await MongoClient.connect(withDatabase(server.url, DATABASE));
      try {
        const experiences = client.db().collection(EXPERIENCES_COLLECTION);
        const answer = await experiences.findOne({}, { projection: { embeddings: 0 } });
        if (!answer) throw new Error(`the engine answered with no experience: ${dataDir} holds none`);
        const answeredMs = performance.now() - started;
        const cpuMs = processCpuMs(server.pid);
        const mainCpuMs = processCpuMs(server.pid, server.pid);
        // An equality on each index's first field: the first query to use an index after a restart builds it.
        const indexed = performance.now();
        for (const index of await experiences.listIndexes().toArray()) {
          const field = Object.keys(index.key as object)[0];
          const value: unknown = answer[field];
          await experiences.findOne({ [field]: Array.isArray(value) ? value[0] : value }, { projection: { _id: 1 } });
        }
        const start = {
          readyMs: Math.round(server.startMs),
          answeredMs: Math.round(answeredMs),
          indexedMs: Math.round(performance.now() - indexed),
          cpuMs,
          mainCpuMs,
          rssMB: server.memory()?.rssMB ?? null,
        };
        starts.push(start);
        log(
          `restart ${i}/${restarts}: listening after ${start.readyMs} ms, answered after ${start.answeredMs} ms ` +
            `(CPU ${cpuMs ?? '–'} ms, main thread ${mainCpuMs ?? '–'} ms), RSS ${start.rssMB} MB; ` +
            `a query on each index of the experiences then took ${start.indexedMs} ms`,
        );
      } finally {
        await client.close();
      }
    } finally {
      await server.stop();
    }
  }
  const sorted = starts.map((start) => start.answeredMs).sort((a, b) => a - b);
  const medianMs = sorted[Math.floor(sorted.length / 2)];
  return {
    snapshotBytes,
    journalBytes,
    starts,
    medianMs,
    targetMs: RESTART_TARGET_MS,
    met: medianMs <= RESTART_TARGET_MS,
  };
}

/** One line for a report: the median restart against the target. */
export function describeRestart(figures: RestartFigures): string {
  const all = figures.starts.map((start) => (start.answeredMs / 1000).toFixed(2)).join(', ');
  return (
    `engine restart (snapshot ${(figures.snapshotBytes / 1024 ** 2).toFixed(0)} MiB): median ${(figures.medianMs / 1000).toFixed(2)} s ` +
    `(${all} s) against ≤ ${figures.targetMs / 1000} s: ${figures.met ? 'met' : 'missed'}`
  );
}

function withDatabase(uri: string, database: string): string {
  const url = new URL(uri);
  url.pathname = `/${database}`;
  return url.toString();
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const value = (flag: string) => {
    const at = args.indexOf(flag);
    return at < 0 ? undefined : args[at + 1];
  };
  const log = (line: string) => process.stdout.write(`[restart] ${line}\n`);
  const sizes = { ...RESTART_SIZES };
  if (value('--experiences')) sizes.experiences = Number(value('--experiences'));
  const restarts = Number(value('--restarts') ?? 3);
  const keep = value('--keep');
  const engine = value('--engine') ? path.resolve(value('--engine')!) : ENGINE_SCRIPT;
  const dataDir = keep
    ? path.resolve(keep)
    : path.join(await mkdtemp(path.join(os.tmpdir(), 'hindsight-restart-')), 'data');
  try {
    const seeded = existsSync(dataDir) && (await readdir(dataDir)).some((name) => /^snapshot-\d+\.bson$/.test(name));
    if (seeded) {
      log(`reusing ${dataDir}`);
      if (args.includes('--snapshot'))
        log(`wrote a snapshot in ${(await rewriteDataDir(dataDir, engine)).toFixed(1)} s`);
    } else {
      log(`seeding ${dataDir}: ${JSON.stringify(sizes)}`);
      const { seedSeconds, snapshotSeconds } = await seedForRestart(dataDir, sizes, log, engine);
      log(`seeded in ${seedSeconds.toFixed(1)} s, snapshot written in ${snapshotSeconds.toFixed(1)} s`);
    }
    const figures = await measureEngineRestart(dataDir, restarts, log, engine);
    log(describeRestart(figures));
    process.stdout.write(`${JSON.stringify(figures)}\n`);
  } finally {
    if (!keep) await rm(path.dirname(dataDir), { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  });
}
