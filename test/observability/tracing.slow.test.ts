import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { spawnServer } from '../support/build';
import { openTestDatabase, type TestDatabase } from '../support/db';
import { readOtlpExport, type OtlpSpan } from '../support/otlp';

/** An OTLP/HTTP receiver on port 0: keeps every span and the headers and bodies of the exports posted to it. */
async function startReceiver() {
  const spans: OtlpSpan[] = [];
  const exports: Array<{ path: string; headers: http.IncomingHttpHeaders; body: string }> = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      // Either encoding keeps its strings as UTF-8.
      exports.push({ path: req.url ?? '', headers: req.headers, body: body.toString('utf8') });
      for (const scope of readOtlpExport(req.headers['content-type'], body)) spans.push(...scope.spans);
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

/** A request to the server under test. */
type Post = (body: Record<string, unknown>) => Promise<Response>;

/**
 * The built server (node dist/src/main.js, as users run it: the exporter loads node:http with a dynamic import, which
 * jest's module sandbox refuses) on `database`, exporting to `receiver`, while `send` runs; then stopped, which
 * exports every span still pending. Returns its JSON log lines.
 */
async function tracedRun(
  receiver: Awaited<ReturnType<typeof startReceiver>>,
  database: TestDatabase,
  env: Record<string, string>,
  send: (post: Post) => Promise<void>,
): Promise<Array<Record<string, unknown>>> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'hindsight-tracing-'));
  const server = spawnServer(dataDir, {
    MONGODB_URI: database.uri,
    MONGODB_DB: database.db.databaseName,
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    ...env,
  });
  let output: string;
  try {
    const url = await server.ready;
    await send((body) =>
      fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    );
  } finally {
    server.child.kill('SIGTERM');
    ({ output } = await server.exited);
    await rm(dataDir, { recursive: true, force: true });
  }
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** An experience whose outcome the API does not know: reading it logs a line (stored-values.ts) while the request runs. */
async function insertOddExperience(database: TestDatabase, id: string): Promise<void> {
  await database.db.collection('eat_agent_experiences').insertOne({
    experience_id: id,
    primary_goal_description: 'goal a',
    sub_task_description: 'sub a',
    initiating_agent_id: 'agent',
    final_outcome: 'exploded',
    timestamp: new Date(),
    version: 1,
  });
}

const UNKNOWN_VALUES = 'stored document with values the API cannot render';

/**
 * For the describe block it is called in: a receiver, this file's database holding an odd experience `id`, and the log
 * lines of a traced run of `send` with `env`.
 */
function tracedSuite(id: string, env: Record<string, string>, send: (post: Post) => Promise<void>) {
  const run = {} as {
    receiver: Awaited<ReturnType<typeof startReceiver>>;
    database: TestDatabase;
    logged: Array<Record<string, unknown>>;
  };
  beforeAll(async () => {
    run.receiver = await startReceiver();
    run.database = await openTestDatabase();
    await insertOddExperience(run.database, id);
    run.logged = await tracedRun(run.receiver, run.database, env, send);
  });
  afterAll(async () => {
    await run.receiver?.close();
    await run.database?.close();
  });
  return run;
}

