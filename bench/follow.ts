/**
 * Follower lag: two built servers (A, B) on one engine alone (`npm run db`); experiences are recorded through A at
 * RATE per second for SECONDS, and B is searched for each one until it is found. Lag: from A's acknowledgement to the
 * first search through B that finds it (one search in flight at a time, oldest unseen first, so a figure includes up
 * to one search's round trip). Also the CPU time B spent per write applied. `node dist/bench/follow.js` runs it alone;
 * BENCH_SECONDS shortens it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { postGraphQL } from './load';
import { processCpuMs, startEngine, startServer } from './processes';
import { percentile } from './search-e2e';

const RATE = 200;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);

export interface FollowFigures {
  targetRate: number;
  /** Writes acknowledged per second through A. */
  achievedRate: number;
  writes: number;
  /** Writes found through B before the deadline, over writes. */
  found: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** CPU ms of B's process per write it applied (reading the stream, reading back, indexing). */
  followerCpuMsPerWrite: number | null;
}

const RECORD = `mutation ($input: RecordExperienceInput!) { recordExperience(input: $input) { experienceId } }`;
const SEARCH = `query ($q: String!) { searchExperiences(query: $q, fields: [PRIMARY_GOAL], mode: KEYWORD, limit: 3) { experience { experienceId } } }`;

export async function measureFollowing(log: (line: string) => void = console.log): Promise<FollowFigures> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'hindsight-bench-follow-'));
  const engine = await startEngine(path.join(root, 'engine'));
  const env = { MONGODB_DB: 'follow', LOG_LEVEL: 'warn' };
  const [a, b] = await Promise.all([
    startServer({ dataDir: path.join(root, 'a'), mongodbUri: engine.url, env }),
    startServer({ dataDir: path.join(root, 'b'), mongodbUri: engine.url, env }),
  ]);
  try {
    // A unique word per write, so a keyword search through B finds exactly it.
    const word = (i: number) => `zq${i.toString(36)}marker`;
    await postGraphQL(b.url, SEARCH, { q: 'warm up' });
    const acked: number[] = [];
    const lags: number[] = [];
    const total = RATE * SECONDS;
    const cpuBefore = processCpuMs(b.pid);
    const started = performance.now();
    const writing = (async () => {
      const sends: Array<Promise<void>> = [];
      for (let i = 0; i < total; i++) {
        const due = started + (i * 1000) / RATE;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        sends.push(
          postGraphQL(a.url, RECORD, {
            input: {
              experienceId: `f-${i}`,
              primaryGoalDescription: `Follow ${word(i)} through the other process.`,
              subTaskDescription: 'Lag sample.',
              initiatingAgentId: 'bench',
              finalOutcome: 'SUCCESS',
            },
          }).then(() => void (acked[i] = performance.now())),
        );
        // At most 32 in flight: past it, the sender waits (achievedRate shows it).
        if (sends.length >= 32) await sends.shift();
      }
      await Promise.all(sends);
    })();
    const deadline = started + SECONDS * 1000 + 30_000;
    for (let i = 0; i < total && performance.now() < deadline;) {
      if (acked[i] === undefined) {
        await new Promise((resolve) => setTimeout(resolve, 2));
        continue;
      }
      const hits = (await postGraphQL(b.url, SEARCH, { q: word(i) })).searchExperiences as Array<{ experience: any }>;
      if (!hits.some((hit) => hit.experience.experienceId === `f-${i}`)) continue;
      lags[i] = performance.now() - acked[i];
      i++;
    }
    await writing;
    const written = acked.filter((at) => at !== undefined);
    const seconds = (Math.max(...written) - started) / 1000;
    const cpuAfter = processCpuMs(b.pid);
    const measured = lags.filter((lag) => lag !== undefined).sort((x, y) => x - y);
    const figures: FollowFigures = {
      targetRate: RATE,
      achievedRate: Math.round(written.length / seconds),
      writes: total,
      found: +(measured.length / total).toFixed(4),
      p50Ms: +percentile(measured, 0.5).toFixed(1),
      p99Ms: +percentile(measured, 0.99).toFixed(1),
      maxMs: +(measured[measured.length - 1] ?? NaN).toFixed(1),
      followerCpuMsPerWrite:
        cpuBefore !== null && cpuAfter !== null ? +((cpuAfter - cpuBefore) / total).toFixed(2) : null,
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
