/**
 * `npm run bench`: seeds a database at the sizes given (see bench/options.ts), starts the server the way users run
 * it (`node dist/src/main.js`, hash embedder), drives each operation over HTTP with autocannon, and prints and writes
 * bench/results.json: per operation req/s, p50/p95/p99 latency, database commands per request and server RSS, next
 * to the baseline (bench/baseline-server.ts: the same reads with the driver, no GraphQL) where one exists; then
 * exact vs ANN vector search over the same vectors (bench/vector.ts), cold starts, and the batching ratios
 * (bench/batching.ts).
 *
 * Targets, in this order (the data written by one is seen by the next):
 * - embedded: the server as users run it by default, with its engine in-process under DATA_DIR. Started twice: the
 *   first start builds the search index from MongoDB, the restart loads what the first one persisted (if anything).
 * - shared: the engine alone (`npm run db`: the @hindsight/engine CLI) on the same DATA_DIR, with the GraphQL server
 *   and the baseline both connecting to it through MONGODB_URI: same database, same path to it, so req/s ratios are the
 *   GraphQL overhead. Only the operations that have a baseline run here.
 * - mongod: the same against a real mongod (TEST_MONGODB_URI, MONGOMS_SYSTEM_BINARY or a cached binary; never
 *   downloaded), seeded separately; skipped with a note when none is available.
 */
import 'reflect-metadata';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { localMongodBinary } from '../test/support/target';
import { measureBatchingRatio, type BatchingFigures } from './batching';
import { measureLoad, type LoadResult } from './load';
import { operations, variableStream, type Operation } from './operations';
import { USAGE, parseOptions, type BenchOptions, type Target } from './options';
import { ROOT, startBaseline, startEngine, startServer, type Child } from './processes';
import { describeMachine, loadAverage, markdownTable, tableRows, type Machine, type OperationResult } from './report';
import { seedDatabase, writeBehindTheServer, type SeedManifest, type SeedSizes, type WrittenBehind } from './seed';
import { measureFollowing, type FollowFigures } from './follow';
import { measureSubscriptions, type SubscriptionFigures } from './subscriptions';
import { measureVectors, type VectorFigures } from './vector';
import { measureInProcess, type InProcessFigures } from './in-process';
import type { FilteredSearchFigures } from './search-e2e';
import { checkTargets, targetRows, type TargetCheck } from './targets';

const DATABASE = 'hindsight';
/** ENGINE_COMPACT_AFTER_BYTES high enough that seeding never snapshots (the engine's maximum, 64 GiB). */
const NEVER_COMPACT = 64 * 1024 ** 3;

interface ColdStart {
  target: Target;
  start: string;
  /** Milliseconds from spawn to the printed URL (the server listens once its search index is loaded). */
  ms: number;
  /** Of which: until the in-process engine had recovered the data (embedded only). */
  engineMs: number | null;
  /** Of which: loading the search spaces (from the server's log), and how many were rebuilt or restored. */
  indexMs: number;
  spacesBuilt: number;
  spacesRestored: number;
  /** Restored spaces: how each caught up with MongoDB (change stream, or comparing the collection), and what it re-indexed or removed. */
  caughtUp: { by: string[]; updated: number; removed: number };
  /** Experiences written through the driver while the server was down, which the catch-up had to find (null: none). */
  writtenBehind: WrittenBehind | null;
  /** Entries the server had left under DATA_DIR besides the engine's journal and snapshots when it was started. */
  persisted: string[];
  rssMB: number | null;
  /** The first start's index build time over this start's index time (restarts only). */
  vsBuild: number | null;
}

/**
 * Restarts timed per target: a restore takes about half a second, and the same one took 0.29 s in one run and 0.82 s
 * in another, so one sample says little. Each is reported; the summary gives their median.
 */
const RESTARTS = 3;

interface Results {
  date: string;
  command: string;
  machine: Machine;
  options: BenchOptions;
  seed: { sizes: SeedSizes; seconds: SeedManifest['seconds']; target: string; snapshotSeconds?: number }[];
  operations: OperationResult[];
  coldStarts: ColdStart[];
  vector: VectorFigures | null;
  batching: BatchingFigures[] | null;
  /** Event latency of graphql-ws subscriptions (bench/subscriptions.ts). */
  subscriptions: SubscriptionFigures | null;
  /** Lag of live search following between two servers on one engine (bench/follow.ts). */
  follow: FollowFigures | null;
  /** The one-connection operations run in process over the embedded target's data (bench/in-process.ts). */
  inProcess: InProcessFigures[] | null;
  /** Filtered HYBRID searches at the target's selectivities, in process over the same data (bench/search-e2e.ts). */
  filteredSearch: FilteredSearchFigures | null;
  /** Every target with its figure: met, missed or not measured (bench/targets.ts). */
  targets: TargetCheck[];
  notes: string[];
  totalSeconds: number;
}