describe('OpenTelemetry traces over OTLP/HTTP', () => {
  const env = {
    OTEL_EXPORTER_OTLP_HEADERS: `authorization=Bearer%20${COLLECTOR_TOKEN}`,
    OTEL_SERVICE_NAME: 'hindsight-under-test',
  };
  const run = tracedSuite('traced-1', env, async (post) => {
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
  });

  it('exports one server span per request, named by its operation, to <endpoint>/v1/traces with the headers', () => {
    const read = run.receiver.spans.find((span) => span.name === 'query TracedRead');
    const write = run.receiver.spans.find((span) => span.name === 'mutation TracedWrite');
    expect(read).toBeDefined();
    expect(write).toBeDefined();
    expect(read!.kind).toBe(2); // SERVER
    expect(read!.parentSpanId ?? '').toBe('');
    expect(attribute(read!, 'graphql.operation.name')).toBe('TracedRead');
    expect(attribute(read!, 'graphql.operation.type')).toBe('query');
    expect(Number(attribute(read!, 'http.response.status_code'))).toBe(200);
    expect(attribute(read!, 'hindsight.request_id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(read!.traceId).not.toBe(write!.traceId);
    expect(run.receiver.exports.every((sent) => sent.path === '/v1/traces')).toBe(true);
    expect(run.receiver.exports[0].headers.authorization).toBe(`Bearer ${COLLECTOR_TOKEN}`);
    // OTLP's default encoding.
    expect(run.receiver.exports[0].headers['content-type']).toBe('application/x-protobuf');
    expect(run.receiver.exports[0].body).toContain('hindsight-under-test');
  });

  it('gives each request child spans for its database commands and embedding calls', () => {
    const write = run.receiver.spans.find((span) => span.name === 'mutation TracedWrite')!;
    const children = run.receiver.spans.filter((span) => span.parentSpanId === write.spanId);
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

    const read = run.receiver.spans.find((span) => span.name === 'query TracedRead')!;
    const find = run.receiver.spans.find((span) => span.parentSpanId === read.spanId && span.name.startsWith('find '));
    expect(find).toBeDefined();
  });

  it('exports no query text, variable, command body or key', () => {
    const sent = run.receiver.exports.map((exported) => exported.body).join('\n');
    expect(sent).not.toContain(SECRET_VARIABLE);
    expect(sent).not.toContain('traced-1');
    expect(sent).not.toContain('primaryGoalDescription');
    expect(sent).not.toContain(COLLECTOR_TOKEN);
  });

  it("writes the request's id and trace id on the log lines of a traced request", () => {
    const read = run.receiver.spans.find((span) => span.name === 'query TracedRead')!;
    const line = run.logged.find((entry) => entry.message === UNKNOWN_VALUES);
    expect(line).toMatchObject({ requestId: attribute(read, 'hindsight.request_id'), traceId: read.traceId });
  });
});

describe('OTEL_TRACES_SAMPLER', () => {
  const REQUESTS = 40;
  const env = {
    OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
    OTEL_TRACES_SAMPLER_ARG: '0.5',
    OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
  };
  const run = tracedSuite('sampled-1', env, async (post) => {
    for (let i = 0; i < REQUESTS; i++) {
      // A read that logs, and a write that embeds: each sends database commands.
      const response = await (i % 2
        ? post({ query: 'query SampledRead { experience(id: "sampled-1") { experienceId finalOutcome } }' })
        : post({
            query:
              'mutation SampledWrite($input: RecordExperienceInput!) { recordExperience(input: $input) { experienceId } }',
            variables: {
              input: {
                primaryGoalDescription: `Sampled ${i}`,
                subTaskDescription: 'List it',
                initiatingAgentId: 'sampled-agent',
                finalOutcome: 'SUCCESS',
              },
            },
          }));
      expect(response.status).toBe(200);
    }
  });

  it("traces the share of requests the ratio asks for, and none of the others' work", () => {
    expect(run.receiver.exports.every((sent) => sent.headers['content-type'] === 'application/json')).toBe(true);
    const requests = run.receiver.spans.filter((span) => span.kind === 2);
    // At 0.5, all or none of 40 independent draws would come out once in 2^39 runs.
    expect(requests.length).toBeGreaterThan(0);
    expect(requests.length).toBeLessThan(REQUESTS);
    const traced = new Set(requests.map((span) => span.spanId));
    const children = run.receiver.spans.filter((span) => span.kind !== 2);
    expect(children.some((span) => span.name.startsWith('embeddings '))).toBe(true);
    expect(children.some((span) => span.name.startsWith('find '))).toBe(true);
    // Database commands and embedding calls of a left-out request start no trace of their own.
    expect(children.filter((span) => !traced.has(span.parentSpanId ?? ''))).toEqual([]);
  });

  it('writes the trace id only on the log lines of traced requests, the request id on all', () => {
    const traceIds = new Set(run.receiver.spans.map((span) => span.traceId));
    const lines = run.logged.filter((entry) => entry.message === UNKNOWN_VALUES);
    expect(lines).toHaveLength(REQUESTS / 2);
    expect(lines.every((line) => typeof line.requestId === 'string')).toBe(true);
    const withTrace = lines.filter((line) => line.traceId !== undefined);
    expect(withTrace.every((line) => traceIds.has(line.traceId as string))).toBe(true);
    const reads = run.receiver.spans.filter((span) => span.name === 'query SampledRead');
    expect(withTrace).toHaveLength(reads.length);
  });
});
