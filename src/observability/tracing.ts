import {
  context,
  createContextKey,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
  type Sampler,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import type { CommandFailedEvent, CommandStartedEvent, CommandSucceededEvent, MongoClient } from 'mongodb';
import type { Config, TracesSampler } from '../config';
import { setLogContext } from './log-context';

/**
 * OpenTelemetry traces, exported over OTLP/HTTP (JSON) while OTEL_EXPORTER_OTLP_ENDPOINT is set: a span per GraphQL
 * request (named by its operation), with child spans for its database commands and embedding calls. Unset, nothing of
 * the SDK is loaded and `tracer` stays undefined, so the recording sites cost one check.
 *
 * Attributes never hold a secret or a user's data: no query text, variables, command bodies, texts or keys.
 */
let tracer: Tracer | undefined;

const REQUEST_ID = createContextKey('hindsight.request_id');

/** The tracer while tracing runs (see startTracing), else undefined. */
export function activeTracer(): Tracer | undefined {
  return tracer;
}

/**
 * Runs `run` in a new active span of its own (a child of the active one): a GraphQL request, with its id. A request
 * the sampler leaves out still runs in its (non-recording) span, so that none of its work starts a trace of its own.
 */
export function inRequestSpan<T>(active: Tracer, requestId: string, run: (span: Span) => Promise<T>): Promise<T> {
  const parent = context.active().setValue(REQUEST_ID, requestId);
  const attributes = { 'hindsight.request_id': requestId };
  return active.startActiveSpan('graphql', { kind: SpanKind.SERVER, attributes }, parent, run);
}

/** Runs `run` in a child span named `name` when tracing, ending it (with an error status on failure) as it settles. */
export async function inSpan<T>(name: string, attributes: Attributes, run: () => Promise<T>): Promise<T> {
  if (!tracer) return run();
  // Within a request the sampler left out: no span (outside of any request, the call is a trace of its own).
  const parent = trace.getSpan(context.active());
  if (parent && !parent.isRecording()) return run();
  return tracer.startActiveSpan(name, { kind: SpanKind.CLIENT, attributes }, async (span) => {
    try {
      return await run();
    } catch (error) {
      failed(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

function failed(span: Span, error: unknown): void {
  // The error's class only: a message may quote an upstream body or a URI.
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : 'error' });
}

/** Tracing while running; `close` exports what is pending and stops. */
export interface Tracing {
  close(): Promise<void>;
}

/**
 * Starts exporting spans to `config.otlpEndpoint` (/v1/traces), or does nothing and resolves null when it is unset.
 * Database commands are traced from the driver's command monitoring: `client` must be created with monitorCommands.
 */
export async function startTracing(
  config: Pick<Config, 'otlpEndpoint' | 'otlpHeaders' | 'serviceName' | 'tracesSampler' | 'tracesSamplerRatio'>,
  version: string,
  client: MongoClient,
): Promise<Tracing | null> {
  if (!config.otlpEndpoint) return null;
  const [{ AsyncLocalStorageContextManager }, { OTLPTraceExporter }, { resourceFromAttributes }, sdk] =
    await Promise.all([
      import('@opentelemetry/context-async-hooks'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/resources'),
      import('@opentelemetry/sdk-trace'),
    ]);
  // Child spans find their parent through the async context; registered once per process (a second call is refused).
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const exporter = new OTLPTraceExporter({ url: `${config.otlpEndpoint}/v1/traces`, headers: config.otlpHeaders });
  const provider = new sdk.TracerProvider({
    resource: resourceFromAttributes({ 'service.name': config.serviceName, 'service.version': version }),
    sampler: samplerOf(sdk, config.tracesSampler, config.tracesSamplerRatio),
    spanProcessors: [new sdk.BatchSpanProcessor({ exporter })],
  });
  const own = provider.getTracer('hindsight', version);
  tracer = own;
  setLogContext(traceLogFields);
  const stopCommands = traceCommands(client, own);
  return {
    async close() {
      stopCommands();
      if (tracer === own) {
        tracer = undefined;
        setLogContext(undefined);
      }
      await provider.shutdown();
    },
  };
}

/**
 * OTEL_TRACES_SAMPLER as the OpenTelemetry environment specification has it. Requests carry no incoming trace
 * context (none is read), so a parentbased_* sampler decides as its root sampler.
 */
function samplerOf(sdk: typeof import('@opentelemetry/sdk-trace'), name: TracesSampler, ratio: number): Sampler {
  const root = name.replace(/^parentbased_/, '');
  const sampler =
    root === 'always_on'
      ? new sdk.AlwaysOnSampler()
      : root === 'always_off'
        ? new sdk.AlwaysOffSampler()
        : new sdk.TraceIdRatioBasedSampler(ratio);
  return name.startsWith('parentbased_') ? new sdk.ParentBasedSampler({ root: sampler }) : sampler;
}

/** The request id, and the trace id when its trace is exported, of the active request, for its log lines. */
function traceLogFields(): Record<string, unknown> | undefined {
  const active = context.active();
  const span = trace.getSpan(active);
  if (!span) return undefined;
  const { traceId, traceFlags } = span.spanContext();
  const requestId = active.getValue(REQUEST_ID);
  return traceFlags & TraceFlags.SAMPLED ? { requestId, traceId } : { requestId };
}

/** A child span per database command sent within a traced request (commands outside of one are not traced). */
function traceCommands(client: MongoClient, own: Tracer): () => void {
  const spans = new Map<number, Span>();
  const started = (event: CommandStartedEvent) => {
    // Outside of a request, or in one the sampler left out: not traced.
    if (!trace.getSpan(context.active())?.isRecording()) return;
    const collection = event.command[event.commandName];
    const target = typeof collection === 'string' ? collection : undefined;
    const span = own.startSpan(target ? `${event.commandName} ${target}` : event.commandName, {
      kind: SpanKind.CLIENT,
      attributes: {
        'db.system.name': 'mongodb',
        'db.operation.name': event.commandName,
        'db.namespace': event.databaseName,
        ...(target ? { 'db.collection.name': target } : {}),
      },
    });
    spans.set(event.requestId, span);
  };
  const ended = (event: CommandSucceededEvent | CommandFailedEvent) => {
    const span = spans.get(event.requestId);
    if (!span) return;
    spans.delete(event.requestId);
    if ('failure' in event) failed(span, event.failure);
    span.end();
  };
  client.on('commandStarted', started);
  client.on('commandSucceeded', ended);
  client.on('commandFailed', ended);
  return () => {
    client.off('commandStarted', started);
    client.off('commandSucceeded', ended);
    client.off('commandFailed', ended);
    for (const span of spans.values()) span.end();
    spans.clear();
  };
}
