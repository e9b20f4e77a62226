/**
 * `npm run bench:checks -- <base root>`: req/s of a representative read over HTTP on this build against another
 * build of the server (a checkout before the per-request security work, built with `npm run build`), to show what the
 * checks cost per request: key lookup, auth checker, rate limiter, request lifetime and bound Db, query limits.
 * The servers run at once, as users run them (hash embedder, embedded engine, each its own temporary DATA_DIR, same
 * seed); short loads alternate between them, in a new order each round, and each comparison is the median of the
 * rounds' ratios, so drift of the shared machine cancels out. `checked` is this
 * build with API_KEYS, so each request resolves a key and takes a token from its bucket (the limit set high enough
 * never to refuse); `anonymous` is this build without keys. Besides req/s, each server's CPU ms per request (from
 * /proc), steadier than req/s when other processes share the machine.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { measureLoad, readMetrics, type LoadResult } from './load';
import { processCpuMs, ROOT, startServer, type Child } from './processes';

const EXPERIENCES = 2000;
const ROUNDS = Number(process.env.ROUNDS ?? 12);
const SECONDS = Number(process.env.SECONDS ?? 3);
const CONNECTIONS = 20;
const KEY = 'bench-key-0123456789abcdef';
const READ = JSON.stringify({
  query: '{ experiences(first: 20) { edges { node { experienceId primaryGoalDescription } } } }',
});

function start(root: string, dataDir: string, env: Record<string, string>): Promise<Child> {
  return startServer({ root, dataDir, env: { LOG_LEVEL: 'warn', ...env } });
}

async function seed(url: string, headers: Record<string, string>): Promise<void> {
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

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main(): Promise<void> {
  const baseRoot = path.resolve(process.argv[2] ?? '');
  if (!process.argv[2]) throw new Error('usage: npm run bench:checks -- <root of a built checkout to compare with>');
  const dirs = await Promise.all([0, 1, 2].map(() => mkdtemp(path.join(os.tmpdir(), 'hindsight-checks-'))));
  const auth = { authorization: `Bearer ${KEY}` };
  const servers: Child[] = [];
  try {
    const base = await start(baseRoot, dirs[0], {});
    servers.push(base);
    const checked = await start(ROOT, dirs[1], { API_KEYS: `${KEY}:admin`, RATE_LIMIT_PER_MIN: '100000000' });
    servers.push(checked);
    const anonymous = await start(ROOT, dirs[2], {});
    servers.push(anonymous);
    await seed(base.url, {});
    await seed(checked.url, auth);
    await seed(anonymous.url, {});
    const targets = [
      { name: 'base', server: base, headers: {} },
      { name: 'checked', server: checked, headers: auth },
      { name: 'anonymous', server: anonymous, headers: {} },
    ];
    const runs: Record<string, Array<LoadResult & { cpuMsPerRequest: number }>> = {
      base: [],
      checked: [],
      anonymous: [],
    };
    for (let round = 0; round < ROUNDS; round++) {
      // A new order each round, so no server always runs right after another (or first, on a cooler machine).
      const order = [...targets].sort(() => Math.random() - 0.5);
      for (const target of order) {
        const base = target.server.url.replace(/\/graphql$/, '');
        const before = { cpuMs: processCpuMs(target.server.pid) ?? NaN, metrics: await readMetrics(base) };
        const result = await measureLoad({
          base,
          headers: target.headers,
          connections: CONNECTIONS,
          duration: SECONDS,
          warmup: 1,
          next: () => ({ path: '/graphql', body: READ }),
        });
        if (result.failures) throw new Error(`${target.name}: ${result.firstFailure}`);
        // Over every request of the load, warm-up included (its CPU is counted too).
        const requests = (await readMetrics(base)).graphqlRequests - before.metrics.graphqlRequests;
        const cpuMs = (processCpuMs(target.server.pid) ?? NaN) - before.cpuMs;
        const cpuMsPerRequest = Math.round((cpuMs / requests) * 1000) / 1000;
        runs[target.name].push({ ...result, cpuMsPerRequest });
        console.error(
          `${target.name} round ${round + 1}: ${result.reqPerSec} req/s, ${cpuMsPerRequest} CPU ms/request`,
        );
      }
    }
    const summary = (name: string) => ({
      reqPerSec: runs[name].map((run) => run.reqPerSec),
      medianReqPerSec: median(runs[name].map((run) => run.reqPerSec)),
      medianP50Ms: median(runs[name].map((run) => run.p50Ms)),
      cpuMsPerRequest: runs[name].map((run) => run.cpuMsPerRequest),
      medianCpuMsPerRequest: median(runs[name].map((run) => run.cpuMsPerRequest)),
    });
    const report = Object.fromEntries(targets.map(({ name }) => [name, summary(name)]));
    // Paired by round: the machine's drift between rounds cancels out of each ratio, then the median of the rounds.
    const percent = (ratio: number) => Math.round((ratio - 1) * 1000) / 10;
    const versus = (name: string, reference: string) => {
      const pairs = runs[name].map((run, i) => ({ run, ref: runs[reference][i] }));
      return {
        reqPerSecPercent: percent(median(pairs.map(({ run, ref }) => run.reqPerSec / ref.reqPerSec))),
        cpuPerRequestPercent: percent(median(pairs.map(({ run, ref }) => run.cpuMsPerRequest / ref.cpuMsPerRequest))),
      };
    };
    console.log(
      JSON.stringify(
        {
          experiences: EXPERIENCES,
          connections: CONNECTIONS,
          seconds: SECONDS,
          ...report,
          // The key lookup and the rate limiter: the same build with and without keys.
          checkedVsAnonymous: versus('checked', 'anonymous'),
          checkedVsBase: versus('checked', 'base'),
          anonymousVsBase: versus('anonymous', 'base'),
        },
        null,
        2,
      ),
    );
  } finally {
    for (const server of servers) await server.stop();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
