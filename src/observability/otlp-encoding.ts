/**
 * OTLP/HTTP's two encodings of an export of spans (`ExportTraceServiceRequest`): protobuf, the OpenTelemetry
 * default, and JSON. Each writes ended spans one by one into the batch's buffer and frames the body when the batch is
 * sealed, so that no span's encoding outlives its request on the heap.
 *
 * Protobuf takes less than half the bytes of JSON for the same spans (binary ids and times, no keys), which is CPU on
 * both ends of every export: the server's socket writes and the collector's reads.
 */

export type AttributeValue = string | number | boolean;
export type Attributes = Record<string, AttributeValue>;

/** OTEL_EXPORTER_OTLP_PROTOCOL's values that are served (grpc is not). */
export const OTLP_PROTOCOLS = ['http/protobuf', 'http/json'] as const;
export type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];

/** What an encoding needs of an ended span. */
export interface EndedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  readonly name: string;
  readonly kind: number;
  /** Milliseconds since the epoch, with sub-millisecond precision. */
  readonly startMs: number;
  readonly endMs: number;
  readonly attributes: Attributes;
  /** The error class of a failed span. */
  readonly failure: string | undefined;
}

export interface OtlpEncoding {
  readonly contentType: string;
  /** Bytes the body's framing takes at most, besides its spans. */
  readonly framingBytes: number;
  /** Writes the opening of a body into an empty batch; returns where its first span goes. */
  open(batch: Buffer): number;
  /** The bytes `span` takes at most in a batch, separator included; `write` must follow for the same span. */
  measure(span: EndedSpan): number;
  /** Writes the span last measured at `at`; returns the end of what it wrote. */
  write(batch: Buffer, at: number, first: boolean): number;
  /** The batch's body: its spans from `spansAt` to `end`, framed. */
  close(batch: Buffer, spansAt: number, end: number): Buffer;
}

export function otlpEncoding(protocol: OtlpProtocol, resource: Attributes, scope: ScopeName): OtlpEncoding {
  return protocol === 'http/json' ? new JsonEncoding(resource, scope) : new ProtobufEncoding(resource, scope);
}

export interface ScopeName {
  name: string;
  version: string;
}

/** An integer that OTLP's int64 holds exactly; other numbers go as doubles, non-finite ones as text. */
function isInt64(value: number): boolean {
  return Number.isSafeInteger(value);
}

/**
 * OTLP's nanosecond timestamps, as decimal strings (they exceed a double's integers), to the microsecond. Written from
 * two small integers, seconds and microseconds: converting the whole microsecond count (16 digits) to a string took
 * V8's slow path for large numbers, a few µs per request.
 */
function nanos(ms: number): string {
  const micros = Math.round(ms * 1000);
  const seconds = Math.floor(micros / 1e6);
  if (seconds < 1) return `${micros}000`;
  // The microseconds zero-padded to six digits: those of 1,000,000 + them, without the leading 1.
  return `${seconds}${(micros - seconds * 1e6 + 1e6).toString().slice(1)}000`;
}

/**
 * Attributes many spans share (a database call's) are frozen, and each encoding encodes them once for all of them:
 * `attributes` (frozen) as `cache` holds it, encoded by `encode` on first use.
 */
function encodedOnce<T>(cache: WeakMap<Attributes, T>, attributes: Attributes, encode: (a: Attributes) => T): T {
  let encoded = cache.get(attributes);
  if (encoded === undefined) cache.set(attributes, (encoded = encode(attributes)));
  return encoded;
}

class JsonEncoding implements OtlpEncoding {
  readonly contentType = 'application/json';
  readonly framingBytes: number;
  private readonly opening: string;
  private readonly closing = ']}]}]}';
  private readonly attributeLists = new WeakMap<Attributes, string>();
  private measured = '';

  constructor(resource: Attributes, scope: ScopeName) {
    const scopeJson = JSON.stringify({ name: scope.name, version: scope.version });
    this.opening = `{"resourceSpans":[{"resource":{"attributes":${jsonAttributes(resource)}},"scopeSpans":[{"scope":${scopeJson},"spans":[`;
    // UTF-8 takes at most 3 bytes per UTF-16 unit.
    this.framingBytes = 3 * (this.opening.length + this.closing.length);
  }

  open(batch: Buffer): number {
    return batch.write(this.opening, 0);
  }

