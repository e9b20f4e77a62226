/**
 * `npm run build && node dist/bench/restart.js [--experiences N] [--restarts N] [--keep DIR] [--journal-experiences N
 * --journal-appends M]`: how long the engine
 * takes to recover a data directory of the benchmark's shape and answer. It seeds the default sizes (1,000 sessions
 * of 2 × 50 messages, 100,000 experiences with four 384-d vectors each, 10,000 tasks with two, 50 tools) through the
 * engine with bench/seed.ts, creates the server's indexes, has the engine write one snapshot, then starts the engine
 * alone (`npm run db`, as `npm run bench` starts it) `--restarts` times and times each from spawn until a `find` on
 * the experiences answers. Prints each start and met / missed against the target.
 *
 * `--journal-experiences N --journal-appends M`: the restarts come after writes, as the benchmark's embedded restarts
 * do: N experiences inserted and M messages appended (through SessionRepository.appendMessages) one by one after the
 * snapshot, so that recovery replays them from the journal. They are written once into a copy of the seeded
 * directory (`DIR.journaled-N-M`, kept beside a kept DIR), and each run restarts a fresh copy of that one.
 *
 * `--keep DIR` seeds DIR once and reuses it on later runs (a directory holding a snapshot is not seeded again), so
 * builds can be compared on the same files; the first restart of a build whose snapshot format differs loads the
 * other format, which `--snapshot` (rewrite the directory as one snapshot in this build's format first) avoids. `--engine CLI` runs another
 * build's `packages/engine/dist/src/cli.js` (e.g. a copy of the one before a change; with NODE_PATH pointing at this
 * checkout's node_modules when the copy is outside it).
 */
import 'reflect-metadata';
import { existsSync } from 'node:fs';
import { copyFile, link, mkdir, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MongoClient, type Db } from 'mongodb';
import { COLLECTION_INDEXES } from '../src/app';
import { createIndexes } from '../src/db/indexes';
import { EmbeddingService } from '../src/embeddings/embedding.service';
import { HashEmbeddingProvider } from '../src/embeddings/hash.provider';
import { toStoredVector } from '../src/embeddings/vectors';
import { EXPERIENCES_COLLECTION, type ExperienceDocument } from '../src/modules/experiences/experience.document';
import type { RecordExperienceInput } from '../src/modules/experiences/experience.input';
import { ExperienceOutcome } from '../src/modules/experiences/experience.type';
import { newExperienceDocument } from '../src/modules/experiences/experience.validation';
import { SESSIONS_COLLECTION } from '../src/modules/sessions/session.document';
import { SessionRepository } from '../src/modules/sessions/session.repository';
import { bsonBytes } from '../src/modules/sessions/session.validation';
import { seededRandom } from '../test/support/vectors';
import { DEFAULT_SIZES } from './options';
import { ENGINE_SCRIPT, processCpuMs, startEngine } from './processes';
import { agentOf, DIMENSIONS, experienceTexts, pick, seedDatabase, userMessage, type SeedSizes } from './seed';

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
    /** Bytes of journal in the directory when it started. */
    replayedBytes: number;
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
  const sizeOf = async (pattern: RegExp) => {
    let bytes = 0;
    for (const name of (await readdir(dataDir)).filter((file) => pattern.test(file)))
      bytes += (await stat(path.join(dataDir, name))).size;
    return bytes;
  };
  const snapshotBytes = await sizeOf(/^snapshot-\d+\.bson$/);
  const journalBytes = await sizeOf(/^journal-\d+\.log$/);
  const starts: RestartFigures['starts'] = [];
  for (let i = 1; i <= restarts; i++) {
    // What this start replays: an earlier one may have folded the journal into a snapshot since.
    const replayedBytes = await sizeOf(/^journal-\d+\.log$/);
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
          replayedBytes,
          readyMs: Math.round(server.startMs),
          answeredMs: Math.round(answeredMs),
          indexedMs: Math.round(performance.now() - indexed),
          cpuMs,
          mainCpuMs,
          rssMB: server.memory()?.rssMB ?? null,
        };
        starts.push(start);
        log(
          `restart ${i}/${restarts} (journal ${(replayedBytes / 1024 ** 2).toFixed(1)} MiB): listening after ${start.readyMs} ms, answered after ${start.answeredMs} ms ` +
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

/** Writes in the shape of the benchmark's write phases, journaled after a data directory's snapshot (see `journalWrites`). */
export interface JournaledWrites {
  /** Experiences inserted one by one, as recordExperience stores them (four hash vectors each). */
  experiences: number;
  /** Messages appended one by one to the newer half of the sessions, by SessionRepository.appendMessages. */
  appends: number;
}

const WRITES_IN_FLIGHT = 32;

/**
 * Starts the engine on `dataDir` (a seeded one) with compaction off and makes `writes` through it, so that they stay
 * in the journal after its snapshot: what the embedded server's restart after the benchmark's write phases replays.
 */
export async function journalWrites(
  dataDir: string,
  writes: JournaledWrites,
  log: (line: string) => void = () => undefined,
  engine = ENGINE_SCRIPT,
): Promise<number> {
  const started = performance.now();
  const server = await startEngine(dataDir, NEVER_COMPACT, engine);
  try {
    const client = await MongoClient.connect(withDatabase(server.url, DATABASE), { ignoreUndefined: true });
    try {
      await journalExperiences(client.db(), writes.experiences);
      log(`journaled ${writes.experiences} experiences`);
      await journalAppends(client.db(), writes.appends);
      log(`journaled ${writes.appends} appends`);
    } finally {
      await client.close();
    }
  } finally {
    await server.stop();
  }
  return (performance.now() - started) / 1000;
}

/** Runs `write(i)` for i < count, WRITES_IN_FLIGHT at a time (the engine commits concurrent writes together). */
async function inFlight(count: number, write: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await write(next++);
  };
  await Promise.all(Array.from({ length: Math.min(WRITES_IN_FLIGHT, count) }, worker));
}

