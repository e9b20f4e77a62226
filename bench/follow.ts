/**
 * Follower lag: two built servers (A, B) on one engine alone (`npm run db`); experiences are recorded through A at
 * RATE per second for SECONDS, and B is searched until each is found. Lag: from A's acknowledgement to the answer of
 * the first search through B that finds it. B is probed in batches (one keyword search for every write acknowledged
 * and not yet found, one search in flight), so probing costs B a few requests a second however many writes are
 * outstanding, and each probe's round trip (reported) bounds how much of a lag is the probe's. Each probe also reads
 * B's own account (`serverInfo.search` lagSeconds: the age of the oldest event received and not yet applied). B's
 * CPU per write followed leaves out the probes' (a sample of them sent again once B is idle).
 * Then the read throughput of A and B (a hybrid search, LOAD_SECONDS each), without writes and while A records at
 * RATE. `node dist/bench/follow.js` runs it alone; BENCH_SECONDS shortens the lag run; VECTOR_SEARCH=atlas runs both
 * servers so.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { measureLoad, postGraphQL, readMetrics } from './load';
import { processCpuMs, startEngine, startServer, type Child } from './processes';
import { percentile } from './search-e2e';

const RATE = 200;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
/** Seconds of each read measurement (after a second of warm-up). */
const LOAD_SECONDS = 4;
const LOAD_CONNECTIONS = 8;
/** How long after the last write is acknowledged B may take to make the remaining ones searchable. */
const FIND_MS = 30_000;
/** Writes one probe searches for at most (searchExperiences' largest limit). */
const PROBE_BATCH = 100;
/** Probes sent again to measure their cost. */
const PROBE_SAMPLE = 100;
/** Writes in flight through A at most: past it, the sender waits (achievedRate shows it). */
const WRITES_IN_FLIGHT = 32;

/** Read throughput of one server, without writes and while A records experiences at RATE. */
export interface ReadCost {
  idleReqPerSec: number;
  followingReqPerSec: number;
  /** CPU ms of the server's process per read answered, without writes. */
  cpuMsPerRead: number | null;
}

