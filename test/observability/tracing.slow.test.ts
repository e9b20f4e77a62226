import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { spawnServer } from '../support/build';
import { openTestDatabase, type TestDatabase } from '../support/db';

/** A span as OTLP/HTTP's JSON encoding carries it (ids in hex, attributes as typed values). */
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
}

/** An OTLP/HTTP receiver on port 0: keeps every span and the headers and bodies of the exports posted to it. */
async function startReceiver() {
  const spans: OtlpSpan[] = [];
  const exports: Array<{ path: string; headers: http.IncomingHttpHeaders; body: string }> = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      exports.push({ path: req.url ?? '', headers: req.headers, body });
      const request = JSON.parse(body) as {
        resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }>;
      };
      for (const resource of request.resourceSpans) for (const scope of resource.scopeSpans) spans.push(...scope.spans);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, spans, exports, close: () => new Promise((resolve) => server.close(resolve)) };
}

const attribute = (span: OtlpSpan, key: string) => {
  const value = span.attributes.find((entry) => entry.key === key)?.value;
  return value === undefined ? undefined : Object.values(value)[0];
};

const SECRET_VARIABLE = 'variable-secret-3f9a';
const COLLECTOR_TOKEN = 'collector-token-77c1';

/**
 * The built server (node dist/src/main.js, as users run it: the exporter loads node:http with a dynamic import, which
 * jest's module sandbox refuses) on this file's database, exporting to a receiver in the test.
 */
describe('OpenTelemetry traces over OTLP/HTTP', () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let database: TestDatabase;
  let logged: Array<Record<string, unknown>>;

  beforeAll(async () => {
    receiver = await startReceiver();
    database = await openTestDatabase();
    await database.db.collection('eat_agent_experiences').insertOne({
      experience_id: 'traced-1',
      primary_goal_description: 'goal a',
      sub_task_description: 'sub a',
      initiating_agent_id: 'agent',
      // Not an outcome the API knows: the read logs it (stored-values.ts) while the request runs.
      final_outcome: 'exploded',
      timestamp: new Date(),
      version: 1,
    });
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'hindsight-tracing-'));
    const server = spawnServer(dataDir, {
      MONGODB_URI: database.uri,
      MONGODB_DB: database.db.databaseName,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_HEADERS: `authorization=Bearer%20${COLLECTOR_TOKEN}`,
      OTEL_SERVICE_NAME: 'hindsight-under-test',
    });
    try {
      const url = await server.ready;
      const post = (body: Record<string, unknown>) =>
        fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      await post({
        query: 'query TracedRead($id: ID!) { experience(id: $id) { experienceId finalOutcome } }',
        variables: { id: 'traced-1' },
      });
      await post({
        query:
          'mutation TracedWrite($input: RecordExperienceInput!) { recordExperience(input: $input) { experienceId } }',
        variables: {
          input: {
            primaryGoalDescription: `Plan the ${SECRET_VARIABLE}`,
            subTaskDescription: 'List it',
            initiatingAgentId: 'traced-agent',
            finalOutcome: 'SUCCESS',
          },
        },
      });
    } finally {
      // Shutting down ends tracing, which exports every span still pending.
      server.child.kill('SIGTERM');
      const { output } = await server.exited;
      logged = output
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      await rm(dataDir, { recursive: true, force: true });
    }
  });
  afterAll(async () => {
    await receiver?.close();
    await database?.close();
  });

  it('exports one server span per request, named by its operation, to <endpoint>/v1/traces with the headers', () => {
    const read = receiver.spans.find((span) => span.name === 'query TracedRead');
    const write = receiver.spans.find((span) => span.name === 'mutation TracedWrite');
    expect(read).toBeDefined();
    expect(write).toBeDefined();
    expect(read!.kind).toBe(2); // SERVER
    expect(read!.parentSpanId ?? '').toBe('');
    expect(attribute(read!, 'graphql.operation.name')).toBe('TracedRead');
    expect(attribute(read!, 'graphql.operation.type')).toBe('query');
    expect(Number(attribute(read!, 'http.response.status_code'))).toBe(200);
    expect(attribute(read!, 'hindsight.request_id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(read!.traceId).not.toBe(write!.traceId);
    expect(receiver.exports.every((sent) => sent.path === '/v1/traces')).toBe(true);
    expect(receiver.exports[0].headers.authorization).toBe(`Bearer ${COLLECTOR_TOKEN}`);
    expect(receiver.exports[0].body).toContain('hindsight-under-test');
  });

  it('gives each request child spans for its database commands and embedding calls', () => {
    const write = receiver.spans.find((span) => span.name === 'mutation TracedWrite')!;
    const children = receiver.spans.filter((span) => span.parentSpanId === write.spanId);
    expect(children.every((span) => span.traceId === write.traceId)).toBe(true);
    const insert = children.find((span) => span.name === 'insert eat_agent_experiences');
    expect(insert).toBeDefined();
    expect(attribute(insert!, 'db.system.name')).toBe('mongodb');
    expect(attribute(insert!, 'db.operation.name')).toBe('insert');
    expect(attribute(insert!, 'db.collection.name')).toBe('eat_agent_experiences');
    const embedding = children.find((span) => span.name.startsWith('embeddings '));
    expect(embedding).toBeDefined();
    expect(attribute(embedding!, 'gen_ai.provider.name')).toBe('hash');
    expect(Number(attribute(embedding!, 'hindsight.embedding.texts'))).toBeGreaterThanOrEqual(1);

    const read = receiver.spans.find((span) => span.name === 'query TracedRead')!;
    const find = receiver.spans.find((span) => span.parentSpanId === read.spanId && span.name.startsWith('find '));
    expect(find).toBeDefined();
  });

  it('exports no query text, variable, command body or key', () => {
    const sent = receiver.exports.map((exported) => exported.body).join('\n');
    expect(sent).not.toContain(SECRET_VARIABLE);
    expect(sent).not.toContain('traced-1');
    expect(sent).not.toContain('primaryGoalDescription');
    expect(sent).not.toContain(COLLECTOR_TOKEN);
  });

  it("writes the request's id and trace id on the log lines of a traced request", () => {
    const read = receiver.spans.find((span) => span.name === 'query TracedRead')!;
    const line = logged.find((entry) => entry.message === 'stored document with values the API cannot render');
    expect(line).toMatchObject({ requestId: attribute(read, 'hindsight.request_id'), traceId: read.traceId });
  });
});
