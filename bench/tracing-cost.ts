/**
 * `npm run bench:tracing`: what tracing costs a representative read over HTTP. Three servers of this build run at once
 * (hash embedder, embedded engine, each its own DATA_DIR, same seed): `off` without OTEL_EXPORTER_OTLP_ENDPOINT,
 * `traced` exporting every request's spans to a stand-in collector (otlp-receiver.ts) in a process of its own, and
 * `control`, a second server without tracing, which shows how far two identical servers differ on this machine: a
 * tracing cost below that is not resolved. They are compared in paired rounds (paired.ts). The receiver's span counts
 * are checked against the traced server's requests, so the figure cannot silently measure tracing off. OTEL_*
 * variables of the environment (a sampler, OTEL_EXPORTER_OTLP_PROTOCOL) reach the traced server. CPU_PROF_DIR=<dir>
 * writes the servers' CPU profiles there.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { readMetrics } from './load';
import { CONNECTIONS, EXPERIENCES, pairedRounds, seed, summary, versus, type Run } from './paired';
import { CHILD_WRAPPERS, processCpuMs, SERVER_NODE_FLAGS, startReceiver, startServer, type Child } from './processes';

const ROUNDS = Number(process.env.ROUNDS ?? 12);
const SECONDS = Number(process.env.SECONDS ?? 3);
/** TOGETHER=1: the servers are loaded at once instead of taking turns (paired.ts). */
const TOGETHER = process.env.TOGETHER === '1';
/**
 * INSTANCES=n: the rounds are shared between n sets of the three servers, each started afresh on the same data. Two
 * processes of one build can differ by several % for as long as they run (`control` against `off`), which a single
 * set would count as tracing's cost or gain.
 */
const INSTANCES = Number(process.env.INSTANCES ?? 1);
/**
 * PIN=1 (Linux, at least 2 CPUs): the servers run on CPU 0, this process (the load) and the stand-in collector on the
 * others, so the collector's CPU, which a deployment spends on another machine, is not taken from the server measured.
 */
const PIN = process.env.PIN === '1';

async function main(): Promise<void> {
  if (process.env.CPU_PROF_DIR) SERVER_NODE_FLAGS.push('--cpu-prof', `--cpu-prof-dir=${process.env.CPU_PROF_DIR}`);
  if (PIN) {
    if (os.availableParallelism() < 2) throw new Error('PIN=1 needs 2 CPUs at least');
    const others = `1-${os.availableParallelism() - 1}`;
    // taskset's CPUs are inherited by every thread the server starts.
    CHILD_WRAPPERS.set('server', ['taskset', '-c', '0']).set('otlp-receiver', ['taskset', '-c', others]);
    execFileSync('taskset', ['-a', '-p', '-c', others, String(process.pid)], { stdio: 'ignore' });
  }
  const dirs = await Promise.all([0, 1, 2].map(() => mkdtemp(path.join(os.tmpdir(), 'hindsight-tracing-'))));
  const children: Child[] = [];
  try {
    const receiver = await startReceiver();
    children.push(receiver);
    const untraced = { LOG_LEVEL: 'warn', OTEL_EXPORTER_OTLP_ENDPOINT: '' };
    const tracedEnv = { LOG_LEVEL: 'warn', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url };
    const runs: Record<string, Run[]> = { off: [], control: [], traced: [] };
    let tracedRequests = 0;
    let receiverCpuMs = NaN;
    for (let instance = 0; instance < INSTANCES; instance++) {
      const servers = {
        off: await startServer({ dataDir: dirs[0], env: untraced }),
        control: await startServer({ dataDir: dirs[1], env: untraced }),
        traced: await startServer({ dataDir: dirs[2], env: tracedEnv }),
      };
      children.push(...Object.values(servers));
      if (instance === 0) {
        for (const server of Object.values(servers)) await seed(server.url);
        receiverCpuMs = processCpuMs(receiver.pid) ?? NaN;
      }
      const rounds = Math.ceil(ROUNDS / INSTANCES);
      const part = await pairedRounds(
        Object.entries(servers).map(([name, server]) => ({ name, server, headers: {} })),
        Math.min(rounds, ROUNDS - instance * rounds),
        SECONDS,
        // Tracing's code is still being compiled tens of thousands of requests in (bench:tracing-instructions):
        // after a shorter warm-up the rounds count that compiling as tracing's cost.
        { together: TOGETHER, warmupSeconds: 60 },
      );
      for (const [name, list] of Object.entries(part)) runs[name].push(...list);
      tracedRequests += (await readMetrics(servers.traced.url.replace(/\/graphql$/, ''))).graphqlRequests;
      // Stopping exports the spans still batched.
      for (const server of Object.values(servers)) {
        await server.stop();
        children.splice(children.indexOf(server), 1);
      }
    }
    const counts = (await (await fetch(`${receiver.url}/counts`)).json()) as { spans: number; rootSpans: number };
    if (counts.rootSpans === 0) throw new Error('the receiver got no request span: tracing was off');
    console.log(
      JSON.stringify(
        {
          experiences: EXPERIENCES,
          connections: CONNECTIONS,
          seconds: SECONDS,
          instances: INSTANCES,
          pinned: PIN,
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
