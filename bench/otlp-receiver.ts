/**
 * A stand-in OpenTelemetry collector for bench:tracing: accepts OTLP/HTTP JSON exports on POST /v1/traces (200,
 * `{}`), counts their spans, and answers the counts on GET /counts. Its own process, so that reading the exports
 * takes no CPU from the load generator.
 *
 * A real collector runs on a machine of its own; this one shares the server's cores, so it does as little as a
 * receiver can: HTTP/1.1 read straight off the socket (node:http copied every body chunk once more, into freshly
 * faulted pages, which was most of its CPU), and spans counted without decoding them: in protobuf by walking the
 * wire format's lengths down to each span's fields, in JSON by their keys in the raw bytes as they arrive. It serves
 * the exporter of src/observability/tracing.ts (a Content-Length on every request, no chunked bodies); the OTLP
 * suites (test/observability) decode exports in full.
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';

/** How many times `key` occurs in `bytes`. */
function occurrences(bytes: Buffer, key: Buffer): number {
  let count = 0;
  for (let at = bytes.indexOf(key); at !== -1; at = bytes.indexOf(key, at + key.length)) count++;
  return count;
}

/** Counts the occurrences of a key in a byte stream fed chunk by chunk, including those split between chunks. */
class KeyCounter {
  count = 0;
  /** The last key.length - 1 bytes fed: the part of the key an occurrence across the next boundary starts with. */
  private tail: Buffer = Buffer.alloc(0);

  constructor(private readonly key: Buffer) {}

  feed(chunk: Buffer): void {
    this.count += occurrences(chunk, this.key);
    const keep = this.key.length - 1;
    // Both sides are shorter than the key: whatever occurrence the seam holds spans the boundary.
    if (this.tail.length > 0) this.count += occurrences(Buffer.concat([this.tail, chunk.subarray(0, keep)]), this.key);
    this.tail =
      chunk.length >= keep
        ? Buffer.from(chunk.subarray(chunk.length - keep))
        : Buffer.concat([this.tail, chunk]).subarray(-keep);
  }

  /** Starts over for a new body: no key spans two requests. */
  reset(): void {
    this.count = 0;
    this.tail = Buffer.alloc(0);
  }
}

/** Calls `visit` with each LEN field of the protobuf message in `bytes[start, end)`, and its content's range. */
function forEachField(
  bytes: Buffer,
  start: number,
  end: number,
  visit: (field: number, from: number, to: number) => void,
): void {
  let at = start;
  const varint = () => {
    let value = 0;
    for (let shift = 1; ; shift *= 128) {
      const byte = bytes[at++];
      value += (byte & 127) * shift;
      if (byte < 128) return value;
    }
  };
  while (at < end) {
    const key = varint();
    const wireType = key & 7;
    if (wireType === 0) varint();
    else if (wireType === 1) at += 8;
    else if (wireType === 5) at += 4;
    else if (wireType === 2) {
      const length = varint();
      visit(key >>> 3, at, at + length);
      at += length;
    } else throw new Error(`wire type ${wireType}`);
  }
}

/** ExportTraceServiceRequest > resource_spans (1) > scope_spans (2) > spans (2), and each span's parent_span_id (4). */
function countProtobufSpans(body: Buffer): { spans: number; rootSpans: number } {
  let spans = 0;
  let withParent = 0;
  forEachField(body, 0, body.length, (field, from, to) => {
    if (field !== 1) return;
    forEachField(body, from, to, (field, from, to) => {
      if (field !== 2) return;
      forEachField(body, from, to, (field, from, to) => {
        if (field !== 2) return;
        spans++;
        forEachField(body, from, to, (field, from, to) => {
          if (field === 4 && to > from) withParent++;
        });
      });
    });
  });
  return { spans, rootSpans: spans - withParent };
}

const HEADERS_END = Buffer.from('\r\n\r\n');
const counts = { exports: 0, spans: 0, rootSpans: 0 };

function respond(socket: net.Socket, status: string, body: string): void {
  socket.write(
    `HTTP/1.1 ${status}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
      `connection: keep-alive\r\n\r\n${body}`,
  );
}

/** One kept-alive connection: a request's headers, then its body counted as it arrives, then the next request. */
function serve(socket: net.Socket): void {
  const spanIds = new KeyCounter(Buffer.from('"spanId":'));
  const parentSpanIds = new KeyCounter(Buffer.from('"parentSpanId":'));
  let headers: Buffer = Buffer.alloc(0);
  /** Body bytes still to come; -1 while reading headers. */
  let remaining = -1;
  /** A protobuf body's chunks, decoded once complete (JSON is counted as it arrives). */
  let protobuf: Buffer[] | null = null;

  const endBody = () => {
    counts.exports++;
    // A request's span has no parent (the server starts every trace).
    if (protobuf) {
      const found = countProtobufSpans(Buffer.concat(protobuf));
      counts.spans += found.spans;
      counts.rootSpans += found.rootSpans;
    } else {
      counts.spans += spanIds.count;
      counts.rootSpans += spanIds.count - parentSpanIds.count;
    }
    respond(socket, '200 OK', '{}');
    remaining = -1;
  };

  socket.on('data', (chunk: Buffer) => {
    while (chunk.length > 0) {
      if (remaining < 0) {
        headers = headers.length === 0 ? chunk : Buffer.concat([headers, chunk]);
        const end = headers.indexOf(HEADERS_END);
        if (end === -1) return;
        const head = headers.subarray(0, end).toString('latin1');
        chunk = headers.subarray(end + HEADERS_END.length);
        headers = Buffer.alloc(0);
        const [method, url] = head.split(' ', 2);
        if (method === 'GET' && url === '/counts') {
          respond(socket, '200 OK', JSON.stringify(counts));
          continue;
        }
        const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
        if (method !== 'POST' || url !== '/v1/traces' || !length) {
          respond(socket, '404 Not Found', '');
          socket.end();
          return;
        }
        remaining = Number(length[1]);
        protobuf = /\r\ncontent-type:\s*application\/x-protobuf/i.test(head) ? [] : null;
        spanIds.reset();
        parentSpanIds.reset();
        if (remaining === 0) endBody();
        continue;
      }
      const body = chunk.length > remaining ? chunk.subarray(0, remaining) : chunk;
      chunk = chunk.subarray(body.length);
      if (protobuf) protobuf.push(body);
      else {
        spanIds.feed(body);
        parentSpanIds.feed(body);
      }
      remaining -= body.length;
      if (remaining === 0) endBody();
    }
  });
  socket.on('error', () => socket.destroy());
}

if (require.main === module) {
  const server = net.createServer(serve);
  server.listen(0, '127.0.0.1', () => {
    console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  });
  process.once('SIGTERM', () => server.close(() => process.exit(0)));
}
