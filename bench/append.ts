/**
 * appendMessage benchmark (`npm run build && node dist/bench/append.js`): seeds BENCH_SESSIONS sessions of
 * 2 agents × 50 messages into a fresh data dir through the driver, starts the server as users run it
 * (`node dist/src/main.js` with `npm start`'s node flags, embedded engine), and drives the appendMessage mutation over HTTP with autocannon,
 * each request to a random session and agent. Prints one JSON line.
 *
 * Environment: BENCH_SESSIONS (1000), BENCH_CONNECTIONS (32), BENCH_SECONDS (15), BENCH_CPU_PROF (a directory:
 * the server runs with `node --cpu-prof` and writes its profile there on exit).
 *
 * BENCH_SIZES (e.g. `10,500,2500`) measures instead how an append's CPU grows with the agent's message list: for
 * each size, GROWTH_SESSIONS sessions of one agent with that many messages, then BENCH_APPENDS appends spread over
 * them, one at a time, first through the sessions repository and the driver against an engine in this process (CPU
 * of this process: driver and engine), then as appendMessage over HTTP to the built server (CPU of its process, all
 * threads). Prints one JSON line per size.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { startEmbeddedServer } from '@hindsight/engine';
import { SessionRepository } from '../src/modules/sessions/session.repository';
import { postGraphQL } from './load';
import { SERVER_ENV, SERVER_NODE_FLAGS } from './processes';

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 1000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const CPU_PROF = process.env.BENCH_CPU_PROF;
const AGENTS = ['planner', 'executor'];
const MESSAGES_PER_AGENT = 50;

/** The part of autocannon's programmatic API used here (the package ships no types). */
interface AutocannonRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}
interface Histogram {
  average: number;
  mean: number;
  p50: number;
  p90: number;
  p97_5: number;
  p99: number;
  max: number;
}
interface AutocannonResult {
  requests: Histogram & { total: number };
  latency: Histogram;
  non2xx: number;
  errors: number;
  timeouts: number;
  duration: number;
}
type Autocannon = (options: {
  url: string;
  connections: number;
  duration: number;
  requests: Array<{
    setupRequest?: (request: AutocannonRequest) => AutocannonRequest;
    onResponse?: (status: number, body: string) => void;
  }>;
}) => Promise<AutocannonResult>;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon') as Autocannon;

const APPEND = `mutation AppendMessage($sessionId: ID!, $agentId: String!, $input: AppendMessageInput!) {
  appendMessage(sessionId: $sessionId, agentId: $agentId, input: $input) { messageId role createdAt }
}`;

const sessionId = (i: number) => `bench-session-${String(i).padStart(5, '0')}`;

/** A message shaped like seed 001's: content blocks, metrics on assistant turns. */
function message(id: number, at: Date): Record<string, unknown> {
  const assistant = id % 2 === 0;
  return {
    message_id: id,
    role: assistant ? 'assistant' : 'user',
    content: [
      {
        text: `${assistant ? 'Here is what I found' : 'Please look into'} item ${id}: ${'lorem ipsum dolor sit amet '.repeat(8)}`,
      },
    ],
    created_at: at,
    updated_at: at,
    ...(assistant
      ? {
          event_loop_metrics: {
            accumulated_metrics: { latencyMs: 800 + id },
            accumulated_usage: { inputTokens: 120, outputTokens: 80, totalTokens: 200 },
          },
        }
      : {}),
  };
}

function session(i: number, agentIds = AGENTS, messages = MESSAGES_PER_AGENT): Record<string, unknown> {
  const at = new Date(Date.UTC(2024, 0, 1) + i * 60_000);
  const agents: Record<string, unknown> = {};
  for (const agentId of agentIds) {
    agents[agentId] = {
      agent_data: {
        agent_id: agentId,
        model: 'claude-3-sonnet-20240229',
        system_prompt: 'You are a helpful agent.',
        created_at: at.toISOString(),
        updated_at: at.toISOString(),
      },
      created_at: at,
      updated_at: at,
      messages: Array.from({ length: messages }, (_, m) => message(m + 1, at)),
    };
  }
  return {
    _id: sessionId(i),
    session_id: sessionId(i),
    session_type: 'bench',
    created_at: at,
    updated_at: at,
    metadata: { user_id: `user-${i % 97}`, priority: i % 3 ? 'normal' : 'high' },
    feedbacks: [],
    agents,
  };
}