  measure(span: EndedSpan): number {
    const parent = span.parentSpanId ? `,"parentSpanId":"${span.parentSpanId}"` : '';
    const status = span.failure === undefined ? '' : `,"status":{"code":2,"message":${JSON.stringify(span.failure)}}`;
    const attributes = Object.isFrozen(span.attributes)
      ? encodedOnce(this.attributeLists, span.attributes, jsonAttributes)
      : jsonAttributes(span.attributes);
    this.measured =
      `{"traceId":"${span.traceId}","spanId":"${span.spanId}"${parent},"name":${JSON.stringify(span.name)},` +
      `"kind":${span.kind},"startTimeUnixNano":"${nanos(span.startMs)}","endTimeUnixNano":"${nanos(span.endMs)}",` +
      `"attributes":${attributes}${status}}`;
    // A comma before it.
    return 3 * this.measured.length + 1;
  }

  write(batch: Buffer, at: number, first: boolean): number {
    if (!first) batch[at++] = 0x2c; // ','
    at += batch.write(this.measured, at);
    this.measured = '';
    return at;
  }

  close(batch: Buffer, _spansAt: number, end: number): Buffer {
    return batch.subarray(0, end + batch.write(this.closing, end));
  }
}

/** OTLP/JSON's attribute list, written directly (building it as objects first doubled the garbage). */
function jsonAttributes(attributes: Attributes): string {
  let json = '';
  for (const key in attributes) {
    const value = attributes[key];
    const typed =
      typeof value === 'string'
        ? `{"stringValue":${JSON.stringify(value)}}`
        : typeof value === 'boolean'
          ? `{"boolValue":${value}}`
          : isInt64(value)
            ? `{"intValue":${value}}`
            : Number.isFinite(value)
              ? `{"doubleValue":${value}}`
              : `{"stringValue":"${value}"}`;
    json += `${json ? ',' : ''}{"key":${JSON.stringify(key)},"value":${typed}}`;
  }
  return `[${json}]`;
}

// Protobuf's wire format: a field's key is (number << 3 | wire type); LEN fields carry a varint length.
const LEN = 2;
const key = (field: number, wireType: number) => (field << 3) | wireType;

/** Bytes of `value`'s varint (a non-negative integer up to 2^53). */
function varintSize(value: number): number {
  let size = 1;
  while (value >= 128) {
    value = Math.floor(value / 128);
    size++;
  }
  return size;
}

function writeVarint(buffer: Buffer, at: number, value: number): number {
  while (value >= 128) {
    buffer[at++] = (value % 128) | 128;
    value = Math.floor(value / 128);
  }
  buffer[at++] = value;
  return at;
}

/**
 * Strings up to this length (a span's name, attribute keys and most values) are measured and written by the loops
 * below, as ids are by writeHex: each call into Buffer's C++ (byteLength, write) costs more than looping over a short
 * string.
 */
const SHORT_STRING = 64;

/** The UTF-8 bytes of `text`. */
function utf8Length(text: string): number {
  if (text.length > SHORT_STRING) return Buffer.byteLength(text, 'utf8');
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) >= 0x80) return Buffer.byteLength(text, 'utf8');
  return text.length;
}

/** Writes `text` as UTF-8 at `at`; returns where it ends. */
function writeUtf8(buffer: Buffer, at: number, text: string): number {
  if (text.length > SHORT_STRING) return at + buffer.write(text, at, 'utf8');
  const start = at;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x80) return start + buffer.write(text, start, 'utf8');
    buffer[at++] = code;
  }
  return at;
}

/** The value of each lowercase hex digit, by its character code. */
const HEX_DIGITS = new Uint8Array(128);
for (let digit = 0; digit < 16; digit++) HEX_DIGITS[digit.toString(16).charCodeAt(0)] = digit;

/** Writes the bytes of `hex` (an id: lowercase hex, an even number of digits) at `at`; returns where they end. */
function writeHex(buffer: Buffer, at: number, hex: string): number {
  for (let i = 0; i < hex.length; i += 2)
    buffer[at++] = (HEX_DIGITS[hex.charCodeAt(i)] << 4) | HEX_DIGITS[hex.charCodeAt(i + 1)];
  return at;
}

/** A LEN field's bytes: its key, its length's varint and its content. */
const lenField = (content: number) => 1 + varintSize(content) + content;

/** An int64 as protobuf has it: a negative one is the 10-byte varint of its two's complement. */
function int64Varint(value: number): Buffer {
  let bits = BigInt.asUintN(64, BigInt(value));
  const bytes: number[] = [];
  while (bits >= 128n) {
    bytes.push(Number(bits & 127n) | 128);
    bits >>= 7n;
  }
  bytes.push(Number(bits));
  return Buffer.from(bytes);
}

/**
 * The bytes of `attributes` as repeated KeyValue, noting in `sizes` (emptied first) each one's key bytes, string value
 * bytes, AnyValue bytes and KeyValue bytes, in order, for `writeAttributes`.
 */
