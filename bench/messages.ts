/**
 * searchMessages and appendMessage benchmark (`npm run bench:messages`): seeds BENCH_MSG_SESSIONS sessions of one
 * agent with BENCH_MSG_MESSAGES messages each (default 1,000 × 1,000 = 1M messages, the size) into a fresh
 * data dir through the driver, then, with the server as users run it (`node dist/src/main.js`, embedded engine, hash
 * embedder):
 * 1. MESSAGE_INDEX=false: appendMessage req/s over BENCH_CONNECTIONS connections for BENCH_SECONDS (the baseline);
 * 2. MESSAGE_INDEX=true: the message index's catch-up at start (startup waits for it), then searchMessages
 *    one request at a time (BENCH_SEARCHES of them, HYBRID, a third filtered by session, after BENCH_WARMUP), its
 *    p50/p95/p99, then appendMessage req/s as in 1.
 * Prints one JSON line with both req/s and their ratio (target ≥ 0.9) and the search p95 (target ≤ 30 ms).
 *
 * Environment: BENCH_MSG_SESSIONS (1000), BENCH_MSG_MESSAGES (1000), BENCH_CONNECTIONS (32), BENCH_SECONDS (15),
 * BENCH_SEARCHES (500), BENCH_WARMUP (50). Try it small: `BENCH_MSG_SESSIONS=20 BENCH_MSG_MESSAGES=50
 * BENCH_SECONDS=3 npm run bench:messages`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { startEmbeddedServer } from '@hindsight/engine';
import { measureLoad, postGraphQL } from './load';
import { startServer, type Child } from './processes';

const SESSIONS = Number(process.env.BENCH_MSG_SESSIONS ?? 1000);
const MESSAGES = Number(process.env.BENCH_MSG_MESSAGES ?? 1000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const SEARCHES = Number(process.env.BENCH_SEARCHES ?? 500);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 50);
const AGENT = 'assistant';

/** Words the messages are drawn from: a Zipf-like mix of common and rare ones, so BM25 has work to do. */
const WORDS = (
  'parcel courier tracking customs invoice refund delivery warehouse order address payment card account login ' +
  'password reset subscription upgrade discount coupon return label shipment delay weather flight hotel booking ' +
  'train ticket seat window aisle luggage passport visa insurance claim doctor appointment prescription pharmacy ' +
  'recipe dinner vegetarian allergy gluten birthday party gift budget report summary meeting agenda deadline ' +
  'project milestone bug deploy server database backup restore migration schema index query latency cache'
).split(' ');
const COMMON = 'the a to and of is my for please can you i it this that with on'.split(' ');

/** A deterministic pseudo-random generator (mulberry32), so every run seeds the same texts. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function sentence(next: () => number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) {
    const rare = next() < 0.4;
    const list = rare ? WORDS : COMMON;
    // Squared: the first words of each list come up far more often than the last.
    out.push(list[Math.floor(next() ** 2 * list.length)]);
  }
  return out.join(' ');
}

const sessionId = (i: number) => `msg-bench-${String(i).padStart(5, '0')}`;

/** Writes the sessions (the Strands SDK's message shape) into `dataDir` through an engine of our own. */
async function seed(dataDir: string): Promise<void> {
  const server = await startEmbeddedServer({ dataDir, port: 0 });
  const client = await MongoClient.connect(server.uri);
  const next = random(42);
  try {
    const sessions = client.db('hindsight').collection('sessions');
    const perBatch = Math.max(1, Math.floor(20_000 / MESSAGES));
    for (let start = 0; start < SESSIONS; start += perBatch) {
      const batch = [];
      for (let i = start; i < Math.min(SESSIONS, start + perBatch); i++) {
        const at = new Date(Date.UTC(2025, 0, 1) + i * 60_000);
        batch.push({
          _id: sessionId(i),
          session_id: sessionId(i),
          session_type: 'AGENT',
          user_id: `user-${i % 97}`,
          created_at: at,
          updated_at: at,
          metadata: {},
          feedbacks: [],
          agents: {
            [AGENT]: {
              agent_data: { agent_id: AGENT },
              created_at: at,
              updated_at: at,
              messages: Array.from({ length: MESSAGES }, (_, m) => ({
                message: { role: m % 2 ? 'assistant' : 'user', content: [{ text: sentence(next, 12 + (m % 20)) }] },
                message_id: m,
                redact_message: null,
                created_at: at,
                updated_at: at,
              })),
            },
          },
        });
      }
      await sessions.insertMany(batch as never[]);
    }
  } finally {
    await client.close();
    await server.close();
  }
}

