/**
 * A stand-in OpenTelemetry collector for bench:tracing: accepts OTLP/HTTP JSON exports on POST /v1/traces (200,
 * `{}`), counts their spans, and answers the counts on GET /counts. Its own process, so that reading the exports
 * takes no CPU from the load generator.
 *
 * A real collector runs on a machine of its own; this one shares the server's cores, so it counts spans by their
 * keys in the raw bytes rather than parsing each export (parsing took half as much CPU as tracing cost the server).
 * The OTLP suite (test/observability) parses exports in full.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const SPAN_ID = Buffer.from('"spanId":');
const PARENT_SPAN_ID = Buffer.from('"parentSpanId":');

/** How many times `key` occurs in `body`. */
function occurrences(body: Buffer, key: Buffer): number {
  let count = 0;
  for (let at = body.indexOf(key); at !== -1; at = body.indexOf(key, at + key.length)) count++;
  return count;
}

const counts = { exports: 0, spans: 0, rootSpans: 0 };

const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/counts') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(counts));
    return;
  }
  if (req.method !== 'POST' || req.url !== '/v1/traces') {
    res.writeHead(404).end();
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    counts.exports++;
    const spans = occurrences(body, SPAN_ID);
    counts.spans += spans;
    // A request's span has no parent (the server starts every trace).
    counts.rootSpans += spans - occurrences(body, PARENT_SPAN_ID);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});

server.listen(0, '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
