/**
 * A stand-in OpenTelemetry collector for bench:tracing: accepts OTLP/HTTP JSON exports on POST /v1/traces (200,
 * `{}`), counts their spans, and answers the counts on GET /counts. Its own process, so that reading the exports
 * takes no CPU from the load generator.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

interface Export {
  resourceSpans?: Array<{ scopeSpans?: Array<{ spans?: Array<{ parentSpanId?: string }> }> }>;
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
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Export;
    counts.exports++;
    for (const resource of body.resourceSpans ?? [])
      for (const scope of resource.scopeSpans ?? [])
        for (const span of scope.spans ?? []) {
          counts.spans++;
          // A request's span has no parent (the server starts every trace).
          if (!span.parentSpanId) counts.rootSpans++;
        }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});

server.listen(0, '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
