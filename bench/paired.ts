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

/** `rounds` rounds of `seconds` of READ on each target (after 1 s of warm-up), in a new order each round. */
export async function pairedRounds(targets: Target[], rounds: number, seconds: number): Promise<Record<string, Run[]>> {
  const runs: Record<string, Run[]> = Object.fromEntries(targets.map(({ name }) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    // A new order each round, so no server always runs right after another (or first, on a cooler machine).
    const order = [...targets].sort(() => Math.random() - 0.5);
    for (const target of order) {
      const base = target.server.url.replace(/\/graphql$/, '');
      const before = { cpuMs: processCpuMs(target.server.pid) ?? NaN, metrics: await readMetrics(base) };
      const result = await measureLoad({
        base,
        headers: target.headers,
        connections: CONNECTIONS,
        duration: seconds,
        warmup: 1,
        next: () => ({ path: '/graphql', body: READ }),
      });
      if (result.failures) throw new Error(`${target.name}: ${result.firstFailure}`);
      // Over every request of the load, warm-up included (its CPU is counted too).
      const requests = (await readMetrics(base)).graphqlRequests - before.metrics.graphqlRequests;
      const cpuMs = (processCpuMs(target.server.pid) ?? NaN) - before.cpuMs;
      const cpuMsPerRequest = Math.round((cpuMs / requests) * 1000) / 1000;
      runs[target.name].push({ ...result, cpuMsPerRequest });
      console.error(`${target.name} round ${round + 1}: ${result.reqPerSec} req/s, ${cpuMsPerRequest} CPU ms/request`);
    }
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

/** `name` against `reference`, paired by round (the machine's drift cancels out of each ratio), in % (+: more). */
export function versus(runs: Record<string, Run[]>, name: string, reference: string) {
  const pairs = runs[name].map((run, i) => ({ run, ref: runs[reference][i] }));
  return {
    reqPerSecPercent: percent(median(pairs.map(({ run, ref }) => run.reqPerSec / ref.reqPerSec))),
    cpuPerRequestPercent: percent(median(pairs.map(({ run, ref }) => run.cpuMsPerRequest / ref.cpuMsPerRequest))),
  };
}
