import { randomFillSync } from 'node:crypto';
import type { Config, TracesSampler } from '../config';
import type { Logger } from '../logger';

/**
 * OpenTelemetry traces, exported over OTLP/HTTP (JSON) while OTEL_EXPORTER_OTLP_ENDPOINT is set: a span per GraphQL
 * request (named by its operation), with child spans for its database calls and embedding calls.
 *
 * The request's span is handed on explicitly (the request's lifetime carries it to its bound `Db` and to the signal
 * of its embedding calls), not through an async context: on Node 20 an AsyncLocalStorage hooks every promise of the
 * process, and with the SDK's span objects and export that cost a small read a third more CPU. Spans here are plain
 * records, encoded to OTLP's JSON once per batch. Unset, `activeTracer()` is undefined and each recording site costs
 * one check.
 *
 * Attributes never hold a secret or a user's data: no query text, variables, command bodies, texts or keys.
 */

export type AttributeValue = string | number | boolean;
export type Attributes = Record<string, AttributeValue>;

/** OTLP's span kinds. */
export const SpanKind = { INTERNAL: 1, SERVER: 2, CLIENT: 3 } as const;

/** Spans sent per export at most; more are sent at once rather than waiting for the timer. */
const MAX_BATCH = 512;
const EXPORT_INTERVAL_MS = 1000;
/** Spans kept while the collector does not answer; past it the oldest are dropped (and counted in the log). */
const MAX_QUEUED = 8192;

const ID_POOL_BYTES = 4096;
let idPool = Buffer.alloc(0);
let idAt = 0;

/** `bytes` random bytes as hex, from a pool refilled with crypto's generator. */
function randomId(bytes: number): string {
  if (idAt + bytes > idPool.length) {
    idPool = randomFillSync(Buffer.alloc(ID_POOL_BYTES));
    idAt = 0;
  }
  const id = idPool.toString('hex', idAt, idAt + bytes);
  idAt += bytes;
  return id;
}

/** Now, in milliseconds since the epoch with sub-millisecond precision. */
const now = (): number => performance.timeOrigin + performance.now();

/** OTLP's nanosecond timestamps, as decimal strings (they exceed a double's integers). */
function nanos(ms: number): string {
  const whole = Math.floor(ms);
  const fraction = Math.min(999_999, Math.round((ms - whole) * 1e6));
  return `${whole}${String(fraction).padStart(6, '0')}`;
}

/** One span being recorded; `end` hands it to the tracer once. */
export class Span {
  private readonly start = now();
  private endedAt: number | undefined;
  private failure: string | undefined;

  constructor(
    private readonly tracer: Tracer,
    readonly traceId: string,
    readonly spanId: string,
    private readonly parentSpanId: string | undefined,
    public name: string,
    private readonly kind: number,
    private readonly attributes: Attributes,
  ) {}

  setAttribute(key: string, value: AttributeValue): void {
    this.attributes[key] = value;
  }

  /** A span of this one's trace, started now. */
  child(name: string, attributes: Attributes, kind: number = SpanKind.CLIENT): Span {
    return new Span(this.tracer, this.traceId, randomId(8), this.spanId, name, kind, attributes);
  }

  /** Marks the span failed; the error's class only: a message may quote an upstream body or a URI. */
  fail(error?: unknown): void {
    this.failure = error instanceof Error ? error.name : 'error';
  }

  end(): void {
    if (this.endedAt !== undefined) return;
    this.endedAt = now();
    this.tracer.record(this);
  }

  /** OTLP/JSON's span. */
  encoded(): Record<string, unknown> {
    return {
      traceId: this.traceId,
      spanId: this.spanId,
      ...(this.parentSpanId ? { parentSpanId: this.parentSpanId } : {}),
      name: this.name,
      kind: this.kind,
      startTimeUnixNano: nanos(this.start),
      endTimeUnixNano: nanos(this.endedAt ?? this.start),
      attributes: encodedAttributes(this.attributes),
      status: this.failure === undefined ? { code: 0 } : { code: 2, message: this.failure },
    };
  }
}

function encodedAttributes(attributes: Attributes): Array<{ key: string; value: Record<string, unknown> }> {
  return Object.entries(attributes).map(([key, value]) => ({
    key,
    value:
      typeof value === 'string'
        ? { stringValue: value }
        : typeof value === 'boolean'
          ? { boolValue: value }
          : Number.isInteger(value)
            ? { intValue: value }
            : { doubleValue: value },
  }));
}

/** Decides, per request, whether it is traced (the OpenTelemetry sampler names; requests carry no parent). */
function samplerOf(name: TracesSampler, ratio: number): () => boolean {
  const root = name.replace(/^parentbased_/, '');
  if (root === 'always_on') return () => true;
  if (root === 'always_off') return () => false;
  return () => Math.random() < ratio;
}

/** Records spans and exports them in batches to `<endpoint>/v1/traces`. */
export class Tracer {
  private queue: Span[] = [];
  private timer: NodeJS.Timeout | undefined;
  private exporting: Promise<void> = Promise.resolve();
  private dropped = 0;
  private readonly resource: Record<string, unknown>;
  private readonly scope: Record<string, unknown>;

  constructor(
    private readonly url: string,
    private readonly headers: Record<string, string>,
    private readonly sampled: () => boolean,
    private readonly logger: Logger,
    serviceName: string,
    version: string,
  ) {
    this.resource = {
      attributes: encodedAttributes({ 'service.name': serviceName, 'service.version': version }),
    };
    this.scope = { name: 'hindsight', version };
  }