export interface FollowFigures {
  targetRate: number;
  /** Writes acknowledged per second through A. */
  achievedRate: number;
  writes: number;
  /** Writes found through B within FIND_MS of the last acknowledgement, over writes. */
  found: number;
  /** From A's acknowledgement to the answer of the first probe through B that found the write. */
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Probes sent, and the round trip of one (a lag includes up to one probe's round trip and the wait for its turn). */
  probes: number;
  probeP50Ms: number;
  probeP99Ms: number;
  /** CPU ms of B's process per probe (a sample of the probes sent again once B is idle). */
  probeCpuMs: number;
  /** B's own lag (serverInfo lagSeconds of the space searched) read by each probe, in ms. */
  followerLagP50Ms: number;
  followerLagMaxMs: number;
  /**
   * CPU ms of B's process per write it applied (reading the stream, reading back, indexing), the probes' share
   * (probes × probeCpuMs) taken out; NaN where there is no /proc.
   */
  followerCpuMsPerWrite: number;
  /** The part of it on B's API thread (the rest: the graph workers' HNSW inserts, GC and I/O threads). */
  followerApiThreadCpuMsPerWrite: number;
  /** Database commands B sent per write it applied, the probes' (reading the experiences found) taken out. */
  followerCommandsPerWrite: number;
  reads: { a: ReadCost; b: ReadCost };
}

const RECORD = `mutation ($input: RecordExperienceInput!) { recordExperience(input: $input) { experienceId } }`;
const SPACE = 'experiences.primary_goal_description';
const PROBE = `query ($q: String!, $limit: Int!) {
  searchExperiences(query: $q, fields: [PRIMARY_GOAL], mode: KEYWORD, limit: $limit) { experience { experienceId } }
  serverInfo { search { name lagSeconds } }
}`;
const READ = JSON.stringify({
  query: `{ searchExperiences(query: "follow the other process", limit: 10) { score experience { experienceId } } }`,
});

/** A unique word per write, so a keyword search through B finds exactly it. */
const word = (i: number) => `zq${i.toString(36)}marker`;

/**
 * Records experiences `from`..`from + count - 1` through `url` at RATE per second (`count` unbounded: until `stop()`
 * returns true); `acked[i]` is set when write i is acknowledged. Resolves once every write sent is acknowledged.
 */
async function record(
  url: string,
  from: number,
  count: number,
  acked: number[],
  stop: () => boolean = () => false,
): Promise<void> {
  const started = performance.now();
  const sends: Array<Promise<void>> = [];
  for (let n = 0; n < count && !stop(); n++) {
    const i = from + n;
    const wait = started + (n * 1000) / RATE - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    sends.push(
      postGraphQL(url, RECORD, {
        input: {
          experienceId: `f-${i}`,
          primaryGoalDescription: `Follow ${word(i)} through the other process.`,
          subTaskDescription: 'Lag sample.',
          initiatingAgentId: 'bench',
          finalOutcome: 'SUCCESS',
        },
      }).then(() => void (acked[i] = performance.now())),
    );
    if (sends.length >= WRITES_IN_FLIGHT) await sends.shift();
  }
  await Promise.all(sends);
}

/** Read req/s of `server`, and its CPU per read. */
async function reads(server: Child): Promise<{ reqPerSec: number; cpuMsPerRead: number | null }> {
  const base = server.url.replace(/\/graphql$/, '');
  const cpuBefore = processCpuMs(server.pid);
  const result = await measureLoad({
    base,
    connections: LOAD_CONNECTIONS,
    duration: LOAD_SECONDS,
    warmup: 1,
    next: () => ({ path: '/graphql', body: READ }),
  });
  if (result.failures) throw new Error(`reads through ${server.url}: ${result.firstFailure}`);
  const cpuAfter = processCpuMs(server.pid);
  // The warm-up's reads cost CPU too: counted at the measured rate.
  const answered = result.requests + result.reqPerSec;
  return {
    reqPerSec: result.reqPerSec,
    cpuMsPerRead: cpuBefore !== null && cpuAfter !== null ? +((cpuAfter - cpuBefore) / answered).toFixed(2) : null,
  };
}

/** Read throughput of A and B without writes, then while A records at RATE (from write `from` on). */
async function readCosts(a: Child, b: Child, from: number): Promise<FollowFigures['reads']> {
  const idle = { a: await reads(a), b: await reads(b) };
  let stopped = false;
  const writing = record(a.url, from, Infinity, [], () => stopped);
  try {
    const following = { a: await reads(a), b: await reads(b) };
    const cost = (server: 'a' | 'b'): ReadCost => ({
      idleReqPerSec: idle[server].reqPerSec,
      followingReqPerSec: following[server].reqPerSec,
      cpuMsPerRead: idle[server].cpuMsPerRead,
    });
    return { a: cost('a'), b: cost('b') };
  } finally {
    stopped = true;
    await writing;
  }
}

export async function measureFollowing(log: (line: string) => void = console.log): Promise<FollowFigures> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'hindsight-bench-follow-'));
  const engine = await startEngine(path.join(root, 'engine'));
  // VECTOR_SEARCH=atlas measures the keyword indexes' following alone (the database searches the vectors).
  const env = { MONGODB_DB: 'follow', LOG_LEVEL: 'warn', VECTOR_SEARCH: process.env.VECTOR_SEARCH ?? 'memory' };
  const [a, b] = await Promise.all([
    startServer({ dataDir: path.join(root, 'a'), mongodbUri: engine.url, env }),
    startServer({ dataDir: path.join(root, 'b'), mongodbUri: engine.url, env }),
  ]);
  try {
    /** One search through B for the writes of `batch`: those it finds, and B's own lag then (ms). */
    const probe = async (batch: number[]) => {
      const answer = await postGraphQL(b.url, PROBE, { q: batch.map(word).join(' '), limit: batch.length });
      const spaces = answer.serverInfo.search as Array<{ name: string; lagSeconds: number }>;
      return {
        found: (answer.searchExperiences as Array<{ experience: { experienceId: string } }>).map((hit) =>
          Number(hit.experience.experienceId.slice('f-'.length)),
        ),
        lagMs: (spaces.find((space) => space.name === SPACE)?.lagSeconds ?? NaN) * 1000,
      };
    };
    await probe([0]);
    const acked: number[] = [];
    const lags: number[] = [];
    const probeMs: number[] = [];
    const probed: number[][] = [];
    const followerLagMs: number[] = [];
    const total = RATE * SECONDS;
    const base = b.url.replace(/\/graphql$/, '');
    /** B's CPU (whole process and API thread) and database commands so far. */
    const usage = async () => ({
      cpu: processCpuMs(b.pid) ?? NaN,
      api: processCpuMs(b.pid, b.pid) ?? NaN,
      commands: (await readMetrics(base)).databaseCommands,
    });
    const before = await usage();
    // Probing stops FIND_MS after the last acknowledgement (a machine slower than RATE writes for longer).
    let deadline = Infinity;
    const writing = record(a.url, 0, total, acked).finally(() => (deadline = performance.now() + FIND_MS));
    // The writes acknowledged and not yet found, oldest first.
    let next = 0;
    const unseen = new Set<number>();
    while ((next < total || unseen.size) && performance.now() < deadline) {
      while (next < total && acked[next] !== undefined) unseen.add(next++);
      // Acknowledgements arrive out of order: a later write may be acknowledged before an earlier one.
      for (let i = next + 1; i < Math.min(total, next + WRITES_IN_FLIGHT); i++)
        if (acked[i] !== undefined) unseen.add(i);
      if (!unseen.size) {
        await new Promise((resolve) => setTimeout(resolve, 2));
        continue;
      }
      const batch = [...unseen].sort((x, y) => x - y).slice(0, PROBE_BATCH);
      const sent = performance.now();
      const { found, lagMs } = await probe(batch);
      const answered = performance.now();
      probeMs.push(answered - sent);
      probed.push(batch);
      followerLagMs.push(lagMs);
      for (const i of found) if (unseen.delete(i)) lags[i] = answered - acked[i];
    }
    await writing;
    const after = await usage();
    // The probes' share of B's work: a sample of them sent again once B is idle (every write they look for is found
    // by then, so a replay costs at least what the probe did).
    const sample = probed.filter((_, n) => n % Math.ceil(probed.length / PROBE_SAMPLE) === 0);
    for (const batch of sample) await probe(batch);
    const replayed = await usage();
    const perProbe = (field: 'cpu' | 'api' | 'commands') => (replayed[field] - after[field]) / sample.length;
    /** B's cost per write followed, the probes' share taken out. */
    const perWrite = (field: 'cpu' | 'api' | 'commands') =>
      +((after[field] - before[field] - probed.length * perProbe(field)) / total).toFixed(2);
    const written = acked.filter((at) => at !== undefined);
    const seconds = (Math.max(...written) - Math.min(...written)) / 1000;
    const sorted = (values: number[]) => values.filter((value) => !Number.isNaN(value)).sort((x, y) => x - y);
    const measured = sorted(lags.filter((lag) => lag !== undefined));
    const probes = sorted(probeMs);
    const followerLags = sorted(followerLagMs);
    const ms = (value: number) => +value.toFixed(1);
    log('follow: lag measured; read throughput of A and B without writes, then while A records');
    const figures: FollowFigures = {
      targetRate: RATE,
      achievedRate: Math.round(written.length / seconds),
      writes: total,
      found: +(measured.length / total).toFixed(4),
      p50Ms: ms(percentile(measured, 0.5)),
      p99Ms: ms(percentile(measured, 0.99)),
      maxMs: ms(measured.at(-1) ?? NaN),
      probes: probes.length,
      probeP50Ms: ms(percentile(probes, 0.5)),
      probeP99Ms: ms(percentile(probes, 0.99)),
      probeCpuMs: ms(perProbe('cpu')),
      followerLagP50Ms: ms(percentile(followerLags, 0.5)),
      followerLagMaxMs: ms(followerLags.at(-1) ?? NaN),
      followerCpuMsPerWrite: perWrite('cpu'),
      followerApiThreadCpuMsPerWrite: perWrite('api'),
      followerCommandsPerWrite: perWrite('commands'),
      reads: await readCosts(a, b, total),
    };
    log(`follow: ${JSON.stringify(figures)}`);
    return figures;
  } finally {
    await Promise.all([a.stop(), b.stop()]);
    await engine.stop();
    await rm(root, { recursive: true, force: true });
  }
}

if (require.main === module) {
  measureFollowing().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
