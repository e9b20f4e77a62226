/**
 * Paired rounds of one read against servers running at once (bench:checks, bench:tracing): short loads alternate
 * between them, in a new order each round, and each comparison is the median of the rounds' ratios, so drift of the
 * shared machine cancels out. Besides req/s, each server's CPU ms per request (from /proc), steadier than req/s when
 * other processes share the machine.
 */
import { measureLoad, readMetrics, type LoadResult } from './load';
import { processCpuMs, type Child } from './processes';

export const EXPERIENCES = 2000;
export const CONNECTIONS = 20;
/** A representative read: one page of experiences, answered by the fast path with one database command. */
export const READ = JSON.stringify({
  query: '{ experiences(first: 20) { edges { node { experienceId primaryGoalDescription } } } }',
});

/** Records EXPERIENCES experiences through the API, 200 a request. */
export async function seed(url: string, headers: Record<string, string> = {}): Promise<void> {
  const record = `mutation ($inputs: [RecordExperienceInput!]!) { recordExperiences(inputs: $inputs) { experienceId } }`;
  for (let from = 0; from < EXPERIENCES; from += 200) {
    const inputs = Array.from({ length: 200 }, (_, j) => ({
      primaryGoalDescription: `Goal ${from + j}: plan the report number ${(from + j) % 97}`,
      subTaskDescription: `Sub-task ${from + j}`,
      inputContextSummary: `Context ${(from + j) % 31}`,
      outputSummary: 'Done.',
      initiatingAgentId: `agent-${(from + j) % 5}`,
      finalOutcome: 'SUCCESS',
    }));
    const response = await fetch(url, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ query: record, variables: { inputs } }),
    });
    const result = (await response.json()) as { errors?: unknown };
    if (result.errors) throw new Error(JSON.stringify(result.errors));
  }
}

export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export interface Target {
  name: string;
  server: Child;
  headers: Record<string, string>;
}

export type Run = LoadResult & { cpuMsPerRequest: number };

/** A server at rest uses less CPU than this per second (ms): timers and heartbeats only. */
const AT_REST_CPU_MS = 30;
const SETTLE_LIMIT_MS = 180_000;

/**
 * Waits until every server is at rest: after seeding, each builds its search graphs and saves snapshots in the
 * background, and a server seeded last would otherwise spend the first rounds' CPU on that, not on the reads.
 */
export async function settle(servers: Child[]): Promise<void> {
  const started = Date.now();
  for (;;) {
    const before = servers.map((server) => processCpuMs(server.pid) ?? NaN);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const used = servers.map((server, i) => (processCpuMs(server.pid) ?? NaN) - before[i]);
    if (used.every((ms) => ms < AT_REST_CPU_MS)) {
      console.error(`servers at rest after ${Math.round((Date.now() - started) / 1000)} s`);
      return;
    }
    if (Date.now() - started > SETTLE_LIMIT_MS) {
      console.error(
        `servers still busy after ${SETTLE_LIMIT_MS / 1000} s (CPU ms in the last second: ${used}); going on`,
      );
      return;
    }
  }
}

export interface PairedOptions {
  together?: boolean;
  warmupSeconds?: number;
  /** The next request's GraphQL body. */
  request?: () => string;
}

/**
 * `rounds` rounds of `seconds` of `request` (READ by default) on each target (after 1 s of warm-up), once every server is at rest and has
 * had `warmupSeconds` of it, not counted (the environment's WARMUP_SECONDS overrides it). A fresh server's JIT keeps
 * compiling on V8's own threads for many seconds of load (at 800 req/s, those threads used about 240 µs of CPU per
 * request in a server's first 4 s and 60-80 µs after 14 s), and a server with more code to compile pays more of it in
 * the first rounds. By default the targets take turns, in a new order each round; `together` loads them all at
 * once instead, each with its own CONNECTIONS, so that they share the machine's state second by second: on a machine
 * whose speed drifts within a round, that leaves what each server costs per request as the difference between them.
 */
