/**
 * `npm run bench:forget [-- <scale>]`: how long `forget` of one user takes and how searches fare meanwhile
 * (docs/performance.md, "Forgetting"). Scale 1 (the default) is the issue's target size: the user has 10k experiences,
 * 500 tasks and 100 sessions of 1,000 messages (100k), among as much of other users'. Seeded through the driver into a
 * standalone engine on a temporary DATA_DIR, which the server (`node dist/src/main.js`, hash embedder, in-process
 * index) then starts on; one client searches back to back while another runs forget through the server.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MongoClient, type Db } from 'mongodb';
import { postGraphQL } from './load';
import { startEngine, startServer } from './processes';
import { percentile } from './report';
import { seedDatabase, type SeedManifest } from './seed';
import { targetRows, type TargetCheck } from './targets';

const USER = 'bench-forget-user';
const FORGET_MAX_MS = 10_000;
const MESSAGES_PER_SESSION = 1000;

const log = (line: string) => console.error(`[bench:forget] ${line}`);

/** Gives every other session, experience and task to USER (`user_id`, written through the driver: faster than the API). */
async function giveHalfToUser(db: Db, manifest: SeedManifest): Promise<void> {
  const sessions = manifest.sessions.filter((_, i) => i % 2 === 0).map((session) => session.id);
  await db.collection('sessions').updateMany({ _id: { $in: sessions as never[] } }, { $set: { user_id: USER } });
  for (const [name, idField] of [
    ['eat_agent_experiences', 'experience_id'],
    ['tasks', 'taskId'],
  ] as const) {
    const ids = (
      await db
        .collection(name)
        .find({}, { projection: { _id: 0, [idField]: 1 } })
        .toArray()
    ).map((row) => row[idField] as string);
    await db.collection(name).updateMany(
      { [idField]: { $in: ids.filter((_, i) => i % 2 === 0) } },
      {
        $set: { user_id: USER },
      },
    );
  }
}

async function seed(dataDir: string, scale: number): Promise<SeedManifest> {
  const engine = await startEngine(dataDir);
  const client = await MongoClient.connect(engine.url, { ignoreUndefined: true });
  try {
    const sizes = {
      sessions: Math.max(2, Math.round(200 * scale)),
      agentsPerSession: 1,
      messagesPerAgent: MESSAGES_PER_SESSION,
      experiences: Math.max(2, Math.round(20_000 * scale)),
      tasks: Math.max(2, Math.round(1_000 * scale)),
      tools: 20,
    };
    const manifest = await seedDatabase(client.db('hindsight'), sizes, log);
    await giveHalfToUser(client.db('hindsight'), manifest);
    return manifest;
  } finally {
    await client.close();
    await engine.stop();
  }
}

/** Searches back to back until `until` settles; each latency in ms, and the errors. */
async function searchDuring(url: string, queries: string[], until: Promise<unknown>) {
  let done = false;
  void until.finally(() => (done = true));
  const latencies: number[] = [];
  let errors = 0;
  for (let i = 0; !done; i++) {
    const started = performance.now();
    const answered = await postGraphQL(
      url,
      'query($q: String!) { searchExperiences(query: $q, limit: 10) { score } }',
      {
        q: queries[i % queries.length],
      },
    ).then(
      () => true,
      () => false,
    );
    latencies.push(performance.now() - started);
    if (!answered) errors++;
  }
  return { latencies, errors };
}

async function main(): Promise<void> {
  const scale = Number(process.argv[2] ?? '1');
  if (!(scale > 0)) throw new Error('The scale must be a positive number (1: the target size).');
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'hindsight-forget-'));
  try {
    const manifest = await seed(dataDir, scale);
    const server = await startServer({ dataDir, env: { LOG_LEVEL: 'warn' } });
    try {
      const queries = manifest.experienceQueries;
      const before = await searchDuring(server.url, queries, new Promise((resolve) => setTimeout(resolve, 3000)));
      const started = performance.now();
      const forgetting = postGraphQL(
        server.url,
        `mutation($u: ID!) { forget(scope: { userId: $u }) {
          searchEntriesRemoved erasedFromDisk counts { collection deleted changed messagesRemoved } } }`,
        { u: USER },
      ).then((data) => ({ data, ms: performance.now() - started }));
      const during = await searchDuring(server.url, queries, forgetting);
      const { data, ms } = await forgetting;
      const report = data.forget;
      const p95 = (values: number[]) => Number(percentile(values, 0.95).toFixed(1));
      const counts = Object.fromEntries(report.counts.map(({ collection, ...rest }: any) => [collection, rest]));
      const checks: TargetCheck[] = [
        {
          target: `forget of a user with 10k experiences and 100k messages ≤ ${FORGET_MAX_MS / 1000} s`,
          figure: `${(ms / 1000).toFixed(2)} s at scale ${scale} (${counts.eat_agent_experiences.deleted} experiences, ${counts.sessions.messagesRemoved} messages)`,
          met: scale >= 1 ? ms <= FORGET_MAX_MS : null,
        },
        {
          target: 'searches keep answering during forget',
          figure: `${during.latencies.length} searches, ${during.errors} errors, p95 ${p95(during.latencies)} ms (before: ${p95(before.latencies)} ms)`,
          met: during.latencies.length > 0 && during.errors === 0,
        },
      ];
      console.log(
        JSON.stringify(
          {
            scale,
            forgetMs: Math.round(ms),
            report: { ...report, counts },
            search: {
              before: { requests: before.latencies.length, p95Ms: p95(before.latencies) },
              during: {
                requests: during.latencies.length,
                errors: during.errors,
                p95Ms: p95(during.latencies),
                maxMs: Number(Math.max(...during.latencies).toFixed(1)),
              },
            },
          },
          null,
          2,
        ),
      );
      console.table(targetRows(checks));
    } finally {
      await server.stop();
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