  /** The span of a GraphQL request, or undefined when the sampler leaves the request out (none of its work is traced). */
  startRequest(requestId: string): Span | undefined {
    if (!this.sampled()) return undefined;
    return new Span(this, randomId(16), randomId(8), undefined, 'graphql', SpanKind.SERVER, {
      'hindsight.request_id': requestId,
    });
  }

  /** A trace of its own, for work outside of any request (a background re-embedding's calls). */
  startRoot(name: string, attributes: Attributes, kind: number = SpanKind.CLIENT): Span | undefined {
    if (!this.sampled()) return undefined;
    return new Span(this, randomId(16), randomId(8), undefined, name, kind, attributes);
  }

  record(span: Span): void {
    this.queue.push(span);
    if (this.queue.length > MAX_QUEUED) this.dropped += this.queue.splice(0, this.queue.length - MAX_QUEUED).length;
    // A full batch goes at once (unless one is on its way); the rest waits for the interval.
    if (this.queue.length >= MAX_BATCH && !this.sending) void this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), EXPORT_INTERVAL_MS);
      this.timer.unref();
    }
  }

  private sending = false;

  /** Sends what is queued now, in batches, after any export in progress. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const spans = this.queue;
    this.queue = [];
    this.exporting = this.exporting.then(async () => {
      this.sending = true;
      try {
        for (let at = 0; at < spans.length; at += MAX_BATCH) await this.send(spans.slice(at, at + MAX_BATCH));
      } finally {
        this.sending = false;
      }
    });
    return this.exporting;
  }

  private async send(spans: Span[]): Promise<void> {
    const body = JSON.stringify({
      resourceSpans: [
        { resource: this.resource, scopeSpans: [{ scope: this.scope, spans: spans.map((span) => span.encoded()) }] },
      ],
    });
    try {
      const response = await fetch(this.url, {
        method: 'POST',
        headers: { ...this.headers, 'content-type': 'application/json' },
        body,
        signal: AbortSignal.timeout(10_000),
      });
      await response.arrayBuffer();
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
    } catch (error) {
      // The collector's URL and headers are never logged (they may hold credentials).
      this.logger.warn('trace export failed', {
        spans: spans.length,
        dropped: this.dropped,
        error: error instanceof Error ? error.name : 'error',
      });
    }
  }
}

let tracer: Tracer | undefined;

/** The tracer while tracing runs (see startTracing), else undefined. */
export function activeTracer(): Tracer | undefined {
  return tracer;
}

/** What a request's embedding calls find their parent span by: the signal of the request's lifetime. */
const spansOfSignals = new WeakMap<AbortSignal, Span | null>();

/** Makes `signal` stand for a request traced as `span`, or (null) for one the sampler left out. */
export function traceSignal(signal: AbortSignal, span: Span | null): void {
  spansOfSignals.set(signal, span);
}

/**
 * Runs `run` in a span named `name` when tracing: a child of the request `signal` belongs to, or, outside of any
 * request, a trace of its own. Within a request the sampler left out, no span.
 */
export async function inSpan<T>(
  name: string,
  attributes: Attributes,
  signal: AbortSignal | undefined,
  run: () => Promise<T>,
): Promise<T> {
  if (!tracer) return run();
  const parent = signal ? spansOfSignals.get(signal) : undefined;
  const span =
    parent === null ? undefined : parent ? parent.child(name, attributes) : tracer.startRoot(name, attributes);
  if (!span) return run();
  try {
    return await run();
  } catch (error) {
    span.fail(error);
    throw error;
  } finally {
    span.end();
  }
}

/** Tracing while running; `close` exports what is pending and stops. */
export interface Tracing {
  close(): Promise<void>;
}

/** Starts exporting spans to `config.otlpEndpoint` (/v1/traces), or does nothing and returns null when it is unset. */
export function startTracing(
  config: Pick<Config, 'otlpEndpoint' | 'otlpHeaders' | 'serviceName' | 'tracesSampler' | 'tracesSamplerRatio'>,
  version: string,
  logger: Logger,
): Tracing | null {
  if (!config.otlpEndpoint) return null;
  const own = new Tracer(
    `${config.otlpEndpoint}/v1/traces`,
    config.otlpHeaders,
    samplerOf(config.tracesSampler, config.tracesSamplerRatio),
    logger,
    config.serviceName,
    version,
  );
  tracer = own;
  return {
    async close() {
      if (tracer === own) tracer = undefined;
      await own.flush();
    },
  };
}

/** What a request's log lines carry: its id, and its trace id when the request is traced. */
export function requestLogFields(requestId: string, span: Span | null | undefined): Record<string, string> {
  return span ? { requestId, traceId: span.traceId } : { requestId };
}

/** The log fields of the request an error arose in (see `noteErrorRequest`), for the error formatter's lines. */
const requestsOfErrors = new WeakMap<object, Record<string, string>>();

/** Notes that `error` arose in the request whose log fields are `fields`. */
export function noteErrorRequest(error: object, fields: Record<string, string>): void {
  requestsOfErrors.set(error, fields);
}

export function errorRequest(error: unknown): Record<string, string> | undefined {
  return typeof error === 'object' && error !== null ? requestsOfErrors.get(error) : undefined;
}
