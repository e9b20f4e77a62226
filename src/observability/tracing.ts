import { randomFillSync } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { Config, TracesSampler } from '../config';
import type { Logger } from '../logger';
import {
  otlpEncoding,
  type Attributes,
  type AttributeValue,
  type EndedSpan,
  type OtlpEncoding,
  type OtlpProtocol,
} from './otlp-encoding';

/**
 * OpenTelemetry traces, exported over OTLP/HTTP (protobuf or JSON) while OTEL_EXPORTER_OTLP_ENDPOINT is set: a span
 * per GraphQL request (named by its operation), with child spans for its database calls and embedding calls.
 *
 * The request's span is handed on explicitly (the request's lifetime carries it to its bound `Db` and to the signal
 * of its embedding calls), not through an async context: on Node 20 an AsyncLocalStorage hooks every promise of the
 * process, and with the SDK's span objects and export that cost a small read a third more CPU. Spans here are plain
 * records, each encoded (otlp-encoding.ts) into the batch's buffer as it ends and sent in batches. Unset,
 * `activeTracer()` is undefined and each recording site costs one check.
 *
 * Attributes never hold a secret or a user's data: no query text, variables, command bodies, texts or keys.
 */

export type { Attributes, AttributeValue } from './otlp-encoding';

/** OTLP's span kinds. */
export const SpanKind = { INTERNAL: 1, SERVER: 2, CLIENT: 3 } as const;

/** Spans sent per export at most; more are sent at once rather than waiting for the timer. */
const MAX_BATCH = 512;
const EXPORT_INTERVAL_MS = 1000;
/** Spans kept while the collector does not answer; past it the oldest batches are dropped (and counted in the log). */
const MAX_QUEUED = 8192;

const ID_POOL_BYTES = 4096;
/** Random bytes from crypto's generator, as hex: ids are cut from it (a substring each, no conversion per id). */
let idPool = '';
let idAt = 0;

/** `bytes` random bytes as hex. */
function randomId(bytes: number): string {
  const chars = 2 * bytes;
  if (idAt + chars > idPool.length) {
    idPool = randomFillSync(Buffer.alloc(ID_POOL_BYTES)).toString('hex');
    idAt = 0;
  }
  const id = idPool.substring(idAt, idAt + chars);
  idAt += chars;
  return id;
}

/**
 * Wall-clock time minus the monotonic clock. `performance.timeOrigin + performance.now()` alone drifts from the
 * wall clock over a process's life (NTP slews and steps it, not the monotonic clock), so each reading checks it
 * against `Date.now()`. That reads whole milliseconds, so the offset only moves when the wall clock is ahead of
 * it or more than a millisecond behind: it stays within a millisecond below the true offset, and steady.
 */
let wallOffset = Date.now() - performance.now();

/** Now, in milliseconds since the epoch with sub-millisecond precision. */
function now(monotonic: number): number {
  const measured = Date.now() - monotonic;
  if (measured > wallOffset || measured < wallOffset - 1) wallOffset = measured;
  return wallOffset + monotonic;
}

/** One span being recorded; `end` hands it to the tracer once. */
export class Span implements EndedSpan {
  private readonly startedMonotonic = performance.now();
  readonly startMs = now(this.startedMonotonic);
  endMs = 0;
  failure: string | undefined;
  private ended = false;

  constructor(
    private readonly tracer: Tracer,
    readonly traceId: string,
    readonly spanId: string,
    readonly parentSpanId: string | undefined,
    public name: string,
    readonly kind: number,
    readonly attributes: Attributes,
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

  /** Ends the span: encoded into the batch at once (its bytes are all that waits for the export, not the span). */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    // The monotonic clock's duration: a wall-clock step inside the span does not stretch it or make it negative.
    this.endMs = this.startMs + (performance.now() - this.startedMonotonic);
    this.tracer.record(this);
  }
}

/** Attributes many spans share (a database call's): frozen, and encoded once for all of them. */
export function sharedAttributes(attributes: Attributes): Attributes {
  return Object.freeze(attributes);
}

/** Decides, per request, whether it is traced (the OpenTelemetry sampler names; requests carry no parent). */
function samplerOf(name: TracesSampler, ratio: number): () => boolean {
  const root = name.replace(/^parentbased_/, '');
  if (root === 'always_on') return () => true;
  if (root === 'always_off') return () => false;
  return () => Math.random() < ratio;
}

/** Bytes a batch's buffer starts with; a span larger than what is left seals the batch (see Tracer.record). */
const BATCH_BYTES = 256 * 1024;
/** Batch buffers kept for reuse: one being filled while another is on its way is the steady state. */
const SPARE_BATCHES = 2;

/** Records spans and exports them in batches to `<endpoint>/v1/traces`. */
export class Tracer {
  /**
   * The batch being filled: each span is encoded into it as the span ends, so that no span's text outlives its
   * request on the heap (held strings survived collections, and joining them at export cost as much again).
   */
  private batch: Buffer;
  private batchAt = 0;
  /** Where the batch's first span goes. */
  private spansAt = 0;
  private batchSpans = 0;
  /** Sealed batches waiting for their export, each a complete request body. */
  private ready: Array<{ body: Buffer; spans: number; batch: Buffer }> = [];
  /** Buffers of answered exports, filled again: a fresh buffer per batch made tracing cost about twice as much. */
  private readonly spare: Buffer[] = [];
  private readySpans = 0;
  private timer: NodeJS.Timeout | undefined;
  private exporting: Promise<void> = Promise.resolve();
  private sending = false;
  private dropped = 0;
  private readonly encoding: OtlpEncoding;
  private readonly target: URL;
  private readonly agent: http.Agent;