/** Writes the sessions into `dataDir` through the driver and an engine of our own, then closes it (journal durable). */
async function seed(dataDir: string): Promise<void> {
  const server = await startEmbeddedServer({ dataDir, port: 0 });
  const client = await MongoClient.connect(server.uri);
  try {
    const sessions = client.db('hindsight').collection('sessions');
    for (let start = 0; start < SESSIONS; start += 50) {
      await sessions.insertMany(
        Array.from({ length: Math.min(50, SESSIONS - start) }, (_, k) => session(start + k)) as never[],
      );
    }
  } finally {
    await client.close();
    await server.close();
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** Starts `node dist/src/main.js` on the seeded data dir and resolves once it prints that it is ready. */
function startServer(dataDir: string, port: number): Promise<ChildProcess> {
  const main = path.join(__dirname, '..', 'src', 'main.js');
  const args = [...SERVER_NODE_FLAGS, ...(CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF}`] : []), main];
  const child = spawn(process.execPath, args, {
    env: {
      ...process.env,
      ...SERVER_ENV,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      EMBEDDINGS_PROVIDER: 'hash',
      LOG_LEVEL: 'warn',
      MONGODB_URI: '',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('ready')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code} before it was ready: ${out}`)));
  });
}

/** Graceful stop (SIGTERM, which also writes the CPU profile); SIGKILL after 20 s. True when it stopped by itself. */
function stopServer(child: ChildProcess): Promise<boolean> {
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.once('exit', (code, signal) => {
      clearTimeout(kill);
      resolve(signal !== 'SIGKILL');
    });
    child.kill('SIGTERM');
  });
}

/** Peak RSS of a process, from /proc (Linux), in MB. */
async function peakRssMB(pid: number): Promise<number | null> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kb = /VmHWM:\s+(\d+)/.exec(status)?.[1];
    return kb ? Math.round(Number(kb) / 1024) : null;
  } catch {
    return null;
  }
}