const started = performance.now();
function log(line: string): void {
  process.stdout.write(`[bench ${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}\n`);
}

/** Files the engine keeps under DATA_DIR; anything else there was written by the server (its persisted index). */
const ENGINE_FILE = /^(journal-|snapshot-|spill-)|\.(tmp|sock)$|^(LOCK|engine-id)$/i;

async function serverFiles(dataDir: string): Promise<string[]> {
  return (await readdir(dataDir).catch(() => [] as string[])).filter((name) => !ENGINE_FILE.test(name));
}

/** Seed of the variables of operation `index`'s load, and of its one-connection run (also run in process). */
const loadSeed = (index: number) => 1000 + index;
const singleClientSeed = (index: number) => loadSeed(index) + 500;

/** GraphQL request generator of an operation (seeded: both targets see the same sequence). */
function graphqlRequests(operation: Operation, seed: number): () => { path: string; body: string } {
  const next = variableStream(operation, seed);
  return () => ({ path: '/graphql', body: JSON.stringify({ query: operation.query, variables: next() }) });
}

async function runOperations(
  target: Target,
  server: Child,
  baseline: Child | null,
  ops: Operation[],
  options: BenchOptions,
  results: Results,
): Promise<OperationResult[]> {
  const measured: OperationResult[] = [];
  const base = (child: Child) => child.url.replace(/\/graphql$/, '');
  const load = (
    child: Child,
    next: () => { path: string; body?: string },
    connections = options.connections,
  ): Promise<LoadResult> =>
    measureLoad({
      base: base(child),
      connections,
      duration: options.duration,
      warmup: Math.min(2, options.duration),
      next,
    });
  for (const [index, operation] of ops.entries()) {
    const seed = loadSeed(index);
    log(`${target}: ${operation.name} (GraphQL)`);
    const graphql = await load(server, graphqlRequests(operation, seed), operation.connections);
    let baselineResult: LoadResult | null = null;
    if (baseline && operation.baselinePath) {
      log(`${target}: ${operation.name} (baseline)`);
      const next = variableStream(operation, seed);
      baselineResult = await load(baseline, () => ({ path: operation.baselinePath!(next()) }));
    }
    let singleClient: LoadResult | undefined;
    if (operation.singleClient) {
      log(`${target}: ${operation.name} (GraphQL, 1 connection)`);
      singleClient = await load(server, graphqlRequests(operation, singleClientSeed(index)), 1);
    }
    const result: OperationResult = {
      target,
      operation: operation.name,
      description: operation.description,
      kind: operation.kind,
      graphql,
      baseline: baselineResult,
      overhead: baselineResult?.reqPerSec ? Number((graphql.reqPerSec / baselineResult.reqPerSec).toFixed(2)) : null,
      ...(singleClient ? { singleClient } : {}),
    };
    log(`${target}: ${operation.name}: ${JSON.stringify(tableRows([result])[0])}`);
    if (graphql.firstFailure) log(`${target}: ${operation.name}: first failure: ${graphql.firstFailure}`);
    for (const [side, figures] of [
      ['GraphQL', graphql],
      ['baseline', baselineResult],
    ] as const) {
      if (figures?.requests === 0)
        results.notes.push(
          `${target} ${operation.name} (${side}): no request completed within the ${options.duration} s run.`,
        );
    }
    measured.push(result);
  }
  return measured;
}

/** Seeds the database named by `uri`'s path. */
async function seedThrough(uri: string, sizes: SeedSizes, results: Results, target: string): Promise<SeedManifest> {
  const client = await MongoClient.connect(uri, { ignoreUndefined: true });
  try {
    const manifest = await seedDatabase(client.db(), sizes, (line) => log(`seed (${target}): ${line}`));
    results.seed.push({ sizes, seconds: manifest.seconds, target });
    return manifest;
  } finally {
    await client.close();
  }
}

