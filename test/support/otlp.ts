import protobuf from '@apollo/protobufjs';

/**
 * Reading OTLP/HTTP trace exports as a collector does, in either encoding: JSON parsed, protobuf decoded by
 * protobufjs (not by our code) against the messages of opentelemetry-proto's trace, common and resource protos (the
 * fields a span export uses, with their numbers and types), then both read into OTLP/JSON's form.
 */

/** A span as OTLP/JSON carries it: ids in hex, times as decimal nanoseconds, attributes as typed values. */
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
  status?: { code?: number; message?: string };
}

export interface OtlpExport {
  resourceAttributes: OtlpSpan['attributes'];
  scope: { name?: string; version?: string };
  spans: OtlpSpan[];
}

const PROTO = `
syntax = "proto3";
package otlp;
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; string schema_url = 3; }
message Resource { repeated KeyValue attributes = 1; uint32 dropped_attributes_count = 2; }
message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; string schema_url = 3; }
message InstrumentationScope { string name = 1; string version = 2; repeated KeyValue attributes = 3; }
message Span {
  bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; bytes parent_span_id = 4; fixed32 flags = 16;
  string name = 5; int32 kind = 6; fixed64 start_time_unix_nano = 7; fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9; uint32 dropped_attributes_count = 10; Status status = 15;
}
message Status { string message = 2; int32 code = 3; }
message KeyValue { string key = 1; AnyValue value = 2; }
message AnyValue {
  oneof value { string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4; bytes bytes_value = 7; }
}
`;

const exportRequest = protobuf.parse(PROTO, { keepCase: false }).root.lookupType('otlp.ExportTraceServiceRequest');

/** Reads one export's body by its content type; throws on a body that is not a valid export. */
export function readOtlpExport(contentType: string | undefined, body: Buffer): OtlpExport[] {
  if (contentType === 'application/x-protobuf') return fromProtobuf(body);
  if (contentType !== 'application/json') throw new Error(`unexpected content type ${contentType}`);
  const request = JSON.parse(body.toString('utf8')) as {
    resourceSpans: Array<{
      resource: { attributes: OtlpSpan['attributes'] };
      scopeSpans: Array<{ scope: OtlpExport['scope']; spans: OtlpSpan[] }>;
    }>;
  };
  return request.resourceSpans.flatMap((resource) =>
    resource.scopeSpans.map((scope) => ({
      resourceAttributes: resource.resource.attributes.map(normalAttribute),
      scope: scope.scope,
      spans: scope.spans.map((span) => ({ ...span, attributes: span.attributes.map(normalAttribute) })),
    })),
  );
}

/** JSON carries an int64 as a number or a string: a number here, in both encodings. */
function normalAttribute(entry: { key: string; value: Record<string, unknown> }) {
  return 'intValue' in entry.value ? { key: entry.key, value: { intValue: Number(entry.value.intValue) } } : entry;
}

interface Decoded {
  resourceSpans?: Array<{
    resource?: { attributes?: DecodedAttribute[] };
    scopeSpans?: Array<{
      scope?: { name?: string; version?: string };
      spans?: Array<{
        traceId: Buffer;
        spanId: Buffer;
        parentSpanId?: Buffer;
        name: string;
        kind: number;
        startTimeUnixNano: string;
        endTimeUnixNano: string;
        attributes?: DecodedAttribute[];
        status?: { code?: number; message?: string };
      }>;
    }>;
  }>;
}
type DecodedAttribute = { key: string; value?: Record<string, unknown> };

function fromProtobuf(body: Buffer): OtlpExport[] {
  const decoded = exportRequest.toObject(exportRequest.decode(body), { longs: String, defaults: false }) as Decoded;
  const attributes = (list: DecodedAttribute[] = []) =>
    list.map(({ key, value = {} }) => normalAttribute({ key, value }));
  return (decoded.resourceSpans ?? []).flatMap((resource) =>
    (resource.scopeSpans ?? []).map((scope) => ({
      resourceAttributes: attributes(resource.resource?.attributes),
      scope: scope.scope ?? {},
      spans: (scope.spans ?? []).map((span) => ({
        traceId: Buffer.from(span.traceId).toString('hex'),
        spanId: Buffer.from(span.spanId).toString('hex'),
        ...(span.parentSpanId?.length ? { parentSpanId: Buffer.from(span.parentSpanId).toString('hex') } : {}),
        name: span.name ?? '',
        kind: span.kind ?? 0,
        startTimeUnixNano: span.startTimeUnixNano,
        endTimeUnixNano: span.endTimeUnixNano,
        attributes: attributes(span.attributes),
        ...(span.status ? { status: span.status } : {}),
      })),
    })),
  );
}
