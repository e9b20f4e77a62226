import {
  context,
  createContextKey,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import type { CommandFailedEvent, CommandStartedEvent, CommandSucceededEvent, MongoClient } from 'mongodb';
import type { Config } from '../config';
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

/** Runs `run` in a new active span of its own (a child of the active one): a GraphQL request, with its id. */
export function inRequestSpan<T>(active: Tracer, requestId: string, run: (span: Span) => Promise<T>): Promise<T> {
  const parent = context.active().setValue(REQUEST_ID, requestId);
  const attributes = { 'hindsight.request_id': requestId };
  return active.startActiveSpan('graphql', { kind: SpanKind.SERVER, attributes }, parent, run);
}

/** Runs `run` in a child span named `name` when tracing, ending it (with an error status on failure) as it settles. */
export async function inSpan<T>(name: string, attributes: Attributes, run: () => Promise<T>): Promise<T> {
  if (!tracer) return run();
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
  config: Pick<Config, 'otlpEndpoint' | 'otlpHeaders' | 'serviceName'>,
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

/** The request id and trace id of the active request, for log lines written while it runs. */
function traceLogFields(): Record<string, unknown> | undefined {
  const active = context.active();
  const span = trace.getSpan(active);
  if (!span) return undefined;
  return { requestId: active.getValue(REQUEST_ID), traceId: span.spanContext().traceId };
}

/** A child span per database command sent within a traced request (commands outside of one are not traced). */
function traceCommands(client: MongoClient, own: Tracer): () => void {
  const spans = new Map<number, Span>();
  const started = (event: CommandStartedEvent) => {
    if (!trace.getSpan(context.active())) return;
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
