import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The process's metrics, served by GET /metrics in the Prometheus text format. One registry per process (not
 * prom-client's global one, which a library might fill too): what is measured here is the process's, whichever app
 * instance served it. Recording is a counter increment or a histogram observation; nothing is computed until scraped.
 */
export const registry = new Registry();

/** Seconds, from a fast cached read to a slow search or a cold embedding call. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Distinct values a client-chosen label (an operation name) takes before the rest are counted as `other`. */
export const MAX_LABEL_VALUES = 100;
export const OTHER = 'other';

/**
 * The children of a metric with one label, at most `max` distinct values (then {@link OTHER}): a label a client
 * chooses must not grow the scrape without bound. Children are kept, so a request looks its value up in a Map.
 */
class BoundedLabel<T> {
  private readonly children = new Map<string, T>();

  constructor(
    private readonly child: (value: string) => T,
    private readonly max = MAX_LABEL_VALUES,
  ) {}

  get(value: string): T {
    let child = this.children.get(value);
    if (child !== undefined) return child;
    // Values past the bound are not remembered: each is looked up as `other`.
    if (this.children.size >= this.max && value !== OTHER) return this.get(OTHER);
    child = this.child(value);
    this.children.set(value, child);
    return child;
  }
}

export const graphqlRequests = new Counter({
  name: 'hindsight_graphql_requests_total',
  help: 'GraphQL requests received over HTTP (POST and GET /graphql).',
  registers: [registry],
});

export const graphqlFastPath = new Counter({
  name: 'hindsight_graphql_fast_path_total',
  help: "GraphQL requests answered by the fast path (repeated queries and mutations, without Apollo's pipeline).",
  registers: [registry],
});

export const graphqlInFlight = new Gauge({
  name: 'hindsight_graphql_requests_in_flight',
  help: 'GraphQL requests being answered now.',
  registers: [registry],
});

const graphqlDuration = new Histogram({
  name: 'hindsight_graphql_request_duration_seconds',
  help: `GraphQL request latency by operation name ("anonymous" when unnamed, "unknown" when unread, "${OTHER}" past ${MAX_LABEL_VALUES} names).`,
  labelNames: ['operation'],
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});
const graphqlDurationByOperation = new BoundedLabel((operation) => graphqlDuration.labels(operation));

/** Records one GraphQL request's latency under its operation label (see operationLabel in operation.ts). */
export function observeGraphQLRequest(operation: string, seconds: number): void {
  graphqlDurationByOperation.get(operation).observe(seconds);
}

const graphqlErrors = new Counter({
  name: 'hindsight_graphql_errors_total',
  help: 'Errors answered in GraphQL responses, by extensions.code.',
  labelNames: ['code'],
  registers: [registry],
});
const graphqlErrorsByCode = new BoundedLabel((code) => graphqlErrors.labels(code));

/** Counts one error answered to a client, by its code. */
export function countGraphQLError(code: string): void {
  graphqlErrorsByCode.get(code).inc();
}

export const databaseCommandDuration = new Histogram({
  name: 'hindsight_database_command_duration_seconds',
  help: 'Database commands: how long each held its connection (sent, answered, reply read).',
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});

const searchDuration = new Histogram({
  name: 'hindsight_search_duration_seconds',
  help: 'Searches of one space by backend (memory: in-process HNSW, atlas: $vectorSearch, keyword: BM25).',
  labelNames: ['space', 'backend'],
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});

/** Records one search of `space` by `backend`. Spaces are defined by the code, so their number is bounded. */
export function observeSearch(space: string, backend: string, seconds: number): void {
  searchDuration.labels(space, backend).observe(seconds);
}

export const embeddingDuration = new Histogram({
  name: 'hindsight_embedding_call_duration_seconds',
  help: 'Calls to the embedding provider (one per batch of texts not in the cache), failed ones included.',
  labelNames: ['provider'],
  buckets: LATENCY_BUCKETS,
  registers: [registry],
});

export const embeddingErrors = new Counter({
  name: 'hindsight_embedding_call_errors_total',
  help: 'Calls to the embedding provider that failed.',
  labelNames: ['provider'],
  registers: [registry],
});

export const embeddingTruncations = new Counter({
  name: 'hindsight_embedding_inputs_truncated_total',
  help: "Texts longer than the embedding model reads, embedded from their beginning cut to the model's input limit.",
  labelNames: ['provider'],
  registers: [registry],
});

export const embeddingCacheHits = new Counter({
  name: 'hindsight_embedding_cache_hits_total',
  help: 'Texts whose vector came from the embedding cache.',
  registers: [registry],
});

export const embeddingCacheMisses = new Counter({
  name: 'hindsight_embedding_cache_misses_total',
  help: 'Texts sent to the embedding provider (not in the cache).',
  registers: [registry],
});

const subscriptions = new Gauge({
  name: 'hindsight_subscriptions',
  help: 'GraphQL subscriptions open now (over WebSocket).',
  registers: [registry],
});

