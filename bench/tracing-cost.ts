/**
 * `npm run bench:tracing`: what tracing costs a representative read over HTTP. Two servers of this build run at once
 * (hash embedder, embedded engine, each its own DATA_DIR, same seed): `off` without OTEL_EXPORTER_OTLP_ENDPOINT,
 * `traced` exporting every request's spans to a stand-in collector (otlp-receiver.ts) in a process of its own,
 * compared in paired rounds (paired.ts). `control`, a second server without tracing, shows how far two identical
 * servers differ on this machine: a tracing cost below that is not resolved. The receiver's span counts are checked
 * against the traced server's requests, so the figure cannot silently measure tracing off. OTEL_* variables of the environment (e.g. a sampler)
 * reach the traced server. CPU_PROF_DIR=<dir> writes both servers' CPU profiles there.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { readMetrics } from './load';
import { CONNECTIONS, EXPERIENCES, pairedRounds, seed, summary, versus } from './paired';
import { processCpuMs, ROOT, SERVER_NODE_FLAGS, startChild, startServer, type Child } from './processes';

const ROUNDS = Number(process.env.ROUNDS ?? 12);
const SECONDS = Number(process.env.SECONDS ?? 3);
/** TOGETHER=1: the servers are loaded at once instead of taking turns (paired.ts). */
const TOGETHER = process.env.TOGETHER === '1';

async function main(): Promise<void> {
  if (process.env.CPU_PROF_DIR) SERVER_NODE_FLAGS.push('--cpu-prof', `--cpu-prof-dir=${process.env.CPU_PROF_DIR}`);
  const dirs = await Promise.all([0, 1, 2].map(() => mkdtemp(path.join(os.tmpdir(), 'hindsight-tracing-'))));
  const children: Child[] = [];
  try {
    const receiver = await startChild(
      'otlp-receiver',
      path.join(ROOT, 'dist', 'bench', 'otlp-receiver.js'),
      {},
      /listening on (http:\/\/\S+)/,
      30_000,
    );
    children.push(receiver);
    const untraced = { LOG_LEVEL: 'warn', OTEL_EXPORTER_OTLP_ENDPOINT: '' };
    const off = await startServer({ dataDir: dirs[0], env: untraced });
    children.push(off);
    const control = await startServer({ dataDir: dirs[1], env: untraced });
    children.push(control);
    const traced = await startServer({
      dataDir: dirs[2],
      env: { LOG_LEVEL: 'warn', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url },
    });
    children.push(traced);
    for (const server of [off, control, traced]) await seed(server.url);
    const receiverCpuMs = processCpuMs(receiver.pid) ?? NaN;
    const runs = await pairedRounds(
      [
        { name: 'off', server: off, headers: {} },
        { name: 'control', server: control, headers: {} },
        { name: 'traced', server: traced, headers: {} },
      ],
      ROUNDS,
      SECONDS,
      { together: TOGETHER },
    );
    const tracedRequests = (await readMetrics(traced.url.replace(/\/graphql$/, ''))).graphqlRequests;
    // Stopping exports the spans still batched.
    await traced.stop();
    const counts = (await (await fetch(`${receiver.url}/counts`)).json()) as { spans: number; rootSpans: number };
    if (counts.rootSpans === 0) throw new Error('the receiver got no request span: tracing was off');
    console.log(
      JSON.stringify(
        {
          experiences: EXPERIENCES,
          connections: CONNECTIONS,
          seconds: SECONDS,
          sampler: process.env.OTEL_TRACES_SAMPLER ?? 'default',
          ...summary(runs),
          tracedVsOff: versus(runs, 'traced', 'off'),
          tracedVsControl: versus(runs, 'traced', 'control'),
          // Identical servers: what the machine's noise and each instance's own speed make of no difference.
          controlVsOff: versus(runs, 'control', 'off'),
          receiver: {
            ...counts,
            tracedRequests,
            // Below 1 when spans were dropped (a full batch queue) or not sampled.
            requestSpansPerRequest: Math.round((counts.rootSpans / tracedRequests) * 1000) / 1000,
            spansPerRequestSpan: Math.round((counts.spans / counts.rootSpans) * 100) / 100,
            // Over every traced request it received: the warm-up's too, which the rounds' counts leave out.
            cpuMsPerTracedRequest:
              Math.round((((processCpuMs(receiver.pid) ?? NaN) - receiverCpuMs) / tracedRequests) * 10_000) / 10_000,
          },
        },
        null,
        2,
      ),
    );
  } finally {
    for (const child of children) await child.stop();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
