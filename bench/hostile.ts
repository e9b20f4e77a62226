/**
 * `npm run bench:hostile`: what the hostile-query defences cost and allow (docs/performance.md, "Hostile queries").
 * - the heaviest query the default limits admit: candidate shapes built from the cost model (src/graphql/query-limits.ts)
 *   at the limits, each sent once; the slowest admitted one's time and the server's RSS before and after;
 * The cost of the checks per request is `npm run bench:checks` (bench/checks-cost.ts): the limits' rules run once per
 * distinct document, so they add nothing to a repeated read.
 * Servers run as users run them (`node dist/src/main.js`, hash embedder, embedded engine in a temporary DATA_DIR).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { processMemory, startServer, type Child } from './processes';

const EXPERIENCES = 2000;

function start(dataDir: string, env: Record<string, string>): Promise<Child> {
  return startServer({ dataDir, env: { LOG_LEVEL: 'warn', ...env } });
}

async function post(url: string, query: string, variables: Record<string, unknown> = {}): Promise<any> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  return response.json();
}

async function seed(url: string): Promise<void> {
  const record = `mutation ($inputs: [RecordExperienceInput!]!) { recordExperiences(inputs: $inputs) { experienceId } }`;
  for (let from = 0; from < EXPERIENCES; from += 200) {
    const inputs = Array.from({ length: 200 }, (_, j) => {
      const i = from + j;
      return {
        primaryGoalDescription: `Goal ${i}: ${['book', 'plan', 'fix', 'deploy', 'write'][i % 5]} the ${['flight', 'report', 'build', 'service', 'email'][(i % 7) % 5]} number ${i % 97}`,
        subTaskDescription: `Sub-task ${i}`,
        inputContextSummary: `Context ${i % 31}`,
        outputSummary: 'Done.',
        initiatingAgentId: `agent-${i % 5}`,
        finalOutcome: 'SUCCESS',
      };
    });
    const result = await post(url, record, { inputs });
    if (result.errors) throw new Error(JSON.stringify(result.errors));
  }
}

/** Shapes at the default limits (cost 30,000, depth 12, 30 aliases): the costliest reads the cost model admits. */
function candidates(id: string): Record<string, string> {
  const nested = (levels: number, limit: number) => {
    let selection = 'experienceId';
    for (let level = 0; level < levels; level++)
      selection = `experienceId similar(limit: ${limit}) { score experience { ${selection} } }`;
    return selection;
  };
  return {
    'similar → similar, 2 deep, limit 100 (from one experience)': `{ experience(id: "${id}") { ${nested(2, 100)} } }`,
    'experiences(first: 500) × similar(limit: 20)': `{ experiences(first: 500) { edges { node { similar(limit: 20) { score } } } } }`,
    'experiences(first: 500) × similar(limit: 50)': `{ experiences(first: 500) { edges { node { similar(limit: 50) { score } } } } }`,
    '30 aliases × searchExperiences(limit: 50, HYBRID)': `{ ${Array.from({ length: 30 }, (_, i) => `a${i}: searchExperiences(query: "plan the report ${i}", limit: 50, mode: HYBRID) { score }`).join(' ')} }`,
    'similar → similar → similar, 3 deep, limit 100': `{ experience(id: "${id}") { ${nested(3, 100)} } }`,
  };
}

async function heaviest(url: string, pid: number) {
  const first = await post(url, '{ experiences(first: 1) { edges { node { experienceId } } } }');
  const id = first.data.experiences.edges[0].node.experienceId as string;
  const rows = [];
  for (const [name, query] of Object.entries(candidates(id))) {
    const before = processMemory(pid);
    const started = performance.now();
    const result = await post(url, query);
    const ms = Math.round(performance.now() - started);
    const after = processMemory(pid);
    const code = result.errors?.[0]?.extensions?.code;
    rows.push({
      name,
      admitted: !code,
      code,
      ms,
      rssBeforeMB: before?.rssMB,
      rssAfterMB: after?.rssMB,
      peakMB: after?.peakMB,
    });
  }
  return rows;
}

async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'hindsight-hostile-'));
  try {
    const server = await start(dir, {});
    await seed(server.url);
    const rows = await heaviest(server.url, server.pid);
    await server.stop();
    console.log(
      JSON.stringify(
        {
          experiences: EXPERIENCES,
          heaviest: rows,
        },
        null,
        2,
      ),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
