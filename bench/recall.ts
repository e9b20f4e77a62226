/**
 * `npm run bench:recall [-- experiences=100000 sessions=1000 messages=1000 tasks=10000 learned=500 insights=300
 * requests=300]`: recall's one-connection latency with all parts (issue 42 target: p95 ≤ 60 ms at 100k experiences
 * and 1M messages), and each part's alone. Defaults are the target sizes; pass smaller ones to try it. Seeded through
 * the driver into a standalone engine on a temporary DATA_DIR (bench/seed.ts, plus a recorded action with tool calls
 * on every task, some failing), which the server (`node dist/src/main.js`, hash embedder, in-process index) then
 * starts on; plans and insights are then written through the API (learnFromTask, recordInsight). Requests go one
 * after another over one keep-alive connection.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MongoClient, type AnyBulkWriteOperation, type Db, type Document } from 'mongodb';
import { postGraphQL } from './load';
import { startEngine, startServer } from './processes';
import { percentile } from './report';
import { seedDatabase, type SeedManifest } from './seed';
import { targetRows, type TargetCheck } from './targets';

const TARGET_P95_MS = 60;
const TARGET = { experiences: 100_000, messages: 1_000_000 };
const DEFAULTS = {
  experiences: 100_000,
  sessions: 1000,
  messages: 1000,
  tasks: 10_000,
  learned: 500,
  insights: 300,
  requests: 300,
};
type Sizes = typeof DEFAULTS;
const PARTS = ['EXPERIENCES', 'INSIGHTS', 'PLANS', 'TOOL_WARNINGS', 'MESSAGES'] as const;

const log = (line: string) => console.error(`[bench:recall] ${line}`);

function parseSizes(args: string[]): Sizes {
  const sizes = { ...DEFAULTS };
  for (const arg of args) {
    const [name, value] = arg.split('=');
    if (!(name in sizes) || !(Number(value) >= 0))
      throw new Error(`Unknown size ${arg}: use name=count, names ${Object.keys(DEFAULTS).join(', ')}`);
    sizes[name as keyof Sizes] = Math.floor(Number(value));
  }
  return sizes;
}

/** Gives every task one recorded action calling its plan's tools; about one call in five fails. */
async function addActions(db: Db): Promise<void> {
  const tasks = db.collection('tasks');
  let batch: AnyBulkWriteOperation<Document>[] = [];
  let n = 0;
  for await (const task of tasks.find({}, { projection: { _id: 0, taskId: 1, steps: 1, createdAt: 1 } })) {
    const calls = (task.steps as Array<{ action: string }>).map((step, i) => {
      const failed = (n * 7 + i * 3) % 5 === 0;
      return {
        name: step.action,
        args: {},
        result: failed ? 'Upstream timeout after 30 s' : 'ok',
        result_truncated: false,
        outcome: failed ? 'timeout' : 'success',
        execution_time: 50 + ((n + i) % 20) * 25,
        insights: '',
        learning: '',
        relevance: '',
      };
    });
    n++;
    const action = {
      iteration: 0,
      timestamp: task.createdAt,
      mode: 'fast',
      thinking: '',
      planning: '',
      reflection: '',
      approach: '',
      tool_calls: calls,
      synthesis: '',
      progress: '',
      hypothesis: { belief: '', test: '' },
    };
    batch.push({ updateOne: { filter: { taskId: task.taskId }, update: { $set: { actions: [action] } } } });
    if (batch.length === 1000) {
      await tasks.bulkWrite(batch, { ordered: false });
      batch = [];
    }
  }
  if (batch.length) await tasks.bulkWrite(batch, { ordered: false });
}