/** CPU time (user + system) used so far by a process, or by its main thread alone, in ms (Linux /proc; ticks of 10 ms). */
async function cpuMs(pid: number, mainThreadOnly = false): Promise<number> {
  const file = mainThreadOnly ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`;
  const fields = (await readFile(file, 'utf8')).split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function journalMB(dataDir: string): Promise<number> {
  let bytes = 0;
  for (const name of await readdir(dataDir))
    if (name.startsWith('journal-')) bytes += (await stat(path.join(dataDir, name))).size;
  return Math.round(bytes / 2 ** 20);
}

const GROWTH_SESSIONS = 20;
const GROWTH_APPENDS = Number(process.env.BENCH_APPENDS ?? 400);
/** Appends before each measurement, not counted: the JIT's warm-up. */
const WARMUP_APPENDS = 40;

/** CPU time (user + system, all threads) of this process so far, in ms. */
function ownCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** Runs `append(k)` for k in [0, count) one after another; the CPU `cpu()` reports per append, in ms. */
async function cpuPerAppend(
  count: number,
  cpu: () => number | Promise<number>,
  append: (k: number) => Promise<void>,
): Promise<number> {
  for (let k = 0; k < WARMUP_APPENDS; k++) await append(k);
  const before = await cpu();
  for (let k = 0; k < count; k++) await append(WARMUP_APPENDS + k);
  return Number((((await cpu()) - before) / count).toFixed(3));
}

/** One size of BENCH_SIZES: CPU per append through the driver (engine in process) and through the API. */
async function measureSize(size: number): Promise<void> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'hindsight-bench-append-size-'));
  const agentId = AGENTS[0];
  const target = (k: number) => sessionId(k % GROWTH_SESSIONS);
  const content = (k: number) => [{ text: `bench message ${k} ${'lorem ipsum '.repeat(10)}` }];
  try {
    const engine = await startEmbeddedServer({ dataDir });
    const client = await MongoClient.connect(engine.uri);
    let driverMs: number;
    try {
      const sessions = client.db('hindsight').collection('sessions');
      for (let i = 0; i < GROWTH_SESSIONS; i++) await sessions.insertOne(session(i, [agentId], size) as never);
      const repository = new SessionRepository(client.db('hindsight'));
      driverMs = await cpuPerAppend(GROWTH_APPENDS, ownCpuMs, async (k) => {
        const appended = await repository.appendMessages(
          target(k),
          agentId,
          [{ role: 'user', content: content(k) }],
          new Date(),
          1024,
          'input',
        );
        if (!appended) throw new Error(`append ${k} did not match`);
      });
    } finally {
      await client.close();
      await engine.close();
    }
    const port = await freePort();
    const server = await startServer(dataDir, port);
    let apiMs: number;
    try {
      apiMs = await cpuPerAppend(
        GROWTH_APPENDS,
        () => cpuMs(server.pid!),
        async (k) => {
          await postGraphQL(`http://127.0.0.1:${port}/graphql`, APPEND, {
            sessionId: target(k),
            agentId,
            input: { role: 'USER', content: content(k) },
          });
        },
      );
    } finally {
      if (!(await stopServer(server))) console.error('the server did not stop within 20 s of SIGTERM and was killed');
    }
    const perSession = (2 * (WARMUP_APPENDS + GROWTH_APPENDS)) / GROWTH_SESSIONS;
    console.log(
      JSON.stringify({
        op: 'appendMessage by list size',
        messages: size,
        // Each session's list grows while it is measured: from `size` to `size + perSession`.
        messagesAtEnd: size + perSession,
        appends: GROWTH_APPENDS,
        driverCpuMsPerAppend: driverMs,
        serverCpuMsPerAppend: apiMs,
        loadAverage: os.loadavg().map((load) => Number(load.toFixed(2))),
      }),
    );
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  if (process.env.BENCH_SIZES) {
    for (const size of process.env.BENCH_SIZES.split(',').map(Number)) await measureSize(size);
    return;
  }
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'hindsight-bench-append-'));
  try {
    const seeding = performance.now();
    await seed(dataDir);
    const seedMs = Math.round(performance.now() - seeding);
    const port = await freePort();
    const server = await startServer(dataDir, port);
    let failures = 0;
    let firstFailure: string | undefined;
    try {
      const journalBefore = await journalMB(dataDir);
      const cpuBefore = await cpuMs(server.pid!);
      const mainCpuBefore = await cpuMs(server.pid!, true);
      const result = await autocannon({
        url: `http://127.0.0.1:${port}/graphql`,
        connections: CONNECTIONS,
        duration: SECONDS,
        requests: [
          {
            setupRequest: (request) => ({
              ...request,
              method: 'POST',
              path: '/graphql',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({
                query: APPEND,
                variables: {
                  sessionId: sessionId(Math.floor(Math.random() * SESSIONS)),
                  agentId: AGENTS[Math.floor(Math.random() * AGENTS.length)],
                  input: {
                    role: 'USER',
                    content: [
                      { text: `bench message ${Math.random().toString(36).slice(2)} ${'lorem ipsum '.repeat(10)}` },
                    ],
                  },
                },
              }),
            }),
            onResponse: (status, body) => {
              if (status === 200 && !body.includes('"errors"')) return;
              failures++;
              firstFailure ??= `${status} ${body.slice(0, 300)}`;
            },
          },
        ],
      });
      const cpuUsed = (await cpuMs(server.pid!)) - cpuBefore;
      const mainCpuUsed = (await cpuMs(server.pid!, true)) - mainCpuBefore;
      console.log(
        JSON.stringify({
          op: 'appendMessage',
          sessions: SESSIONS,
          connections: CONNECTIONS,
          seconds: SECONDS,
          requests: result.requests.total,
          reqPerSec: Math.round(result.requests.average),
          p50Ms: result.latency.p50,
          p90Ms: result.latency.p90,
          p99Ms: result.latency.p99,
          maxMs: result.latency.max,
          // Server CPU per request: unlike req/s, it hardly depends on what else the machine runs.
          serverCpuMsPerRequest: Number((cpuUsed / result.requests.total).toFixed(3)),
          // The thread running HTTP, GraphQL and the driver (the engine has its own thread).
          mainThreadCpuMsPerRequest: Number((mainCpuUsed / result.requests.total).toFixed(3)),
          failures: failures + result.errors + result.timeouts,
          ...(firstFailure ? { firstFailure } : {}),
          serverPeakRssMB: await peakRssMB(server.pid!),
          journalGrowthMB: (await journalMB(dataDir)) - journalBefore,
          seedMs,
          loadAverage: os.loadavg().map((load) => Number(load.toFixed(2))),
        }),
      );
    } finally {
      if (!(await stopServer(server))) console.error('the server did not stop within 20 s of SIGTERM and was killed');
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