function measureAttributes(attributes: Attributes, sizes: number[]): number {
  sizes.length = 0;
  let total = 0;
  for (const name in attributes) {
    const value = attributes[name];
    const keyBytes = utf8Length(name);
    let valueBytes = 0;
    let anyValue: number;
    if (typeof value === 'boolean') anyValue = 2;
    else if (typeof value === 'number' && isInt64(value)) anyValue = value < 0 ? 11 : 1 + varintSize(value);
    else if (typeof value === 'number' && Number.isFinite(value)) anyValue = 9;
    else anyValue = lenField((valueBytes = utf8Length(String(value))));
    const keyValue = lenField(keyBytes) + lenField(anyValue);
    sizes.push(keyBytes, valueBytes, anyValue, keyValue);
    total += lenField(keyValue);
  }
  return total;
}

/** Writes `attributes`, measured into `sizes`, as repeated KeyValue under `field` (Resource's 1, Span's 9). */
function writeAttributes(buffer: Buffer, at: number, attributes: Attributes, field: number, sizes: number[]): number {
  let index = 0;
  for (const name in attributes) {
    const value = attributes[name];
    buffer[at++] = key(field, LEN);
    at = writeVarint(buffer, at, sizes[index + 3]);
    buffer[at++] = key(1, LEN);
    at = writeVarint(buffer, at, sizes[index]);
    at = writeUtf8(buffer, at, name);
    buffer[at++] = key(2, LEN);
    at = writeVarint(buffer, at, sizes[index + 2]);
    if (typeof value === 'boolean') {
      buffer[at++] = key(2, 0);
      buffer[at++] = value ? 1 : 0;
    } else if (typeof value === 'number' && isInt64(value)) {
      buffer[at++] = key(3, 0);
      at += value < 0 ? int64Varint(value).copy(buffer, at) : writeVarint(buffer, at, value) - at;
    } else if (typeof value === 'number' && Number.isFinite(value)) {
      buffer[at++] = key(4, 1);
      at = buffer.writeDoubleLE(value, at);
    } else {
      buffer[at++] = key(1, LEN);
      at = writeVarint(buffer, at, sizes[index + 1]);
      at = writeUtf8(buffer, at, String(value));
    }
    index += 4;
  }
  return at;
}

/** An attribute list encoded on its own (a shared one, the resource's). */
function protobufAttributes(attributes: Attributes, field: number): Buffer {
  const sizes: number[] = [];
  const encoded = Buffer.alloc(measureAttributes(attributes, sizes));
  writeAttributes(encoded, 0, attributes, field, sizes);
  return encoded;
}

/** A span's attribute list (Span's field 9) encoded on its own: a shared one. */
const spanAttributeList = (attributes: Attributes) => protobufAttributes(attributes, 9);

/** `content` as the LEN field `field`. */
function lenBytes(field: number, content: Buffer): Buffer {
  const head = Buffer.alloc(1 + varintSize(content.length));
  head[0] = key(field, LEN);
  writeVarint(head, 1, content.length);
  return Buffer.concat([head, content]);
}

/** A fixed64 of nanoseconds since the epoch, to the microsecond, written as two 32-bit halves (no BigInt). */
function writeNanos(buffer: Buffer, at: number, ms: number): number {
  const micros = Math.round(ms * 1000);
  const microsHigh = Math.floor(micros / 2 ** 32);
  // Below 2^42: exact in a double.
  const lowTimes1000 = (micros - microsHigh * 2 ** 32) * 1000;
  const carry = Math.floor(lowTimes1000 / 2 ** 32);
  buffer.writeUInt32LE(lowTimes1000 - carry * 2 ** 32, at);
  buffer.writeUInt32LE(microsHigh * 1000 + carry, at + 4);
  return at + 8;
}

class ProtobufEncoding implements OtlpEncoding {
  readonly contentType = 'application/x-protobuf';
  readonly framingBytes: number;
  /** ResourceSpans' field 1 and ScopeSpans' field 1, the same in every body. */
  private readonly resourceField: Buffer;
  private readonly scopeField: Buffer;
  private readonly attributeLists = new WeakMap<Attributes, Buffer>();
  // The span last measured, and the sizes `write` needs (kept here: no object per span).
  private span: EndedSpan | null = null;
  private spanBytes = 0;
  private nameBytes = 0;
  private sharedAttributes: Buffer | undefined;
  /** The sizes of a span's own attributes (see measureAttributes). */
  private readonly attributeSizes: number[] = [];

