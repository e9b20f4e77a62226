/** Drives one operation over HTTP with autocannon and reads the target's /metrics around it. */
import http from 'node:http';
import autocannon from 'autocannon';
import { Scrape } from '../test/support/metrics';

/** What the benchmark reads of GET /metrics (server and baseline alike). */
export interface Metrics {
  graphqlRequests: number;
  /** Requests received and not yet answered. */
  graphqlInFlight: number;
  databaseCommands: number;
  rssBytes: number;
}

export interface LoadResult {
  requests: number;
  reqPerSec: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Transport errors, timeouts, non-2xx answers and answers with GraphQL errors. */
  failures: number;
  /** The first failing answer's body, cut short. */
  firstFailure: string | null;
  /** Database commands the target sent per request received during the load (from /metrics; includes its background work). */
  commandsPerRequest: number | null;
  /** The target's RSS after the load (and its unfinished requests), in MiB. */
  rssMB: number | null;
}

export interface LoadSpec {
  /** Base URL of the target, e.g. http://127.0.0.1:4000. */
  base: string;
  connections: number;
  /** Seconds of measured load. */
  duration: number;
  /** Seconds of unmeasured load first (JIT, caches, pools). */
  warmup: number;
  /** The next request: path and, for POST, the JSON body. */
  next: () => { path: string; body?: string };
  /** Sent with every request (e.g. `authorization` for a server with API keys). */
  headers?: Record<string, string>;
}

export async function readMetrics(base: string): Promise<Metrics> {
  const response = await fetch(`${base}/metrics`);
  if (!response.ok) throw new Error(`GET ${base}/metrics answered ${response.status}`);
  // Builds from before the Prometheus format answered JSON with these names: `npm run bench:checks` compares with them.
  if ((response.headers.get('content-type') ?? '').startsWith('application/json'))
    return (await response.json()) as Metrics;
  const scrape = new Scrape(await response.text());
  return {
    graphqlRequests: scrape.value('hindsight_graphql_requests_total'),
    graphqlInFlight: scrape.value('hindsight_graphql_requests_in_flight'),
    databaseCommands: scrape.value('hindsight_database_command_duration_seconds_count'),
    rssBytes: scrape.value('process_resident_memory_bytes'),
  };
}

/** Longest wait for a target to finish the requests a previous load left running (answers nobody waits for). */
const IDLE_TIMEOUT_MS = 300_000;

/**
 * Waits until the target has no request in flight: a load's unfinished requests would otherwise run into the next
 * measurement. Returns its metrics then.
 */
export async function idleMetrics(base: string): Promise<Metrics> {
  const deadline = performance.now() + IDLE_TIMEOUT_MS;
  for (;;) {
    const metrics = await readMetrics(base);
    if (metrics.graphqlInFlight === 0 || performance.now() > deadline) return metrics;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Sends a few requests one by one and fails on the first bad answer, so a broken operation is reported as such. */
export async function check(spec: LoadSpec, count = 3): Promise<void> {
  for (let i = 0; i < count; i++) {
    const { path, body } = spec.next();
    const response = await fetch(
      `${spec.base}${path}`,
      body === undefined
        ? { headers: spec.headers }
        : { method: 'POST', headers: { ...spec.headers, 'content-type': 'application/json' }, body },
    );
    const text = await response.text();
    if (!response.ok || text.includes('"errors"'))
      throw new Error(`${path} answered ${response.status}: ${text.slice(0, 500)}`);
  }
}

/** How long a load lasts: seconds, or a number of requests. */
type Length = { duration: number } | { amount: number };

/** What a load is sent to, and what it sends. */
type LoadTarget = Pick<LoadSpec, 'base' | 'connections' | 'next' | 'headers'>;

function run(
  spec: LoadTarget,
  length: Length,
  latencies: number[] | null,
): Promise<{ result: autocannon.Result; failed: number; firstFailure: string | null }> {
  let failed = 0;
  let firstFailure: string | null = null;
  const instance = autocannon({
    url: spec.base,
    connections: spec.connections,
    ...length,
    timeout: 30,
    requests: [
      {
        setupRequest(request) {
          const { path, body } = spec.next();
          request.path = path;
          request.headers = { ...spec.headers };
          if (body !== undefined) {
            request.method = 'POST';
            request.headers['content-type'] = 'application/json';
            request.body = body;
          }
          return request;
        },
        // GraphQL answers most errors with status 200.
        onResponse(status, body) {
          if (status < 400 && !body.includes('"errors"')) return;
          failed++;
          firstFailure ??= `status ${status}: ${body.slice(0, 500)}`;
        },
      },
    ],
  });
  instance.on('response', (_client: unknown, _status: number, _bytes: number, ms: number) => latencies?.push(ms));
  return Promise.resolve(instance).then((result) => ({ result, failed, firstFailure }));
}

function percentile(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] : NaN;
}

const round = (value: number, digits = 1) => Number(value.toFixed(digits));

/** Warms up, then measures: req/s, latency percentiles (every response timed), failures, commands per request, RSS. */
export async function measureLoad(spec: LoadSpec): Promise<LoadResult> {
  await idleMetrics(spec.base);
  await check(spec);
  if (spec.warmup > 0) await run(spec, { duration: spec.warmup }, null);
  const before = await idleMetrics(spec.base);
  const latencies: number[] = [];
  const started = performance.now();
  const { result, failed, firstFailure } = await run(spec, { duration: spec.duration }, latencies);
  const seconds = (performance.now() - started) / 1000;
  // After the requests still running are done: the commands counted are then those of every request counted.
  const after = await idleMetrics(spec.base);
  latencies.sort((a, b) => a - b);
  const received = after.graphqlRequests - before.graphqlRequests;
  return {
    requests: latencies.length,
    reqPerSec: Math.round(latencies.length / seconds),
    p50Ms: round(percentile(latencies, 0.5)),
    p95Ms: round(percentile(latencies, 0.95)),
    p99Ms: round(percentile(latencies, 0.99)),
    maxMs: round(latencies.at(-1) ?? NaN),
    failures: failed + result.errors + result.timeouts,
    firstFailure,
    commandsPerRequest: received > 0 ? round((after.databaseCommands - before.databaseCommands) / received, 2) : null,
    rssMB: Math.round(after.rssBytes / 2 ** 20),
  };
}

/** Sends exactly `amount` requests (a measurement that counts work, not time); fails on the first bad answer. */
export async function sendRequests(spec: LoadTarget, amount: number): Promise<void> {
  const { result, failed, firstFailure } = await run(spec, { amount }, null);
  if (failed + result.errors + result.timeouts > 0)
    throw new Error(`${spec.base}: ${firstFailure ?? 'transport errors'}`);
}

/** POSTs a GraphQL operation; its `data`, or throws with its errors. */
// Kept-alive connections over node:http: fetch costs the bench's own process about 1 ms of CPU per request, which on
// a 2-core machine is taken from the server measured.
const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 64 });

export function postGraphQL(url: string, query: string, variables?: Record<string, unknown>): Promise<any> {
  const body = JSON.stringify({ query, variables });
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: 'POST',
        agent: keepAlive,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          try {
            const answer = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data?: any; errors?: unknown };
            if (answer.errors) reject(new Error(JSON.stringify(answer.errors)));
            else resolve(answer.data);
          } catch (error) {
            reject(new Error(`HTTP ${response.statusCode}: ${String(error)}`));
          }
        });
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}
