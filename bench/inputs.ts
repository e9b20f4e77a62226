/**
 * `npm run bench:inputs`: long single tokens in every text field (docs/performance.md, "Hostile inputs").
 * - each text field of recordExperiences, appendMessage, recordTask, recordAction and recordInsight given one token of
 *   64 KB, 1 MB and 12 MB (ASCII letters and digits, then multi-byte letters): the answer (stored, or BAD_USER_INPUT
 *   naming the field and its limit) within 50 ms / 1 s / 3 s, while `/health`, polled from another thread over its own
 *   connection, keeps a p99 of at most 200 ms;
 * - searchExperiences (KEYWORD and HYBRID) and similarTasks (query, goal) with a 100 KB single-token query: ≤ 200 ms.
 * Prints each target as met or missed and exits 1 on a miss. Servers run as users run them (`node dist/src/main.js`,
 * hash embedder, embedded engine in a temporary DATA_DIR). `SIZES=64K,1M` runs only those sizes.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { startServer } from './processes';

const KB = 1024;
const MB = 1024 * KB;
const SIZES: Array<{ name: string; bytes: number; limitMs: number }> = [
  { name: '64K', bytes: 64 * KB, limitMs: 50 },
  { name: '1M', bytes: MB, limitMs: 1000 },
  { name: '12M', bytes: 12 * MB, limitMs: 3000 },
];
const SEARCH_QUERY_BYTES = 100 * KB;
const SEARCH_LIMIT_MS = 200;
const HEALTH_P99_LIMIT_MS = 200;
/** Runs per case of up to 1 MB (the median counts: the machine is shared); one of 12 MB. */
const RUNS_SMALL = 3;

/** One token of `bytes` UTF-8 bytes: letters and digits only (no separator), pseudo-random so nothing compresses it. */
function token(bytes: number, multiByte: boolean): string {
  const alphabet = multiByte
    ? 'éжλßøдяΩ漢字語ひらがな'
    : 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  const parts: string[] = [];
  let seed = 12345;
  let size = 0;
  while (size < bytes) {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    const char = alphabet[(seed >>> 8) % alphabet.length];
    const length = Buffer.byteLength(char);
    if (size + length > bytes) break;
    parts.push(char);
    size += length;
  }
  return parts.join('');
}

interface Case {
  operation: string;
  field: string;
  query: string;
  variables: (text: string, n: number) => Record<string, unknown>;
}

const EXPERIENCE = (over: Record<string, unknown>, n: number) => ({
  primaryGoalDescription: `Plan the report ${n}`,
  subTaskDescription: 'Write the summary',
  initiatingAgentId: 'agent-1',
  finalOutcome: 'SUCCESS',
  ...over,
});
const ACTION = (over: Record<string, unknown>) => ({ mode: 'DEEP', approach: 'Look it up', ...over });
const TOOL_CALL = (over: Record<string, unknown>) => ({ name: 'search', outcome: 'SUCCESS', ...over });
const TASK = (over: Record<string, unknown>, n: number) => ({
  goal: `Book a flight ${n}`,
  originalQuery: 'book me a flight',
  status: 'COMPLETED',
  ...over,
});
const INSIGHT = (over: Record<string, unknown>, n: number) => ({
  agentType: 'EXECUTOR',
  type: 'PATTERNS',
  insight: `Retry the flaky tool ${n}`,
  ...over,
});

