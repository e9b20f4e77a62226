import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '../../src/logger';
import { Tracer } from '../../src/observability/tracing';

interface Received {
  spans: Array<{
    traceId: string;
    spanId: string;
    parentSpanId?: string;
    name: string;
    attributes: unknown[];
    startTimeUnixNano: string;
    endTimeUnixNano: string;
  }>;
}

/** A collector that parses every export; `hold` keeps its answers back until released. */
async function startCollector() {
  const exports: Received['spans'][] = [];
  let release: () => void = () => undefined;
  let held: Promise<void> = Promise.resolve();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans: Array<{ scopeSpans: Array<{ spans: Received['spans'] }> }>;
      };
      exports.push(body.resourceSpans.flatMap((resource) => resource.scopeSpans.flatMap((scope) => scope.spans)));
      await held;
      res.writeHead(200).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`,
    exports,
    hold() {
      held = new Promise((resolve) => (release = resolve));
    },
    release: () => release(),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

describe('the tracer sends ended spans in batches', () => {
  let collector: Awaited<ReturnType<typeof startCollector>>;
  const warnings: string[] = [];
  const logger = createLogger('warn', (line) => warnings.push(line));
  beforeEach(async () => {
    collector = await startCollector();
    warnings.length = 0;
  });
  afterEach(() => collector.close());

  it('every span arrives once, as valid OTLP/JSON, in exports of at most 512 spans (non-ASCII text too)', async () => {
    const tracer = new Tracer(collector.url, {}, () => true, logger, 'svc-é', '1.0.0');
    const ids = new Set<string>();
    for (let i = 0; i < 1300; i++) {
      const request = tracer.startRequest(`request-${i}`)!;
      request.name = `query Überblick ${i} "quoted" \\ 🚀`;
      const child = request.child('find experiences', { 'db.collection.name': 'expériences' });
      child.end();
      request.end();
      ids.add(request.spanId).add(child.spanId);
    }
    await tracer.flush();
    tracer.close();
    const spans = collector.exports.flat();
    expect(spans).toHaveLength(2600);
    expect(new Set(spans.map((span) => span.spanId))).toEqual(ids);
    expect(Math.max(...collector.exports.map((batch) => batch.length))).toBeLessThanOrEqual(512);
    expect(spans.filter((span) => !span.parentSpanId).map((span) => span.name)).toContain(
      'query Überblick 1299 "quoted" \\ 🚀',
    );
    expect(warnings).toEqual([]);
  });

  it("writes each span's times as decimal nanoseconds since the epoch, to the microsecond, and hex ids", async () => {
    const tracer = new Tracer(collector.url, {}, () => true, logger, 'svc', '1.0.0');
    const before = BigInt(Date.now() - 1) * 1_000_000n;
    // A span every few milliseconds for over a second: some start in the first 100 ms of a second (…0xxxxx µs).
    const started = Date.now();
    while (Date.now() - started < 1100) {
      const span = tracer.startRoot('timed', {})!;
      await new Promise((resolve) => setTimeout(resolve, 3));
      span.end();
    }
    const after = BigInt(Date.now() + 1) * 1_000_000n;
    await tracer.flush();
    tracer.close();
    const received = collector.exports.flat();
    expect(received.length).toBeGreaterThan(20);
    for (const span of received) {
      expect(span.startTimeUnixNano).toMatch(/^[1-9]\d{15}000$/);
      expect(span.endTimeUnixNano).toMatch(/^[1-9]\d{15}000$/);
      const start = BigInt(span.startTimeUnixNano);
      const end = BigInt(span.endTimeUnixNano);
      expect(start >= before && start < end && end <= after).toBe(true);
      expect(span.traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(span.spanId).toMatch(/^[0-9a-f]{16}$/);
    }
    expect(new Set(received.map((span) => span.traceId)).size).toBe(received.length);
  });

  it('while the collector does not answer, at most 8,192 spans wait: the oldest go, the newest are sent', async () => {
    const tracer = new Tracer(collector.url, {}, () => true, logger, 'svc', '1.0.0');
    collector.hold();
    const names: string[] = [];
    for (let i = 0; i < 20_000; i++) {
      const span = tracer.startRoot(`span ${i}`, {})!;
      span.end();
      names.push(`span ${i}`);
      // Ends spread over 1.6 s, past the export interval (1 s), as requests would be.
      if (i % 1000 === 0) await new Promise((resolve) => setTimeout(resolve, 80));
    }
    collector.release();
    await tracer.flush();
    tracer.close();
    const sent = collector.exports.flat().map((span) => span.name);
    // The first export (on its way when the collector stopped answering), then what the bound kept.
    expect(sent.length).toBeLessThanOrEqual(512 + 8192 + 512);
    expect(sent.length).toBeGreaterThanOrEqual(8192);
    expect(sent.at(-1)).toBe('span 19999');
    expect(sent.slice(0, 512)).toEqual(names.slice(0, 512));
  });
});
