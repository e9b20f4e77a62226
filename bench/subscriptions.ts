/**
 * Subscription event latency: from a write acknowledged (appendMessage's HTTP response read) to the event received by
 * each of SUBSCRIBERS graphql-ws subscribers of the agent, with appends sent at RATE per second for SECONDS, through a
 * built server on its embedded engine. `node dist/bench/subscriptions.js` runs it alone.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { startServer } from './processes';
import { percentile } from './search-e2e';

const SUBSCRIBERS = 100;
const CONNECTIONS = 10;
const RATE = 500;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
/** Appends awaiting their answer at most: past it the sender waits (and `achievedRate` shows it). */
const IN_FLIGHT = 32;

export interface SubscriptionFigures {
  subscribers: number;
  targetRate: number;
  /** Appends acknowledged per second (below targetRate when the server could not keep up). */
  achievedRate: number;
  appends: number;
  /** Events received over events expected (appends × subscribers). */
  delivered: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

async function post(url: string, query: string): Promise<any> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });
  const body = (await response.json()) as { data?: any; errors?: unknown };
  if (body.errors) throw new Error(JSON.stringify(body.errors));
  return body.data;
}

export async function measureSubscriptions(log: (line: string) => void): Promise<SubscriptionFigures> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'hindsight-bench-subscriptions-'));
  const server = await startServer({ dataDir });
  const clients = Array.from({ length: CONNECTIONS }, () =>
    createClient({ url: server.url.replace(/^http/, 'ws'), webSocketImpl: WebSocket, lazy: false, retryAttempts: 0 }),
  );
  try {
    await post(server.url, 'mutation { createSession(input: { sessionId: "bench" }) { sessionId } }');
    await post(
      server.url,
      'mutation { upsertAgent(sessionId: "bench", input: { agentId: "a1", agentData: {} }) { agentId } }',
    );
    const received = new Map<number, number[]>();
    const unsubscribes = Array.from({ length: SUBSCRIBERS }, (_, i) =>
      clients[i % CONNECTIONS].subscribe<{ messageAppended: { messageId: number } }>(
        { query: 'subscription { messageAppended(sessionId: "bench", agentId: "a1") { messageId } }' },
        {
          next: (result) => {
            const id = result.data?.messageAppended.messageId;
            if (id !== undefined) (received.get(id) ?? received.set(id, []).get(id)!).push(performance.now());
          },
          error: (error) => log(`subscriptions: subscriber error ${JSON.stringify(error)}`),
          complete: () => undefined,
        },
      ),
    );
    // No protocol message tells when the server has set a subscription up: let them settle.
    await new Promise((resolve) => setTimeout(resolve, 2000));

    const acknowledged = new Map<number, number>();
    const started = performance.now();
    const total = RATE * SECONDS;
    const appends: Promise<void>[] = [];
    const pending = new Set<Promise<void>>();
    for (let i = 0; i < total; i++) {
      const due = started + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      if (pending.size >= IN_FLIGHT) await Promise.race(pending);
      const append = post(
        server.url,
        `mutation { appendMessage(sessionId: "bench", agentId: "a1", input: { role: USER, content: "m${i}" }) { messageId } }`,
      ).then((data) => void acknowledged.set(data.appendMessage.messageId, performance.now()));
      pending.add(append);
      void append.finally(() => pending.delete(append));
      appends.push(append);
    }
    log(`subscriptions: ${total} appends sent`);
    await Promise.all(appends);
    const achievedRate = total / ((performance.now() - started) / 1000);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    unsubscribes.forEach((unsubscribe) => unsubscribe());

    const latencies: number[] = [];
    for (const [id, ackAt] of acknowledged) for (const at of received.get(id) ?? []) latencies.push(at - ackAt);
    const figures: SubscriptionFigures = {
      subscribers: SUBSCRIBERS,
      targetRate: RATE,
      achievedRate: Math.round(achievedRate),
      appends: total,
      delivered: +(latencies.length / (total * SUBSCRIBERS)).toFixed(4),
      p50Ms: +percentile(latencies, 0.5).toFixed(1),
      p99Ms: +percentile(latencies, 0.99).toFixed(1),
      // A loop, not Math.max(...): 100 subscribers × thousands of appends overflow the call stack as arguments.
      maxMs: +latencies.reduce((max, ms) => Math.max(max, ms), 0).toFixed(1),
    };
    log(`subscriptions: ${JSON.stringify(figures)}`);
    return figures;
  } finally {
    await Promise.all(clients.map((client) => client.dispose()));
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  measureSubscriptions((line) => process.stdout.write(`${line}\n`)).catch((error: unknown) => {
    process.stderr.write(`${String(error)} ${String((error as Error).cause ?? '')}\n`);
    process.exitCode = 1;
  });
}