function cases(taskId: string): Case[] {
  const recordExperiences = `mutation ($inputs: [RecordExperienceInput!]!) { recordExperiences(inputs: $inputs) { experienceId } }`;
  const experience = (field: string, wrap: (text: string) => unknown = (text) => text): Case => ({
    operation: 'recordExperiences',
    field,
    query: recordExperiences,
    variables: (text, n) => ({ inputs: [EXPERIENCE({ [field.split(/[.[]/)[0]]: wrap(text) }, n)] }),
  });
  const appendMessage = `mutation ($content: JSON!) { appendMessage(sessionId: "bench-s", agentId: "bench-a", input: { role: USER, content: $content }) { messageId } }`;
  const recordTask = `mutation ($input: RecordTaskInput!) { recordTask(input: $input) { taskId } }`;
  const task = (field: string, wrap: (text: string) => unknown = (text) => text): Case => ({
    operation: 'recordTask',
    field,
    query: recordTask,
    variables: (text, n) => ({ input: TASK({ [field.split(/[.[]/)[0]]: wrap(text) }, n) }),
  });
  const recordAction = `mutation ($input: RecordActionInput!) { recordAction(taskId: "${taskId}", input: $input) { action { iteration } } }`;
  const action = (field: string, input: (text: string) => Record<string, unknown>): Case => ({
    operation: 'recordAction',
    field,
    query: recordAction,
    variables: (text) => ({ input: ACTION(input(text)) }),
  });
  const recordInsight = `mutation ($input: RecordInsightInput!) { recordInsight(input: $input) { insight } }`;
  const insight = (field: string, over: (text: string) => Record<string, unknown>): Case => ({
    operation: 'recordInsight',
    field,
    query: recordInsight,
    variables: (text, n) => ({ input: INSIGHT(over(text), n) }),
  });
  return [
    experience('primaryGoalDescription'),
    experience('subTaskDescription'),
    experience('inputContextSummary'),
    experience('outputSummary'),
    experience('initiatingAgentId'),
    experience('workflowId'),
    experience('sessionId'),
    experience('tags', (text) => [text]),
    experience('involvedComponents', (text) => [text]),
    experience('keyDecisionsMade', (text) => [text]),
    experience('feedbackSignals.comment', (text) => ({ comment: text })),
    { operation: 'appendMessage', field: 'content', query: appendMessage, variables: (text) => ({ content: text }) },
    {
      operation: 'appendMessage',
      field: 'content[0].text',
      query: appendMessage,
      variables: (text) => ({ content: [{ text }] }),
    },
    task('goal'),
    task('originalQuery'),
    task('context'),
    task('steps[0].action', (text) => [{ action: text }]),
    action('approach', (text) => ({ approach: text })),
    action('thinking', (text) => ({ thinking: text })),
    action('planning', (text) => ({ planning: text })),
    action('reflection', (text) => ({ reflection: text })),
    action('synthesis', (text) => ({ synthesis: text })),
    action('hypothesis.belief', (text) => ({ hypothesis: { belief: text } })),
    action('toolCalls[0].name', (text) => ({ toolCalls: [TOOL_CALL({ name: text })] })),
    action('toolCalls[0].result', (text) => ({ toolCalls: [TOOL_CALL({ result: text })] })),
    action('toolCalls[0].insights', (text) => ({ toolCalls: [TOOL_CALL({ insights: text })] })),
    insight('insight', (text) => ({ insight: text })),
    insight('evidence[0].description', (text) => ({ evidence: [{ description: text, taskId }] })),
  ];
}

/** A keep-alive connection of its own, so `/health` never queues behind the bench's own requests. */
const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

function post(url: string, query: string, variables: Record<string, unknown>): Promise<{ ms: number; body: any }> {
  const body = JSON.stringify({ query, variables });
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const ms = performance.now() - started;
          const text = Buffer.concat(chunks).toString('utf8');
          try {
            resolve({ ms, body: JSON.parse(text) });
          } catch {
            resolve({
              ms,
              body: { errors: [{ message: text.slice(0, 200), extensions: { code: `HTTP ${response.statusCode}` } }] },
            });
          }
        });
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

/** The health poller (a worker thread): one request at a time on its own connection; latencies since `start`. */
function pollHealth(): void {
  const { url } = workerData as { url: string };
  const own = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let latencies: number[] = [];
  let running = true;
  parentPort!.on('message', (message: string) => {
    if (message === 'start') latencies = [];
    else if (message === 'stop') parentPort!.postMessage(latencies);
    else if (message === 'exit') {
      running = false;
      own.destroy();
    }
  });
  const once = () => {
    if (!running) return;
    const started = performance.now();
    http
      .get(`${url}/health`, { agent: own }, (response) => {
        response.resume();
        response.on('end', () => {
          latencies.push(performance.now() - started);
          setTimeout(once, 5);
        });
      })
      .on('error', () => setTimeout(once, 5));
  };
  once();
}

function percentile(values: number[], p: number): number {
  if (!values.length) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

class Health {
  private readonly worker: Worker;
  constructor(origin: string) {
    this.worker = new Worker(__filename, { workerData: { url: origin } });
  }
  start(): void {
    this.worker.postMessage('start');
  }
  stop(): Promise<number[]> {
    return new Promise((resolve) => {
      this.worker.once('message', resolve);
      this.worker.postMessage('stop');
    });
  }
  async close(): Promise<void> {
    this.worker.postMessage('exit');
    await this.worker.terminate();
  }
}

interface Row {
  target: string;
  ms: number;
  limitMs: number;
  outcome: string;
  healthP99Ms?: number;
  met: boolean;
}

/**
 * Stored, or BAD_USER_INPUT whose message names the field (its last segment, or the field holding it: a message's
 * `content` for a block's text) and a number (its limit).
 */
function acceptable(body: any, field: string): { ok: boolean; outcome: string } {
  const error = body.errors?.[0];
  if (!error) return { ok: true, outcome: 'stored' };
  const code = error.extensions?.code;
  const names = field.replace(/\[\d+\]/g, '').split('.');
  const message: string = error.message ?? '';
  const ok = code === 'BAD_USER_INPUT' && names.some((name) => message.includes(name)) && /\d/.test(message);
  return { ok, outcome: `${code}: ${message.slice(0, 120)}` };
}

async function setUp(url: string): Promise<string> {
  const session = await post(
    url,
    `mutation { createSession(input: { sessionId: "bench-s" }) { sessionId } upsertAgent(sessionId: "bench-s", input: { agentId: "bench-a", agentData: {} }) { agentId } }`,
    {},
  );
  if (session.body.errors) throw new Error(JSON.stringify(session.body.errors));
  const task = await post(url, `mutation ($input: RecordTaskInput!) { recordTask(input: $input) { taskId } }`, {
    input: TASK({}, 0),
  });
  if (task.body.errors) throw new Error(JSON.stringify(task.body.errors));
  const seed = `mutation ($inputs: [RecordExperienceInput!]!) { recordExperiences(inputs: $inputs) { experienceId } }`;
  const inputs = Array.from({ length: 200 }, (_, n) => EXPERIENCE({ outputSummary: `Done ${n % 7}.` }, n));
  const seeded = await post(url, seed, { inputs });
  if (seeded.body.errors) throw new Error(JSON.stringify(seeded.body.errors));
  return task.body.data.recordTask.taskId;
}

async function main(): Promise<void> {
  const only = process.env.SIZES?.split(',');
  const sizes = only ? SIZES.filter((size) => only.includes(size.name)) : SIZES;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'hindsight-inputs-'));
  const server = await startServer({ dataDir: dir, env: { LOG_LEVEL: 'warn' } });
  const origin = new URL(server.url).origin;
  const health = new Health(origin);
  const rows: Row[] = [];
  let n = 1000;
  try {
    const taskId = await setUp(server.url);
    // A warm-up round (16 KB in every field), so the first measured case does not pay for compiling the paths.
    const warm = token(16 * KB, false);
    for (const item of cases(taskId)) await post(server.url, item.query, item.variables(warm, n++));
    for (const size of sizes) {
      for (const multiByte of [false, true]) {
        const text = token(size.bytes, multiByte);
        for (const item of cases(taskId)) {
          const runs = size.bytes > MB ? 1 : RUNS_SMALL;
          const times: number[] = [];
          let outcome = { ok: true, outcome: '' };
          health.start();
          for (let run = 0; run < runs; run++) {
            const { ms, body } = await post(server.url, item.query, item.variables(text, n++));
            times.push(ms);
            const verdict = acceptable(body, item.field);
            if (!verdict.ok || !outcome.outcome) outcome = verdict;
          }
          const latencies = await health.stop();
          const ms = percentile(times, 50);
          const healthP99Ms = percentile(latencies, 99);
          const row: Row = {
            target: `${item.operation} ${item.field}, ${size.name} ${multiByte ? 'multi-byte' : 'ASCII'} token`,
            ms: Math.round(ms),
            limitMs: size.limitMs,
            outcome: outcome.outcome,
            healthP99Ms: Math.round(healthP99Ms),
            met: outcome.ok && ms <= size.limitMs && healthP99Ms <= HEALTH_P99_LIMIT_MS,
          };
          rows.push(row);
          report(row);
        }
      }
    }
    for (const multiByte of [false, true]) {
      const text = token(SEARCH_QUERY_BYTES, multiByte);
      const searches: Array<[string, string, Record<string, unknown>]> = [
        [
          'searchExperiences KEYWORD',
          `query ($q: String!) { searchExperiences(query: $q, mode: KEYWORD) { score } }`,
          { q: text },
        ],
        [
          'searchExperiences HYBRID',
          `query ($q: String!) { searchExperiences(query: $q, mode: HYBRID) { score } }`,
          { q: text },
        ],
        ['similarTasks query', `query ($q: String!) { similarTasks(query: $q) { tasks { taskId } } }`, { q: text }],
        ['similarTasks goal', `query ($q: String!) { similarTasks(goal: $q) { tasks { taskId } } }`, { q: text }],
      ];
      for (const [name, query, variables] of searches) {
        const times: number[] = [];
        let outcome = { ok: true, outcome: '' };
        health.start();
        for (let run = 0; run < RUNS_SMALL; run++) {
          const { ms, body } = await post(server.url, query, variables);
          times.push(ms);
          const error = body.errors?.[0];
          if (error)
            outcome = { ok: false, outcome: `${error.extensions?.code}: ${String(error.message).slice(0, 120)}` };
          else outcome.outcome ||= 'answered';
        }
        const latencies = await health.stop();
        const ms = percentile(times, 50);
        const row: Row = {
          target: `${name}, 100K ${multiByte ? 'multi-byte' : 'ASCII'} token`,
          ms: Math.round(ms),
          limitMs: SEARCH_LIMIT_MS,
          outcome: outcome.outcome,
          healthP99Ms: Math.round(percentile(latencies, 99)),
          met: outcome.ok && ms <= SEARCH_LIMIT_MS,
        };
        rows.push(row);
        report(row);
      }
    }
  } finally {
    await health.close();
    agent.destroy();
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
  const missed = rows.filter((row) => !row.met);
  console.log(`\n${rows.length - missed.length} of ${rows.length} targets met`);
  if (missed.length) process.exitCode = 1;
}

function report(row: Row): void {
  const health = row.healthP99Ms === undefined ? '' : `, /health p99 ${row.healthP99Ms} ms`;
  console.log(
    `${row.met ? 'met   ' : 'MISSED'} ${row.target}: ${row.ms} ms (≤ ${row.limitMs})${health} — ${row.outcome}`,
  );
}

if (isMainThread) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
} else pollHealth();