/** A server start's figures; `build` is the first start (built from MongoDB) that restores are compared with. */
function coldStart(
  target: Target,
  start: string,
  server: Child,
  persisted: string[],
  build: ColdStart | null,
  writtenBehind: WrittenBehind | null = null,
): ColdStart {
  const figure: ColdStart = {
    target,
    start,
    ms: Math.round(server.startMs),
    engineMs: null,
    indexMs: 0,
    spacesBuilt: 0,
    spacesRestored: 0,
    caughtUp: { by: [], updated: 0, removed: 0 },
    writtenBehind,
    persisted,
    rssMB: server.memory()?.rssMB ?? null,
    vsBuild: null,
  };
  // The server's JSON log lines (LOG_LEVEL=info) before it was ready. Spaces may load concurrently: the index time
  // is the span from the earliest space's start (arrival minus its logged duration) to the last one's end.
  let firstSpaceStart = Infinity;
  let lastSpaceEnd = -Infinity;
  for (const { ms, line } of server.startup) {
    let entry: { message?: unknown; ms?: unknown; caughtUpBy?: unknown; updated?: unknown; removed?: unknown };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      continue;
    }
    if (entry.message === 'embedded engine started') figure.engineMs = Math.round(ms);
    const kind = /^search space (built|restored)$/.exec(String(entry.message))?.[1];
    if (!kind) continue;
    if (kind === 'built') figure.spacesBuilt++;
    else {
      figure.spacesRestored++;
      if (!figure.caughtUp.by.includes(String(entry.caughtUpBy))) figure.caughtUp.by.push(String(entry.caughtUpBy));
      figure.caughtUp.updated += Number(entry.updated ?? 0);
      figure.caughtUp.removed += Number(entry.removed ?? 0);
    }
    firstSpaceStart = Math.min(firstSpaceStart, ms - (typeof entry.ms === 'number' ? entry.ms : 0));
    lastSpaceEnd = Math.max(lastSpaceEnd, ms);
  }
  if (lastSpaceEnd >= firstSpaceStart) figure.indexMs = Math.round(lastSpaceEnd - firstSpaceStart);
  if (build && figure.spacesRestored && figure.indexMs) figure.vsBuild = +(build.indexMs / figure.indexMs).toFixed(1);
  log(
    `${target}: ${start}: ready in ${(figure.ms / 1000).toFixed(1)} s (engine ${figure.engineMs === null ? '–' : (figure.engineMs / 1000).toFixed(1)} s, ` +
      `search index ${(figure.indexMs / 1000).toFixed(1)} s: ${figure.spacesBuilt} spaces built, ${figure.spacesRestored} restored), RSS ${figure.rssMB} MB`,
  );
  return figure;
}

/** The embedded target: start (index built from MongoDB), the operations, then a restart (index loaded, if persisted). */
async function runEmbedded(dataDir: string, ops: Operation[], options: BenchOptions, results: Results): Promise<void> {
  const persistedBefore = await serverFiles(dataDir);
  const server = await startServer({ dataDir });
  const firstStart = coldStart('embedded', 'first start', server, persistedBefore, null);
  try {
    results.coldStarts.push(firstStart);
    results.operations.push(...(await runOperations('embedded', server, null, ops, options, results)));
  } finally {
    await server.stop();
  }
  const persisted = await serverFiles(dataDir);
  if (!persisted.length) {
    results.notes.push(
      'The server left no persisted search index under DATA_DIR: a restart rebuilds it from MongoDB like the first start (not re-measured).',
    );
    return;
  }
  for (let restart = 1; restart <= RESTARTS; restart++) {
    const restarted = await startServer({ dataDir });
    results.coldStarts.push(coldStart('embedded', `restart ${restart}/${RESTARTS}`, restarted, persisted, firstStart));
    await restarted.stop();
  }
}

/**
 * GraphQL server and baseline as clients of one database (`uri`), operation by operation. The server starts after
 * experiences were written behind its back (see `writeBehindTheServer`), so its cold start includes a real catch-up.
 */
async function runClients(
  target: Target,
  uri: string,
  dataDir: string,
  ops: Operation[],
  options: BenchOptions,
  results: Results,
): Promise<void> {
  const build = results.coldStarts.find((start) => start.spacesBuilt > 0 && !start.spacesRestored) ?? null;
  const startBehind = async (start: number): Promise<Child> => {
    const persisted = await serverFiles(dataDir);
    const client = await MongoClient.connect(uri, { ignoreUndefined: true });
    const behind = await writeBehindTheServer(client.db(), WRITTEN_BEHIND).finally(() => client.close());
    const server = await startServer({ dataDir, mongodbUri: uri });
    results.coldStarts.push(
      coldStart(
        target,
        `start ${start}/${RESTARTS} (MONGODB_URI), after writes behind its back`,
        server,
        persisted,
        build,
        behind,
      ),
    );
    return server;
  };
  // The last start serves the operations.
  for (let start = 1; start < RESTARTS; start++) await (await startBehind(start)).stop();
  const server = await startBehind(RESTARTS);
  let baseline: Child | null = null;
  try {
    baseline = await startBaseline(uri);
    results.operations.push(...(await runOperations(target, server, baseline, ops, options, results)));
  } finally {
    await baseline?.stop();
    await server.stop();
  }
}