/** Counts a subscription as open; the function returned counts it closed (once, however often it is called). */
export function openSubscription(): () => void {
  subscriptions.inc();
  let open = true;
  return () => {
    if (open) subscriptions.dec();
    open = false;
  };
}

/** What each following database reports at a scrape: its spaces' lags in seconds (see watchFollowerLag). */
const followerLagSources = new Set<() => Iterable<[space: string, seconds: number]>>();

new Gauge({
  name: 'hindsight_search_follower_lag_seconds',
  help: "How far each in-process search space is behind its collection's changes, in seconds (the largest across databases).",
  labelNames: ['space'],
  registers: [registry],
  // Read at the scrape: a lag grows while nothing is applied, so a value set at the last event would be stale.
  collect() {
    const lags = new Map<string, number>();
    for (const source of followerLagSources)
      for (const [space, seconds] of source()) lags.set(space, Math.max(lags.get(space) ?? 0, seconds));
    this.reset();
    for (const [space, seconds] of lags) this.labels(space).set(seconds);
  },
});

/** Reports the lags `source` gives at every scrape, until the function returned is called. */
export function watchFollowerLag(source: () => Iterable<[space: string, seconds: number]>): () => void {
  followerLagSources.add(source);
  return () => followerLagSources.delete(source);
}

/** Seconds the event loop was late: a 10 ms sample's lateness up to a stall that froze every client. */
const EVENT_LOOP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** How often (ms) perf_hooks' event-loop timer samples. */
const EVENT_LOOP_RESOLUTION_MS = 10;
const EVENT_LOOP_DELAY = 'hindsight_event_loop_delay_seconds';

let eventLoopMonitor: IntervalHistogram | undefined;

/**
 * The event loop's delay as a Prometheus histogram, read at each scrape from perf_hooks' monitorEventLoopDelay, which
 * keeps every sample since the start (HDR, about 1% precision) and is never reset: a reset makes it drop the sample
 * after it, which may be the stall. A sample is the time between two runs of its 10 ms timer less those 10 ms; the
 * count at or below a bucket's bound is the rank of the bound among the samples, found by bisecting its percentiles.
 */
const eventLoopDelay = {
  name: EVENT_LOOP_DELAY,
  help: `How late the event loop ran a timer due every ${EVENT_LOOP_RESOLUTION_MS} ms (perf_hooks' monitorEventLoopDelay): a request that blocks the loop for N seconds adds one sample of about N.`,
  type: 'histogram',
  aggregator: 'sum',
  async get() {
    const monitor = eventLoopMonitor;
    const count = monitor?.count ?? 0;
    const lateness = (nanoseconds: number) => Math.max(0, nanoseconds / 1e6 - EVENT_LOOP_RESOLUTION_MS) / 1000;
    const values: Array<{ metricName: string; labels?: Record<string, string | number>; value: number }> = [];
    for (const bound of EVENT_LOOP_BUCKETS) {
      values.push({
        metricName: `${EVENT_LOOP_DELAY}_bucket`,
        labels: { le: bound },
        value: monitor && count ? Math.round((count * rankOf(monitor, bound, lateness)) / 100) : 0,
      });
    }
    values.push({ metricName: `${EVENT_LOOP_DELAY}_bucket`, labels: { le: '+Inf' }, value: count });
    values.push({
      metricName: `${EVENT_LOOP_DELAY}_sum`,
      value: monitor && count ? count * lateness(monitor.mean) : 0,
    });
    values.push({ metricName: `${EVENT_LOOP_DELAY}_count`, value: count });
    return { name: EVENT_LOOP_DELAY, help: this.help, type: 'histogram', aggregator: 'sum', values };
  },
  reset() {
    // The monitor's samples are the process's since its start, as a histogram's are.
  },
};
registry.registerMetric(eventLoopDelay as unknown as Parameters<Registry['registerMetric']>[0]);

/** The percentile (0-100) of the monitor's samples at or below `bound` seconds of lateness, to 1e-6. */
function rankOf(monitor: IntervalHistogram, bound: number, lateness: (nanoseconds: number) => number): number {
  if (lateness(monitor.max) <= bound) return 100;
  if (lateness(monitor.min) > bound) return 0;
  let low = 0;
  let high = 100;
  for (let step = 0; step < 27; step++) {
    const middle = (low + high) / 2;
    if (lateness(monitor.percentile(middle)) <= bound) low = middle;
    else high = middle;
  }
  return low;
}

let processMetrics = false;

/**
 * Adds prom-client's default process and Node.js metrics (CPU, memory, event loop lag, GC, handles) and the event
 * loop's delay histogram to the registry, once per process: they sample the event loop's delay, so only a serving
 * process turns them on.
 */
export function collectProcessMetrics(): void {
  if (processMetrics) return;
  processMetrics = true;
  collectDefaultMetrics({ register: registry });
  eventLoopMonitor = monitorEventLoopDelay({ resolution: EVENT_LOOP_RESOLUTION_MS });
  eventLoopMonitor.enable();
}