async function journalExperiences(db: Db, count: number): Promise<void> {
  if (count === 0) return;
  const embedder = new EmbeddingService(new HashEmbeddingProvider(DIMENSIONS), null, { batchSize: 2048 });
  const collection = db.collection<ExperienceDocument>(EXPERIENCES_COLLECTION);
  const first = await collection.countDocuments();
  const r = seededRandom(7);
  const outcomes = Object.values(ExperienceOutcome);
  const fields = [
    'primary_goal_description',
    'sub_task_description',
    'input_context_summary',
    'output_summary',
  ] as const;
  const BATCH = 500;
  for (let from = 0; from < count; from += BATCH) {
    const documents = Array.from({ length: Math.min(BATCH, count - from) }, (_, i) => {
      const index = first + from + i;
      const input = {
        experienceId: `restart-exp-${String(index).padStart(7, '0')}`,
        ...experienceTexts(r),
        initiatingAgentId: agentOf(index),
        involvedComponents: ['query_database', 'billing'],
        keyDecisionsMade: ['Used query_database'],
        finalOutcome: pick(r, outcomes),
        sessionId: `bench-session-${String(index % 1000).padStart(6, '0')}`,
        tags: ['bench'],
      } as RecordExperienceInput;
      return newExperienceDocument(input, 'input', new Date());
    });
    const vectors = await embedder.embed(
      documents.flatMap((document) => fields.map((field) => document[field] as string)),
    );
    documents.forEach((document, i) => {
      document.embeddings = Object.fromEntries(
        fields.map((field, f) => [`${field}_embedding`, toStoredVector(vectors[i * fields.length + f])]),
      );
      document.embedding_model = embedder.signature;
    });
    await inFlight(documents.length, (i) => collection.insertOne(documents[i]));
  }
}

async function journalAppends(db: Db, count: number): Promise<void> {
  if (count === 0) return;
  const sessions = await db
    .collection(SESSIONS_COLLECTION)
    .find({}, { projection: { _id: 1, agents: 1 }, sort: { _id: 1 } })
    .toArray();
  // The newer half, as the benchmark's appendMessage picks (bench/operations.ts).
  const appended = sessions
    .slice(Math.floor(sessions.length / 2))
    .map((session) => ({ id: session._id as unknown as string, agents: Object.keys(session.agents as object) }));
  if (appended.length === 0) throw new Error('no session to append to: the directory was not seeded');
  const repository = new SessionRepository(db);
  const r = seededRandom(8);
  await inFlight(count, async () => {
    const session = pick(r, appended);
    const message = { role: 'user', content: userMessage(r) };
    const stored = await repository.appendMessages(
      session.id,
      pick(r, session.agents),
      [message],
      new Date(),
      bsonBytes(message) + 64,
      'input.content',
    );
    if (!stored) throw new Error(`the append to session ${session.id} matched nothing`);
  });
}

/**
 * The directory holding `source`'s data with `writes` journaled after its snapshot: made once (and kept, beside a
 * kept `source`) so that every build is measured on the same journal.
 */
async function journaledTemplate(
  source: string,
  writes: JournaledWrites,
  log: (line: string) => void,
  engine: string,
): Promise<string> {
  const template = `${source}.journaled-${writes.experiences}-${writes.appends}`;
  const marker = path.join(template, 'journaled.json');
  if (existsSync(marker)) {
    log(`reusing the journaled copy ${template}: ${await readFile(marker, 'utf8')}`);
    return template;
  }
  await copyDataDir(source, template);
  const seconds = await journalWrites(template, writes, log, engine);
  await writeFile(marker, JSON.stringify(writes));
  log(`journaled ${JSON.stringify(writes)} in ${seconds.toFixed(1)} s into ${template}`);
  return template;
}

/**
 * Copies a stopped engine's data directory: snapshots as hard links (a snapshot is never written once under its
 * name, and compaction only unlinks it), the rest as copies (journals are appended to). `search` and other
 * directories are left out.
 */
export async function copyDataDir(from: string, to: string): Promise<void> {
  await rm(to, { recursive: true, force: true });
  await mkdir(to, { recursive: true });
  for (const entry of await readdir(from, { withFileTypes: true })) {
    if (!entry.isFile() || entry.name === 'journaled.json' || entry.name.startsWith('spill-')) continue;
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (/^snapshot-\d+\.bson$/.test(entry.name)) await link(source, target).catch(() => copyFile(source, target));
    else await copyFile(source, target);
  }
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
    const writes: JournaledWrites = {
      experiences: Number(value('--journal-experiences') ?? 0),
      appends: Number(value('--journal-appends') ?? 0),
    };
    let measured = dataDir;
    if (writes.experiences > 0 || writes.appends > 0) {
      // Restarts may fold the journal into a new snapshot: each run starts from a fresh copy of the journaled one.
      const template = await journaledTemplate(dataDir, writes, log, engine);
      measured = `${template}.run`;
      await copyDataDir(template, measured);
    }
    try {
      const figures = await measureEngineRestart(measured, restarts, log, engine);
      log(describeRestart(figures));
      process.stdout.write(`${JSON.stringify(figures)}\n`);
    } finally {
      if (measured !== dataDir) await rm(measured, { recursive: true, force: true });
    }
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