/** A real mongod where one can be had without a download, else null and why. */
async function startMongod(): Promise<{ uri: string; stop(): Promise<void> } | string> {
  if (process.env.TEST_MONGODB_URI) return { uri: process.env.TEST_MONGODB_URI, stop: async () => undefined };
  const binary = localMongodBinary();
  if (!binary) return 'no mongod available (set TEST_MONGODB_URI or MONGOMS_SYSTEM_BINARY; nothing is downloaded)';
  const { MongoMemoryServer } = await import('mongodb-memory-server');
  const mongod = await MongoMemoryServer.create({ binary: { systemBinary: binary } });
  return { uri: mongod.getUri(), stop: async () => void (await mongod.stop()) };
}

/** Experiences updated, inserted and deleted (each) through the driver before a client target's server starts. */
const WRITTEN_BEHIND = 100;

function withDatabase(uri: string, database: string): string {
  const url = new URL(uri);
  url.pathname = `/${database}`;
  return url.toString();
}

async function main(): Promise<void> {
  const parsed = parseOptions(process.argv.slice(2));
  if (parsed === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const options = parsed;
  const sizes: SeedSizes = {
    sessions: options.sessions,
    agentsPerSession: options.agentsPerSession,
    messagesPerAgent: options.messagesPerAgent,
    experiences: options.experiences,
    tasks: options.tasks,
    tools: options.tools,
  };
  const results: Results = {
    date: new Date().toISOString(),
    command: `npm run bench -- ${process.argv.slice(2).join(' ')}`.trim(),
    machine: describeMachine(),
    options,
    seed: [],
    operations: [],
    coldStarts: [],
    vector: null,
    batching: null,
    subscriptions: null,
    follow: null,
    inProcess: null,
    filteredSearch: null,
    targets: [],
    notes: [],
    totalSeconds: 0,
  };
  const root = await mkdtemp(path.join(os.tmpdir(), 'hindsight-bench-'));
  const dataDir = path.join(root, 'data');
  await mkdir(dataDir);
  log(
    `data under ${dataDir}; ${JSON.stringify(sizes)}; ${options.duration} s × ${options.connections} connections per operation`,
  );
  try {
    // Seeded through the engine alone, on the DATA_DIR the servers then use. Gigabytes of vectors would make the
    // engine snapshot every 64 MiB of journal, each snapshot the whole (growing) database: it journals only, then
    // one restart with a 1-byte threshold writes a single snapshot (its close waits for it).
    const engine = await startEngine(dataDir, NEVER_COMPACT);
    let manifest: SeedManifest;
    try {
      manifest = await seedThrough(withDatabase(engine.url, DATABASE), sizes, results, 'engine');
    } finally {
      await engine.stop();
    }
    const compactStarted = performance.now();
    const compacting = await startEngine(dataDir, 1);
    await compacting.stop();
    results.seed[0].snapshotSeconds = Math.round((performance.now() - compactStarted) / 1000);
    log(`seed: journal replayed and written as one snapshot in ${results.seed[0].snapshotSeconds} s`);
    const ops = operations(manifest, sizes);

    if (options.targets.includes('embedded')) {
      await runEmbedded(dataDir, ops, options, results);
      log('in process: the one-connection operations over the same data, through executeOperation');
      const engine = await startEngine(dataDir);
      try {
        const measured = await measureInProcess(
          withDatabase(engine.url, DATABASE),
          dataDir,
          ops,
          (operation) => singleClientSeed(ops.indexOf(operation)),
          options.duration,
          sizes.experiences,
        );
        results.inProcess = measured.operations;
        results.filteredSearch = measured.filtered;
        for (const figures of results.inProcess) log(`in process: ${JSON.stringify(figures)}`);
        for (const figures of measured.filtered.figures) log(`filtered search: ${JSON.stringify(figures)}`);
      } finally {
        await engine.stop();
      }
    }
    if (options.targets.includes('shared')) {
      const shared = await startEngine(dataDir);
      log(`shared: engine recovered the data in ${(shared.startMs / 1000).toFixed(1)} s`);
      try {
        // Only the operations with a baseline: the others are measured on the embedded target already.
        const compared = ops.filter((operation) => operation.baselinePath);
        await runClients('shared', withDatabase(shared.url, DATABASE), dataDir, compared, options, results);
      } finally {
        await shared.stop();
      }
    }
    if (options.targets.includes('mongod')) {
      const mongod = await startMongod();
      if (typeof mongod === 'string') {
        results.notes.push(`mongod target skipped: ${mongod}.`);
        log(`mongod: skipped: ${mongod}`);
      } else {
        const database = `hindsight_bench_${Date.now().toString(36)}`;
        const uri = withDatabase(mongod.uri, database);
        const mongodDir = path.join(root, 'mongod-server');
        await mkdir(mongodDir);
        try {
          await seedThrough(uri, sizes, results, 'mongod');
          await runClients('mongod', uri, mongodDir, ops, options, results);
        } finally {
          const client = await MongoClient.connect(uri).catch(() => null);
          await client
            ?.db(database)
            .dropDatabase()
            .catch(() => undefined);
          await client?.close();
          await mongod.stop();
        }
      }
    }

    log(`vector: exact vs ANN over the ${manifest.primaryGoals.length} primary-goal vectors`);
    results.vector = await measureVectors(manifest.primaryGoals, manifest.experienceQueries, log);
    log('batching: nested queries with and without DataLoader batching');
    results.batching = await measureBatchingRatio();
    log('subscriptions: event latency, 100 subscribers, appendMessage at 500/s');
    results.subscriptions = await measureSubscriptions(log);
    log('follow: search lag between two servers on one engine, experiences recorded at 200/s');
    results.follow = await measureFollowing(log);
  } finally {
    if (options.keep) log(`kept ${root}`);
    else await rm(root, { recursive: true, force: true });
  }
  results.machine.loadAverageAtEnd = loadAverage();
  results.targets = checkTargets(results);
  results.totalSeconds = Math.round((performance.now() - started) / 1000);
  print(results);
  const out = path.resolve(ROOT, options.out);
  await writeFile(out, `${JSON.stringify(results, null, 2)}\n`);
  log(`wrote ${path.relative(ROOT, out)}`);
}

function print(results: Results): void {
  const { machine } = results;
  console.log(
    `\n${machine.cpus} × ${machine.cpuModel}, ${machine.memoryGB} GB, Node ${machine.node}; load average ${machine.loadAverageAtStart.join(' ')} → ${machine.loadAverageAtEnd?.join(' ')}`,
  );
  console.log(
    `${results.options.duration} s per operation at ${results.options.connections} connections; cmds/req = database commands per request`,
  );
  console.table(tableRows(results.operations));
  console.table(
    results.coldStarts.map(({ persisted, caughtUp, writtenBehind, ...start }) => ({
      ...start,
      caughtUp: caughtUp.by.length
        ? `${caughtUp.by.join(' + ')}: ${caughtUp.updated} updated, ${caughtUp.removed} removed`
        : '–',
      writtenBehind: writtenBehind
        ? `${writtenBehind.updated}/${writtenBehind.inserted}/${writtenBehind.deleted}`
        : '–',
      persisted: persisted.join(' ') || '–',
    })),
  );
  for (const target of new Set(results.coldStarts.map((start) => start.target))) {
    const restores = results.coldStarts.filter((start) => start.target === target && start.vsBuild !== null);
    if (!restores.length) continue;
    // One build per target, so the median ratio is the build over the median restore.
    const median = restores.map((start) => start.vsBuild!).sort((a, b) => a - b)[restores.length >> 1];
    console.log(
      `${target}: restores ${restores.map((start) => `${start.indexMs} ms (${start.vsBuild}×)`).join(', ')}; median ${median}× the build`,
    );
  }
  if (results.vector) {
    const { filtered, ...vector } = results.vector;
    console.log('Vector search, in process (exact vs ANN over the same vectors):');
    console.table([vector]);
    console.table(filtered);
  }
  if (results.batching) {
    console.table(results.batching.map(({ query: _query, ...figures }) => figures));
  }
  if (results.inProcess) {
    console.log('In process, one request at a time, over the embedded target’s data:');
    console.table(results.inProcess);
  }
  if (results.filteredSearch) {
    console.log('Filtered HYBRID searches, in process over the same data:');
    console.table(results.filteredSearch.figures);
  }
  for (const note of results.notes) console.log(`Note: ${note}`);
  console.log(`\n${markdownTable(tableRows(results.operations))}\n`);
  console.log('Targets:');
  console.table(targetRows(results.targets));
  console.log(`\n${markdownTable(targetRows(results.targets))}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  // Exits now: children still running would keep the event loop alive (the exit hook kills them).
  process.exit(1);
});