async function seed(dataDir: string, sizes: Sizes): Promise<SeedManifest> {
  const engine = await startEngine(dataDir);
  const client = await MongoClient.connect(engine.url, { ignoreUndefined: true });
  try {
    const db = client.db('hindsight');
    const manifest = await seedDatabase(
      db,
      {
        sessions: sizes.sessions,
        agentsPerSession: 1,
        messagesPerAgent: sizes.messages,
        experiences: sizes.experiences,
        tasks: sizes.tasks,
        tools: 20,
      },
      log,
    );
    await addActions(db);
    log(`added actions to ${sizes.tasks} tasks`);
    return manifest;
  } finally {
    await client.close();
    await engine.stop();
  }
}

/** Plans (learnFromTask on the first `learned` tasks) and insights, written through the server. */
async function writeThroughApi(url: string, sizes: Sizes, manifest: SeedManifest): Promise<void> {
  for (let i = 0; i < Math.min(sizes.learned, sizes.tasks); i++) {
    await postGraphQL(
      url,
      `mutation($id: ID!) { learnFromTask(input: { taskId: $id, status: COMPLETED,
        metrics: { executionTime: 1000, stepsCompleted: 3 }, countToolExecutions: false }) { success } }`,
      { id: `bench-task-${String(i).padStart(6, '0')}` },
    );
  }
  const agentTypes = ['EXECUTOR', 'PLANNER', 'THOUGHT'];
  for (let i = 0; i < sizes.insights; i++) {
    const about = manifest.experienceQueries[i % manifest.experienceQueries.length];
    await postGraphQL(url, `mutation($input: RecordInsightInput!) { recordInsight(input: $input) { id } }`, {
      input: {
        agentType: agentTypes[i % 3],
        type: 'PATTERNS',
        insight: `${about}: check the inputs first (lesson ${i})`,
        confidence: (i % 10) / 10,
      },
    });
  }
  log(`learned ${Math.min(sizes.learned, sizes.tasks)} tasks, recorded ${sizes.insights} insights`);
}

const RECALL = `query($q: String!, $include: [RecallPart!]) {
  recall(query: $q, include: $include) { tokens items { kind id } } }`;

async function measure(url: string, queries: string[], requests: number, include: string[] | null) {
  for (let i = 0; i < Math.min(20, requests); i++)
    await postGraphQL(url, RECALL, { q: queries[i % queries.length], include });
  const latencies: number[] = [];
  let items = 0;
  for (let i = 0; i < requests; i++) {
    const started = performance.now();
    const data = await postGraphQL(url, RECALL, { q: queries[i % queries.length], include });
    latencies.push(performance.now() - started);
    items += data.recall.items.length;
  }
  const ms = (p: number) => Number(percentile(latencies, p).toFixed(1));
  return { p50Ms: ms(0.5), p95Ms: ms(0.95), maxMs: ms(1), itemsPerAnswer: Number((items / requests).toFixed(1)) };
}

async function main(): Promise<void> {
  const sizes = parseSizes(process.argv.slice(2));
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'hindsight-recall-'));
  try {
    const manifest = await seed(dataDir, sizes);
    const server = await startServer({ dataDir, env: { LOG_LEVEL: 'warn', MESSAGE_INDEX: 'true' } });
    try {
      await writeThroughApi(server.url, sizes, manifest);
      const queries = manifest.taskQueries.map((query) => query.query);
      const all = await measure(server.url, queries, sizes.requests, null);
      const parts: Record<string, Awaited<ReturnType<typeof measure>>> = {};
      for (const part of PARTS) parts[part] = await measure(server.url, queries, Math.ceil(sizes.requests / 3), [part]);
      const messages = sizes.sessions * sizes.messages;
      const atTarget = sizes.experiences >= TARGET.experiences && messages >= TARGET.messages;
      const checks: TargetCheck[] = [
        {
          target: `recall, all parts, one connection: p95 ≤ ${TARGET_P95_MS} ms at 100k experiences and 1M messages`,
          figure: `p95 ${all.p95Ms} ms at ${sizes.experiences} experiences, ${messages} messages`,
          met: atTarget ? all.p95Ms <= TARGET_P95_MS : null,
        },
      ];
      console.log(JSON.stringify({ sizes, messages, all, parts }, null, 2));
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