const APPEND = `mutation AppendMessage($sessionId: ID!, $agentId: String!, $input: AppendMessageInput!) {
  appendMessage(sessionId: $sessionId, agentId: $agentId, input: $input) { messageId }
}`;
const SEARCH = `query SearchMessages($query: String!, $filter: MessageSearchFilter, $limit: Int) {
  searchMessages(query: $query, filter: $filter, limit: $limit) { sessionId score message { messageId text } }
}`;

/** appendMessage req/s: each request to a random session, with a fresh sentence (bench/load.ts's measureLoad). */
async function appendRate(server: Child): Promise<{ rps: number; p99Ms: number; errors: number }> {
  const next = random(7);
  const result = await measureLoad({
    base: server.url.replace(/\/graphql$/, ''),
    connections: CONNECTIONS,
    duration: SECONDS,
    warmup: 0,
    next: () => ({
      path: '/graphql',
      body: JSON.stringify({
        query: APPEND,
        variables: {
          sessionId: sessionId(Math.floor(next() * SESSIONS)),
          agentId: AGENT,
          input: { role: 'USER', content: [{ text: sentence(next, 16) }] },
        },
      }),
    }),
  });
  return { rps: result.reqPerSec, p99Ms: result.p99Ms, errors: result.failures };
}

function percentile(sorted: number[], p: number): number {
  return Number(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))].toFixed(2));
}

async function searchLatency(server: Child): Promise<Record<string, number>> {
  const next = random(99);
  const search = async (i: number) => {
    const filtered = i % 3 === 0;
    const data = await postGraphQL(server.url, SEARCH, {
      query: sentence(next, 3 + (i % 4)),
      limit: 10,
      filter: filtered ? { sessionId: sessionId(Math.floor(next() * SESSIONS)) } : null,
    });
    return data.searchMessages.length as number;
  };
  const started = performance.now();
  // The first search waits for the index's catch-up at start: past the request deadline, it is asked again.
  for (;;) {
    try {
      await search(0);
      break;
    } catch (error) {
      if (performance.now() - started > 4 * 3600_000) throw error;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
  const catchUpMs = Math.round(performance.now() - started);
  for (let i = 0; i < WARMUP; i++) await search(i);
  const times: number[] = [];
  let hits = 0;
  for (let i = 0; i < SEARCHES; i++) {
    const at = performance.now();
    hits += await search(i);
    times.push(performance.now() - at);
  }
  times.sort((a, b) => a - b);
  return {
    firstSearchMs: catchUpMs,
    p50Ms: percentile(times, 50),
    p95Ms: percentile(times, 95),
    p99Ms: percentile(times, 99),
    meanHits: Number((hits / SEARCHES).toFixed(1)),
  };
}

async function main(): Promise<void> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'hindsight-bench-messages-'));
  try {
    const seeding = performance.now();
    await seed(dataDir);
    const seedMs = Math.round(performance.now() - seeding);
    const off = await startServer({ dataDir, env: { MESSAGE_INDEX: 'false', LOG_LEVEL: 'warn' } });
    const offStartMs = off.startMs;
    let withoutIndex;
    try {
      withoutIndex = await appendRate(off);
    } finally {
      await off.stop();
    }
    const on = await startServer({ dataDir, env: { MESSAGE_INDEX: 'true', LOG_LEVEL: 'warn' } });
    const onStartMs = on.startMs;
    let search;
    let withIndex;
    let memory;
    try {
      search = await searchLatency(on);
      withIndex = await appendRate(on);
      memory = on.memory();
    } finally {
      await on.stop();
    }
    console.log(
      JSON.stringify({
        bench: 'messages',
        sessions: SESSIONS,
        messagesPerSession: MESSAGES,
        messages: SESSIONS * MESSAGES,
        seedMs,
        // With the index on, startup includes its catch-up with every message (built from scratch here).
        startMs: { withoutIndex: Math.round(offStartMs), withIndex: Math.round(onStartMs) },
        searchMessages: { ...search, targetP95Ms: 30 },
        appendMessage: {
          withoutIndex,
          withIndex,
          ratio: Number((withIndex.rps / withoutIndex.rps).toFixed(3)),
          targetRatio: 0.9,
        },
        serverMemoryMB: memory,
      }),
    );
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