  constructor(resource: Attributes, scope: ScopeName) {
    this.resourceField = lenBytes(1, protobufAttributes(resource, 1));
    const scopeName = Buffer.concat([
      lenBytes(1, Buffer.from(scope.name, 'utf8')),
      lenBytes(2, Buffer.from(scope.version, 'utf8')),
    ]);
    this.scopeField = lenBytes(1, scopeName);
    // Two keys and two lengths (a varint of up to 5 bytes each) around the two fields.
    this.framingBytes = this.resourceField.length + this.scopeField.length + 2 * (1 + 5);
  }

  /** The body's opening is written at close, once its lengths are known: the spans start after room for it. */
  open(): number {
    return this.framingBytes;
  }

  measure(span: EndedSpan): number {
    this.span = span;
    this.nameBytes = utf8Length(span.name);
    // A shared list is encoded once; a span's own is measured here and written by `write` without a copy.
    this.sharedAttributes = Object.isFrozen(span.attributes)
      ? encodedOnce(this.attributeLists, span.attributes, spanAttributeList)
      : undefined;
    const attributeBytes = this.sharedAttributes?.length ?? measureAttributes(span.attributes, this.attributeSizes);
    this.spanBytes =
      18 + // trace_id (1): 16 bytes
      10 + // span_id (2): 8 bytes
      (span.parentSpanId ? 10 : 0) + // parent_span_id (4)
      lenField(this.nameBytes) + // name (5)
      2 + // kind (6)
      18 + // start_time_unix_nano (7), end_time_unix_nano (8): fixed64
      attributeBytes + // attributes (9)
      // status (15), left out (unset) unless the span failed: code ERROR (2) and the error's class.
      (span.failure === undefined ? 0 : lenField(lenField(utf8Length(span.failure)) + 2));
    // ScopeSpans' field 2 around it.
    return lenField(this.spanBytes);
  }

  write(batch: Buffer, at: number): number {
    const span = this.span!;
    this.span = null;
    batch[at++] = key(2, LEN);
    at = writeVarint(batch, at, this.spanBytes);
    batch[at++] = key(1, LEN);
    batch[at++] = 16;
    at = writeHex(batch, at, span.traceId);
    batch[at++] = key(2, LEN);
    batch[at++] = 8;
    at = writeHex(batch, at, span.spanId);
    if (span.parentSpanId) {
      batch[at++] = key(4, LEN);
      batch[at++] = 8;
      at = writeHex(batch, at, span.parentSpanId);
    }
    batch[at++] = key(5, LEN);
    at = writeVarint(batch, at, this.nameBytes);
    at = writeUtf8(batch, at, span.name);
    batch[at++] = key(6, 0);
    batch[at++] = span.kind;
    batch[at++] = key(7, 1);
    at = writeNanos(batch, at, span.startMs);
    batch[at++] = key(8, 1);
    at = writeNanos(batch, at, span.endMs);
    at = this.sharedAttributes
      ? at + this.sharedAttributes.copy(batch, at)
      : writeAttributes(batch, at, span.attributes, 9, this.attributeSizes);
    if (span.failure !== undefined) {
      const messageBytes = utf8Length(span.failure);
      batch[at++] = key(15, LEN);
      at = writeVarint(batch, at, lenField(messageBytes) + 2);
      batch[at++] = key(2, LEN);
      at = writeVarint(batch, at, messageBytes);
      at = writeUtf8(batch, at, span.failure);
      batch[at++] = key(3, 0);
      batch[at++] = 2;
    }
    return at;
  }

  /**
   * ExportTraceServiceRequest { resource_spans (1): ResourceSpans { resource (1), scope_spans (2): ScopeSpans {
   * scope (1), spans (2)... } } }, its opening written just before the spans.
   */
  close(batch: Buffer, spansAt: number, end: number): Buffer {
    const scopeSpans = this.scopeField.length + (end - spansAt);
    const resourceSpans = this.resourceField.length + lenField(scopeSpans);
    let at = spansAt - this.scopeField.length;
    this.scopeField.copy(batch, at);
    at = writeBackwards(batch, at, scopeSpans, key(2, LEN));
    at -= this.resourceField.length;
    this.resourceField.copy(batch, at);
    at = writeBackwards(batch, at, resourceSpans, key(1, LEN));
    return batch.subarray(at, end);
  }
}

/** Writes a LEN field's key and length so that they end at `end`; returns where they start. */
function writeBackwards(buffer: Buffer, end: number, length: number, fieldKey: number): number {
  const start = end - 1 - varintSize(length);
  buffer[start] = fieldKey;
  writeVarint(buffer, start + 1, length);
  return start;
}
