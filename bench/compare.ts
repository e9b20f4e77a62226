/**
 * `npm run bench:compare -- <base root>`: this build against another build of the server (a checkout built with
 * `npm run build`), side by side in one run: both servers run at once (hash embedder, embedded engine, each its own
 * temporary DATA_DIR, the same data recorded through the API), and each operation is compared in paired rounds
 * (paired.ts), so that what a change costs shows apart from the machine's drift. A change that must make nothing
 * slower is held to it here.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { seededRandom } from '../test/support/vectors';
import { EXPERIENCES, READ, pairedRounds, seed, summary, versus } from './paired';
import { ROOT, startServer, type Child } from './processes';
import { experienceTexts, userMessage } from './seed';

const ROUNDS = Number(process.env.ROUNDS ?? 8);
const SECONDS = Number(process.env.SECONDS ?? 3);
const SESSIONS = 20;

/** The operations compared: reads, a search and two writes, each a body generator over the seeded data. */
function operations(): Array<{ name: string; request: () => string }> {
  const r = seededRandom(11);
  const body = (query: string, variables: Record<string, unknown>) => JSON.stringify({ query, variables });
  let written = 0;
  return [
    { name: 'experiences page', request: () => READ },
    {
      name: 'searchExperiences (HYBRID)',
      request: () =>
        body('query ($q: String!) { searchExperiences(query: $q, limit: 10) { score experience { experienceId } } }', {
          q: experienceTexts(r).primaryGoalDescription,
        }),
    },
    {
      name: 'recordExperience',
      request: () =>
        body('mutation ($input: RecordExperienceInput!) { recordExperience(input: $input) { experienceId } }', {
          input: { ...experienceTexts(r), initiatingAgentId: `agent-${written++ % 5}`, finalOutcome: 'SUCCESS' },
        }),
    },
    {
      name: 'appendMessage',
      request: () =>
        body(
          'mutation ($s: ID!, $input: AppendMessageInput!) { appendMessage(sessionId: $s, agentId: "a1", input: $input) { messageId } }',
          { s: `compare-${Math.floor(r() * SESSIONS)}`, input: { role: 'USER', content: userMessage(r) } },
        ),
    },
  ];
}

/** The sessions appendMessage writes to, each with agent `a1`. */
async function seedSessions(url: string): Promise<void> {
  for (let i = 0; i < SESSIONS; i++) {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: `mutation { createSession(input: { sessionId: "compare-${i}" }) { sessionId } upsertAgent(sessionId: "compare-${i}", input: { agentId: "a1", agentData: {} }) { agentId } }`,
      }),
    });
    const result = (await response.json()) as { errors?: unknown };
    if (result.errors) throw new Error(JSON.stringify(result.errors));
  }
}

async function main(): Promise<void> {
  if (!process.argv[2]) throw new Error('usage: npm run bench:compare -- <root of a built checkout to compare with>');
  const baseRoot = path.resolve(process.argv[2]);
  const dirs = await Promise.all([0, 1].map(() => mkdtemp(path.join(os.tmpdir(), 'hindsight-compare-'))));
  const servers: Child[] = [];
  try {
    const base = await startServer({ root: baseRoot, dataDir: dirs[0], env: { LOG_LEVEL: 'warn' } });
    servers.push(base);
    const current = await startServer({ root: ROOT, dataDir: dirs[1], env: { LOG_LEVEL: 'warn' } });
    servers.push(current);
    for (const server of servers) {
      await seed(server.url);
      await seedSessions(server.url);
    }
    const results: Record<string, unknown> = {};
    for (const { name, request } of operations()) {
      console.error(`${name}:`);
      // Both servers draw from one stream: the rounds alternate, so each gets requests of the same kind.
      const runs = await pairedRounds(
        [
          { name: 'base', server: base, headers: {} },
          { name: 'current', server: current, headers: {} },
        ],
        ROUNDS,
        SECONDS,
        { request, warmupSeconds: 5 },
      );
      results[name] = { ...summary(runs), currentVsBase: versus(runs, 'current', 'base') };
    }
    console.log(JSON.stringify({ experiences: EXPERIENCES, rounds: ROUNDS, seconds: SECONDS, results }, null, 2));
  } finally {
    for (const server of servers) await server.stop();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
