import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '../../src/logger';
import { OTLP_PROTOCOLS, type EndedSpan } from '../../src/observability/otlp-encoding';
import { sharedAttributes, SpanKind, Tracer } from '../../src/observability/tracing';
import { readOtlpExport, type OtlpExport, type OtlpSpan } from '../support/otlp';

/** A collector that reads every export (either encoding); `hold` keeps its answers back until released. */
async function startCollector() {
  const exports: OtlpSpan[][] = [];
  const bodies: OtlpExport[][] = [];
  const contentTypes: Array<string | undefined> = [];
  let release: () => void = () => undefined;
  let held: Promise<void> = Promise.resolve();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const body = readOtlpExport(req.headers['content-type'], Buffer.concat(chunks));
      contentTypes.push(req.headers['content-type']);
      bodies.push(body);
      exports.push(body.flatMap((scope) => scope.spans));
      await held;
      res.writeHead(200).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`,
    exports,
    bodies,
    contentTypes,
    hold() {
      held = new Promise((resolve) => (release = resolve));
    },
    release: () => release(),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

describe.each(OTLP_PROTOCOLS)('the tracer sends ended spans in batches (%s)', (protocol) => {
  let collector: Awaited<ReturnType<typeof startCollector>>;
  const warnings: string[] = [];
  const logger = createLogger('warn', (line) => warnings.push(line));
  beforeEach(async () => {
    collector = await startCollector();
    warnings.length = 0;
  });
  afterEach(() => collector.close());

  it('every span arrives once, as a valid export, in exports of at most 512 spans (non-ASCII text too)', async () => {
    const tracer = new Tracer(collector.url, {}, () => true, logger, 'svc-é', '1.0.0', protocol);
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
    const tracer = new Tracer(collector.url, {}, () => true, logger, 'svc', '1.0.0', protocol);
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

  it('follows the wall clock when it is stepped after the process started, and keeps durations monotonic', async () => {
    const tracer = new Tracer(collector.url, {}, () => true, logger, 'svc', '1.0.0', protocol);
    const realNow = Date.now.bind(Date);
    let step = 60_000;
    const clock = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + step);
    try {
      const before = BigInt(Date.now() - 1) * 1_000_000n;
      const ahead = tracer.startRoot('ahead', {})!;
      const afterAhead = BigInt(Date.now() + 1) * 1_000_000n;
      await new Promise((resolve) => setTimeout(resolve, 5));
      step = -60_000; // stepped back while the span runs: its duration still comes from the monotonic clock
      ahead.end();
      const behindFrom = BigInt(Date.now() - 1) * 1_000_000n;
      const behind = tracer.startRoot('behind', {})!;
      const afterBehind = BigInt(Date.now() + 1) * 1_000_000n;
      behind.end();
      await tracer.flush();
      const spans = new Map(collector.exports.flat().map((span) => [span.name, span]));
      const aheadStart = BigInt(spans.get('ahead')!.startTimeUnixNano);
      const aheadDuration = BigInt(spans.get('ahead')!.endTimeUnixNano) - aheadStart;
      expect(aheadStart >= before && aheadStart <= afterAhead).toBe(true);
      expect(aheadDuration >= 4_000_000n && aheadDuration < 1_000_000_000n).toBe(true);
      const behindStart = BigInt(spans.get('behind')!.startTimeUnixNano);
      expect(behindStart >= behindFrom && behindStart <= afterBehind).toBe(true);
    } finally {
      clock.mockRestore();
      tracer.close();
    }
  });

  it('while the collector does not answer, at most 8,192 spans wait: the oldest go, the newest are sent', async () => {
    const tracer = new Tracer(collector.url, {}, () => true, logger, 'svc', '1.0.0', protocol);
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

describe('OTLP/HTTP protobuf and JSON', () => {
  it('carry the same export, as a collector reads each: ids, times, names, kinds, typed attributes, failures', async () => {
    const collector = await startCollector();
    const logger = createLogger('warn', () => undefined);
    const shared = sharedAttributes({ 'db.system.name': 'mongodb', 'db.collection.name': 'expériences' });
    const base = { traceId: '0af7651916cd43dd8448eb211c80319c', startMs: 1_795_781_468_351.902 };
    const spans: EndedSpan[] = [
      {
        ...base,
        spanId: 'b7ad6b7169203331',
        parentSpanId: undefined,
        name: 'query Überblick "quoted" \\ 🚀',
        kind: SpanKind.SERVER,
        endMs: 1_795_781_468_369.185,
        attributes: {
          'hindsight.request_id': 'f9c43768-2690-4c2a',
          'http.response.status_code': 200,
          // Longer than the strings the encoder writes in JS itself, and past it with a character beyond ASCII.
          long: 'l'.repeat(80),
          longBeyondAscii: `${'l'.repeat(70)}ü`,
          negative: -42,
          large: 2 ** 53 + 2,
          ratio: 0.25,
          infinite: Infinity,
          cached: true,
          missed: false,
        },
        failure: undefined,
      },
      {
        ...base,
        spanId: '00f067aa0ba902b7',
        parentSpanId: 'b7ad6b7169203331',
        name: 'find eat_agent_experiences',
        kind: SpanKind.CLIENT,
        endMs: 1_795_781_468_000.001,
        attributes: shared,
        failure: 'MongoServerError',
      },
      {
        ...base,
        spanId: '1000000000000001',
        parentSpanId: undefined,
        name: '',
        kind: SpanKind.INTERNAL,
        endMs: 0.5 + base.startMs,
        attributes: {},
        failure: undefined,
      },
    ];
    for (const protocol of OTLP_PROTOCOLS) {
      const tracer = new Tracer(collector.url, {}, () => true, logger, 'svc-é', '2.0.0-β', protocol);
      for (const span of [...spans, spans[1]]) tracer.record(span);
      await tracer.flush();
      tracer.close();
    }
    await collector.close();
    expect(collector.contentTypes).toEqual(['application/x-protobuf', 'application/json']);
    const [fromProtobuf, fromJson] = collector.bodies;
    expect(fromProtobuf).toEqual(fromJson);

    const nanos = (ms: number) => String(BigInt(Math.round(ms * 1000)) * 1000n);
    const typed = (value: string | number | boolean) =>
      typeof value === 'string'
        ? { stringValue: value }
        : typeof value === 'boolean'
          ? { boolValue: value }
          : Number.isSafeInteger(value)
            ? { intValue: value }
            : Number.isFinite(value)
              ? { doubleValue: value }
              : { stringValue: String(value) };
    expect(fromJson).toEqual([
      {
        resourceAttributes: [
          { key: 'service.name', value: { stringValue: 'svc-é' } },
          { key: 'service.version', value: { stringValue: '2.0.0-β' } },
        ],
        scope: { name: 'hindsight', version: '2.0.0-β' },
        spans: [...spans, spans[1]].map((span) => ({
          traceId: span.traceId,
          spanId: span.spanId,
          ...(span.parentSpanId ? { parentSpanId: span.parentSpanId } : {}),
          name: span.name,
          kind: span.kind,
          startTimeUnixNano: nanos(span.startMs),
          endTimeUnixNano: nanos(span.endMs),
          attributes: Object.entries(span.attributes).map(([key, value]) => ({ key, value: typed(value) })),
          ...(span.failure ? { status: { code: 2, message: span.failure } } : {}),
        })),
      },
    ]);
  });
});