export async function pairedRounds(
  targets: Target[],
  rounds: number,
  seconds: number,
  { together = false, warmupSeconds = 15, request = () => READ }: PairedOptions = {},
): Promise<Record<string, Run[]>> {
  await settle(targets.map((target) => target.server));
  const unmeasuredSeconds = Number(process.env.WARMUP_SECONDS ?? warmupSeconds);
  const runs: Record<string, Run[]> = Object.fromEntries(targets.map(({ name }) => [name, []]));
  const load = (target: Target, duration: number, warmup: number) =>
    measureLoad({
      base: target.server.url.replace(/\/graphql$/, ''),
      headers: target.headers,
      connections: CONNECTIONS,
      duration,
      warmup,
      next: () => ({ path: '/graphql', body: request() }),
    });
  if (unmeasuredSeconds > 0) for (const target of targets) await load(target, unmeasuredSeconds, 0);
  const measure = async (target: Target, round: number) => {
    const base = target.server.url.replace(/\/graphql$/, '');
    const before = { cpuMs: processCpuMs(target.server.pid) ?? NaN, metrics: await readMetrics(base) };
    const result = await load(target, seconds, 1);
    if (result.failures) throw new Error(`${target.name}: ${result.firstFailure}`);
    // Over every request of the load, warm-up included (its CPU is counted too).
    const requests = (await readMetrics(base)).graphqlRequests - before.metrics.graphqlRequests;
    const cpuMs = (processCpuMs(target.server.pid) ?? NaN) - before.cpuMs;
    const cpuMsPerRequest = Math.round((cpuMs / requests) * 1000) / 1000;
    console.error(`${target.name} round ${round + 1}: ${result.reqPerSec} req/s, ${cpuMsPerRequest} CPU ms/request`);
    return { ...result, cpuMsPerRequest };
  };
  for (let round = 0; round < rounds; round++) {
    if (together) {
      const results = await Promise.all(targets.map((target) => measure(target, round)));
      targets.forEach((target, i) => runs[target.name].push(results[i]));
      continue;
    }
    // A new order each round, so no server always runs right after another (or first, on a cooler machine).
    const order = [...targets].sort(() => Math.random() - 0.5);
    for (const target of order) runs[target.name].push(await measure(target, round));
  }
  return runs;
}

/** Each target's rounds and their medians. */
export function summary(runs: Record<string, Run[]>) {
  return Object.fromEntries(
    Object.entries(runs).map(([name, list]) => [
      name,
      {
        reqPerSec: list.map((run) => run.reqPerSec),
        medianReqPerSec: median(list.map((run) => run.reqPerSec)),
        medianP50Ms: median(list.map((run) => run.p50Ms)),
        cpuMsPerRequest: list.map((run) => run.cpuMsPerRequest),
        medianCpuMsPerRequest: median(list.map((run) => run.cpuMsPerRequest)),
      },
    ]),
  );
}

const percent = (ratio: number) => Math.round((ratio - 1) * 1000) / 10;

/** Resamplings of the rounds behind each interval. */
const RESAMPLES = 4000;

/**
 * The median of `ratios`, in %, and the 90% interval around it that resampling the rounds gives (a bootstrap of the
 * median): how far the rounds' spread leaves the figure uncertain.
 */
function medianWithInterval(ratios: number[]): { percent: number; interval90: [number, number] } {
  const medians: number[] = [];
  for (let i = 0; i < RESAMPLES; i++) {
    medians.push(median(ratios.map(() => ratios[Math.floor(Math.random() * ratios.length)])));
  }
  medians.sort((a, b) => a - b);
  return {
    percent: percent(median(ratios)),
    interval90: [percent(medians[Math.floor(RESAMPLES * 0.05)]), percent(medians[Math.floor(RESAMPLES * 0.95)])],
  };
}

/** `name` against `reference`, paired by round (the machine's drift cancels out of each ratio), in % (+: more). */
export function versus(runs: Record<string, Run[]>, name: string, reference: string) {
  const pairs = runs[name].map((run, i) => ({ run, ref: runs[reference][i] }));
  const reqPerSec = medianWithInterval(pairs.map(({ run, ref }) => run.reqPerSec / ref.reqPerSec));
  const cpuPerRequest = medianWithInterval(pairs.map(({ run, ref }) => run.cpuMsPerRequest / ref.cpuMsPerRequest));
  return {
    reqPerSecPercent: reqPerSec.percent,
    reqPerSecInterval90: reqPerSec.interval90,
    cpuPerRequestPercent: cpuPerRequest.percent,
    cpuPerRequestInterval90: cpuPerRequest.interval90,
  };
}
