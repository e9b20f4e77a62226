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
import { postGraphQL } from './load';
import { processCpuMs, startServer } from './processes';
import { percentile } from './search-e2e';

/** BENCH_SUBSCRIBERS=0 measures the appends alone: the difference is what the subscribers cost. */
const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 100);
const CONNECTIONS = 10;
const RATE = 500;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
/** Seconds of appends before the measured ones (see measureSubscriptions). */
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 5);
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
  /**
   * The same from the append's request sent: the acknowledgement can arrive after the event (then the latency above is
   * negative), this one cannot.
   */
  p50FromSentMs: number;
  p99FromSentMs: number;
  /**
   * CPU time of the server process (all threads, the embedded engine's included) per append acknowledged, from the
   * first append to the last event: a figure a busy machine moves far less than the rates and latencies.
   */
  serverCpuMsPerAppend: number | null;
  /** CPU time of this benchmark's own process (the clients) per append, over the same span. */
  clientCpuMsPerAppend: number;
}

const APPEND = `mutation ($sessionId: ID!, $content: JSON!) {
  appendMessage(sessionId: $sessionId, agentId: "a1", input: { role: USER, content: $content }) { messageId }
}`;

function countReceived(received: Map<number, number[]>): number {
  let count = 0;
  for (const times of received.values()) count += times.length;
  return count;
}

/**
 * Sends `count` appends to agent a1 of `sessionId` at RATE per second, at most IN_FLIGHT awaiting their answer,
 * and resolves with the rate they were acknowledged at once all are; `acknowledged` gets each one's message id and
 * when it was sent.
 */
async function offerAppends(
  url: string,
  sessionId: string,
  count: number,
  acknowledged: (messageId: number, sentAt: number) => void,
): Promise<number> {
  const started = performance.now();
  const appends: Promise<void>[] = [];
  const pending = new Set<Promise<void>>();
  for (let i = 0; i < count; i++) {
    const due = started + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    if (pending.size >= IN_FLIGHT) await Promise.race(pending);
    // Variables, as client libraries send them: the operation's text is the same for every append.
    const sentAt = performance.now();
    const append = postGraphQL(url, APPEND, { sessionId, content: `m${i}` }).then((data) =>
      acknowledged(data.appendMessage.messageId, sentAt),
    );
    pending.add(append);
    void append.finally(() => pending.delete(append));
    appends.push(append);
  }
  await Promise.all(appends);
  return count / ((performance.now() - started) / 1000);
}

/** Waits until `expected` events have been received, or 5 s. */
async function delivered(received: Map<number, number[]>, expected: number): Promise<void> {
  const deadline = performance.now() + 5000;
  while (countReceived(received) < expected && performance.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 20));
}

export async function measureSubscriptions(log: (line: string) => void): Promise<SubscriptionFigures> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'hindsight-bench-subscriptions-'));
  const server = await startServer({ dataDir });
  const clients = Array.from({ length: CONNECTIONS }, () =>
    createClient({ url: server.url.replace(/^http/, 'ws'), webSocketImpl: WebSocket, lazy: false, retryAttempts: 0 }),
  );
  try {
    // SUBSCRIBERS subscribers of agent a1 of a new session `sessionId`, and the times each message's events arrived.
    const subscribeToNew = async (sessionId: string) => {
      await postGraphQL(server.url, `mutation { createSession(input: { sessionId: "${sessionId}" }) { sessionId } }`);
      await postGraphQL(
        server.url,
        `mutation { upsertAgent(sessionId: "${sessionId}", input: { agentId: "a1", agentData: {} }) { agentId } }`,
      );
      const received = new Map<number, number[]>();
      const unsubscribes = Array.from({ length: SUBSCRIBERS }, (_, i) =>
        clients[i % CONNECTIONS].subscribe<{ messageAppended: { messageId: number } }>(
          { query: `subscription { messageAppended(sessionId: "${sessionId}", agentId: "a1") { messageId } }` },
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
      return { received, unsubscribe: () => unsubscribes.forEach((unsubscribe) => unsubscribe()) };
    };

    // The same load on another session first, not counted: the server's JIT compiles its hot code in the first
    // seconds (on its own threads, taking the cores the run measures), which a long-running server has done long
    // before. The measured agent starts without messages all the same.
    const warmup = await subscribeToNew('warmup');
    await offerAppends(server.url, 'warmup', RATE * WARMUP_SECONDS, () => undefined);
    await delivered(warmup.received, RATE * WARMUP_SECONDS * SUBSCRIBERS);
    warmup.unsubscribe();

    const { received, unsubscribe } = await subscribeToNew('bench');
    const acknowledged = new Map<number, number>();
    const sent = new Map<number, number>();
    const serverCpuBefore = processCpuMs(server.pid);
    const clientCpuBefore = process.cpuUsage();
    const total = RATE * SECONDS;
    const achievedRate = await offerAppends(server.url, 'bench', total, (id, sentAt) => {
      acknowledged.set(id, performance.now());
      sent.set(id, sentAt);
    });
    log(`subscriptions: ${total} appends acknowledged`);
    const expected = total * SUBSCRIBERS;
    await delivered(received, expected);
    const serverCpuAfter = processCpuMs(server.pid);
    const clientCpu = process.cpuUsage(clientCpuBefore);
    unsubscribe();

    const latencies: number[] = [];
    const fromSent: number[] = [];
    for (const [id, ackAt] of acknowledged)
      for (const at of received.get(id) ?? []) {
        latencies.push(at - ackAt);
        fromSent.push(at - sent.get(id)!);
      }
    const ms = (values: number[], p: number) => (values.length ? +percentile(values, p).toFixed(1) : 0);
    const figures: SubscriptionFigures = {
      subscribers: SUBSCRIBERS,
      targetRate: RATE,
      achievedRate: Math.round(achievedRate),
      appends: total,
      delivered: SUBSCRIBERS ? +(latencies.length / (total * SUBSCRIBERS)).toFixed(4) : 1,
      p50Ms: ms(latencies, 0.5),
      p99Ms: ms(latencies, 0.99),
      // A loop, not Math.max(...): 100 subscribers × thousands of appends overflow the call stack as arguments.
      maxMs: +latencies.reduce((max, value) => Math.max(max, value), 0).toFixed(1),
      p50FromSentMs: ms(fromSent, 0.5),
      p99FromSentMs: ms(fromSent, 0.99),
      serverCpuMsPerAppend:
        serverCpuBefore === null || serverCpuAfter === null
          ? null
          : +((serverCpuAfter - serverCpuBefore) / total).toFixed(2),
      clientCpuMsPerAppend: +((clientCpu.user + clientCpu.system) / 1000 / total).toFixed(2),
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