  constructor(
    url: string,
    private readonly headers: Record<string, string>,
    private readonly sampled: () => boolean,
    private readonly logger: Logger,
    serviceName: string,
    version: string,
    protocol: OtlpProtocol = 'http/protobuf',
  ) {
    this.target = new URL(url);
    this.agent = new (this.target.protocol === 'https:' ? https : http).Agent({ keepAlive: true, maxSockets: 1 });
    this.encoding = otlpEncoding(
      protocol,
      { 'service.name': serviceName, 'service.version': version },
      { name: 'hindsight', version },
    );
    this.batch = this.newBatch(0);
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

  /** A batch buffer holding the body's opening, with room for a span of `spanBytes` at least. */
  private newBatch(spanBytes: number): Buffer {
    const bytes = Math.max(BATCH_BYTES, 2 * this.encoding.framingBytes + spanBytes);
    const spare = this.spare.pop();
    const batch = spare && spare.length >= bytes ? spare : Buffer.allocUnsafe(bytes);
    this.batchAt = this.spansAt = this.encoding.open(batch);
    this.batchSpans = 0;
    return batch;
  }

  /** Adds an ended span to the batch. */
  record(span: EndedSpan): void {
    const most = this.encoding.measure(span);
    if (this.batchAt + most + this.encoding.framingBytes > this.batch.length) this.seal(most);
    this.batchAt = this.encoding.write(this.batch, this.batchAt, this.batchSpans === 0);
    this.batchSpans++;
    // A full batch goes at once (unless one is on its way); the rest waits for the interval.
    if (this.batchSpans >= MAX_BATCH) void this.flush();
    if (!this.timer && this.readySpans + this.batchSpans > 0) {
      this.timer = setTimeout(() => void this.flush(), EXPORT_INTERVAL_MS);
      this.timer.unref();
    }
  }

  /**
   * Closes the batch being filled into a request body and queues it (dropping the oldest past MAX_QUEUED spans), then
   * starts the next with room for a span of `spanBytes`.
   */
  private seal(spanBytes = 0): void {
    if (this.batchSpans === 0) {
      // Empty: kept, unless the span to come needs a larger one.
      if (spanBytes > 0) this.batch = this.newBatch(spanBytes);
      return;
    }
    const body = this.encoding.close(this.batch, this.spansAt, this.batchAt);
    this.ready.push({ body, spans: this.batchSpans, batch: this.batch });
    this.readySpans += this.batchSpans;
    while (this.readySpans > MAX_QUEUED && this.ready.length > 1) {
      const oldest = this.ready.shift()!;
      this.readySpans -= oldest.spans;
      this.dropped += oldest.spans;
    }
    this.batch = this.newBatch(spanBytes);
  }

  /**
   * Sends what is recorded now, batch by batch; while an export is on its way, the batches wait in `ready` (bounded
   * by MAX_QUEUED) and go after it. Resolves once nothing recorded before the call is left to send.
   */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.seal();
    if (!this.sending) this.exporting = this.drain();
    return this.exporting;
  }

  private async drain(): Promise<void> {
    this.sending = true;
    try {
      for (let batch = this.ready.shift(); batch; batch = this.ready.shift()) {
        this.readySpans -= batch.spans;
        // Answered, the collector has read the whole body: its buffer can be filled again (a failed export's socket
        // may still hold it).
        if ((await this.send(batch.body, batch.spans)) && this.spare.length < SPARE_BATCHES)
          this.spare.push(batch.batch);
      }
    } finally {
      this.sending = false;
    }
  }

  /**
   * One export over node:http(s) on a kept-alive connection (fetch cost several times the CPU per export); true once
   * the collector accepted it.
   */
  private async send(body: Buffer, spans: number): Promise<boolean> {
    try {
      await new Promise<void>((resolve, reject) => {
        const request = (this.target.protocol === 'https:' ? https : http).request(
          this.target,
          {
            method: 'POST',
            agent: this.agent,
            timeout: 10_000,
            headers: { ...this.headers, 'content-type': this.encoding.contentType, 'content-length': body.length },
          },
          (response) => {
            response.resume();
            response.on('error', reject);
            response.on('end', () => {
              const status = response.statusCode ?? 0;
              if (status >= 200 && status < 300) resolve();
              else reject(Object.assign(new Error('export refused'), { code: `HTTP ${status}` }));
            });
          },
        );
        request.on('timeout', () => request.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
        request.on('error', reject);
        request.end(body);
      });
      return true;
    } catch (error) {
      // The collector's URL and headers are never logged (they may hold credentials).
      this.logger.warn('trace export failed', {
        spans,
        dropped: this.dropped,
        // A code (ECONNREFUSED) or the status, never a message, which may quote the collector's address.
        error: error instanceof Error ? ((error as NodeJS.ErrnoException).code ?? error.name) : 'error',
      });
      return false;
    }
  }

  /** Closes the kept-alive connection. */
  close(): void {
    this.agent.destroy();
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
  config: Pick<
    Config,
    'otlpEndpoint' | 'otlpProtocol' | 'otlpHeaders' | 'serviceName' | 'tracesSampler' | 'tracesSamplerRatio'
  >,
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
    config.otlpProtocol,
  );
  tracer = own;
  return {
    async close() {
      if (tracer === own) tracer = undefined;
      await own.flush();
      own.close();
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
