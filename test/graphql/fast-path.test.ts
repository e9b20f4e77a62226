import http from 'node:http';
import { getIntrospectionQuery } from 'graphql';
import { RESPONSE_CONTENT_TYPES } from '../../src/graphql/fast-path';
import { sessionAlice } from '../support/fixtures/session-alice';
import { createTestApp, stopFollowing, type TestApp } from '../support/app';
import { scrape, type Scrape } from '../support/metrics';

/** One HTTP answer as the client sees it, less the Date header (the clock). */
interface Answer {
  status: number;
  /** Every header but Date, in the order sent, names as sent. */
  headers: string[];
  body: string;
}

const SESSION = `query Session($id: ID!) {
  session(id: $id) {
    sessionId sessionType createdAt updatedAt metadata
    agents { agentId messageCount agentData { model } messages(last: 20) { edges { node { messageId role content createdAt } } } }
  }
}`;

const SESSIONS_PAGE = `query Sessions($before: DateTimeISO!) {
  sessions(first: 20, filter: { updatedBefore: $before }) {
    edges { node { sessionId sessionType updatedAt agents { agentId messageCount lastMessage { messageId role content createdAt } } } }
    pageInfo { hasNextPage endCursor }
  }
}`;

const TOOL_PERFORMANCE = `query Tool($toolName: String!, $context: String) {
  toolPerformance(toolName: $toolName, context: $context) {
    toolName context totalExecutions successRate avgDuration commonErrors { error frequency percentage } optimalContext recommendations
  }
}`;

const EXPERIENCES_WITH_SESSIONS = `query Nested($until: DateTimeISO!) {
  experiences(first: 50, filter: { until: $until }) {
    edges { node { experienceId primaryGoalDescription finalOutcome timestamp session { sessionId sessionType updatedAt } } }
  }
}`;

const SEVERAL_OPERATIONS = `
query Agents($id: ID!) { session(id: $id) { agents { agentId } } }
query Kind($id: ID!) { session(id: $id) { sessionType } }
mutation Touch($id: String) { createSession(input: { sessionId: $id }) { sessionId } }`;

const ALIASES_AND_FRAGMENTS = `
fragment Head on Session { id: sessionId kind: sessionType ...Times }
fragment Times on Session { createdAt updatedAt }
{
  alice: session(id: "user-alice-chat-20240115") { ...Head agents { ... on Agent { agentId count: messageCount } } }
  first: sessions(first: 1) { totalCount edges { node { ...Head } } }
}`;

/** An extension Apollo ignores and the fast path does not know: a request with it is Apollo's reference answer. */
const TO_APOLLO = { reference: true };

/** The read operations of the issue and the forms a client may write them in, each with one request body. */
const READS: Array<[name: string, body: Record<string, unknown>]> = [
  ['a session with its agents and their last 20 messages', { query: SESSION, variables: { id: sessionAlice._id } }],
  [
    'a page of sessions with each agent and its last message',
    { query: SESSIONS_PAGE, variables: { before: '2030-01-01T00:00:00.000Z' } },
  ],
  [
    'tool performance in a context',
    { query: TOOL_PERFORMANCE, variables: { toolName: 'create_shipment', context: 'facility_management' } },
  ],
  [
    'a page of experiences, each with its session',
    { query: EXPERIENCES_WITH_SESSIONS, variables: { until: '2030-01-01T00:00:00.000Z' } },
  ],
  [
    'an operation chosen by operationName among several',
    { query: SEVERAL_OPERATIONS, operationName: 'Kind', variables: { id: sessionAlice._id } },
  ],
  ['aliases, named and inline fragments, without variables', { query: ALIASES_AND_FRAGMENTS }],
  [
    'null variables and operationName',
    { query: '{ sessions(first: 2) { totalCount } }', variables: null, operationName: null },
  ],
  ['__typename', { query: '{ __typename sessions(first: 1) { __typename edges { node { __typename sessionId } } } }' }],
  [
    'introspection',
    { query: getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true }) },
  ],
];

/**
 * The fast path (src/graphql/fast-path.ts) answers repeated reads without Apollo's request pipeline. Every answer it
 * gives must be byte for byte Apollo's: each read is sent once as it is (the fast path answers, /metrics counts it)
 * and once with an extension Apollo ignores, which always goes to it.
 */
describe('GraphQL fast path', () => {
  let app: TestApp;
  let url: URL;

  const send = (body: string, headers: Record<string, string> = {}): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const request = http.request(
        url,
        { method: 'POST', headers: { 'content-type': 'application/json', ...headers } },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            const headers: string[] = [];
            for (let i = 0; i < response.rawHeaders.length; i += 2) {
              if (response.rawHeaders[i].toLowerCase() !== 'date')
                headers.push(`${response.rawHeaders[i]}: ${response.rawHeaders[i + 1]}`);
            }
            resolve({ status: response.statusCode!, headers, body: Buffer.concat(chunks).toString('utf8') });
          });
          response.on('error', reject);
        },
      );
      request.on('error', reject);
      request.end(body);
    });
  const metrics = () => scrape(url);
  const REQUESTS = 'hindsight_graphql_requests_total';
  const FAST_PATH = 'hindsight_graphql_fast_path_total';
  const COMMANDS = 'hindsight_database_command_duration_seconds_count';

  const delta = (from: Scrape, to: Scrape) => ({
    requests: to.value(REQUESTS) - from.value(REQUESTS),
    fastPath: to.value(FAST_PATH) - from.value(FAST_PATH),
    commands: to.value(COMMANDS) - from.value(COMMANDS),
  });

  /** Sends `body` as it is and as Apollo's reference; resolves both answers and what /metrics counted for each. */
  const compare = async (body: Record<string, unknown>, headers: Record<string, string> = {}) => {
    const before = await metrics();
    const fast = await send(JSON.stringify(body), headers);
    const middle = await metrics();
    const apollo = await send(JSON.stringify({ ...body, extensions: TO_APOLLO }), headers);
    const after = await metrics();
    return {
      fast,
      apollo,
      fastCounted: delta(before, middle),
      apolloCounted: delta(middle, after),
      fastPath: middle.value(FAST_PATH) - before.value(FAST_PATH),
    };
  };

  beforeAll(async () => {
    app = await createTestApp();
    url = new URL(await app.server.listen(0, '127.0.0.1'));
    // Counts commands: the search spaces' change streams would add theirs at any moment.
    await stopFollowing(app);
    await app.db.collection('sessions').insertOne(structuredClone(sessionAlice) as any);
    await app.run(
      'mutation ($id: String) { createSession(input: { sessionId: $id, sessionType: "batch" }) { sessionId } }',
      { id: 'bob' },
    );
    await app.run(
      'mutation ($input: [RecordToolExecutionInput!]!) { recordToolExecutions(inputs: $input) { toolName } }',
      {
        input: [
          { toolName: 'create_shipment', success: true, durationMs: 120, context: 'facility_management' },
          {
            toolName: 'create_shipment',
            success: false,
            durationMs: 50,
            context: 'facility_management',
            error: 'Invalid facilityId',
          },
          { toolName: 'create_shipment', success: true, durationMs: 5000, context: 'bulk_import' },
        ],
      },
    );
    for (const [index, sessionId] of [sessionAlice._id, 'bob', 'nobody'].entries()) {
      await app.run('mutation ($input: RecordExperienceInput!) { recordExperience(input: $input) { experienceId } }', {
        input: {
          primaryGoalDescription: `Answer a billing question ${index}`,
          subTaskDescription: 'Look up the invoice',
          initiatingAgentId: 'support-agent',
          finalOutcome: 'SUCCESS',
          sessionId,
          timestamp: `2024-02-0${index + 1}T10:00:00.000Z`,
        },
      });
    }
  });
  afterAll(() => app?.close());

  it.each(READS)('answers %s exactly as Apollo does (status, headers, body, /metrics counts)', async (_name, body) => {
    let compared = await compare(body);
    // /metrics counts every command of the process: one from outside the request landing in a window (two were seen
    // once in CI, source unknown) is not the fast path's. A fast path that reads more differs every time.
    if (compared.fastCounted.commands !== compared.apolloCounted.commands) compared = await compare(body);
    const { fast, apollo, fastCounted, apolloCounted } = compared;
    expect(fastCounted).toEqual({ ...apolloCounted, fastPath: 1 });
    expect(apolloCounted).toMatchObject({ requests: 1, fastPath: 0 });
    expect(fast.status).toBe(200);
    expect(JSON.parse(fast.body).errors).toBeUndefined();
    expect(JSON.parse(fast.body).data).toBeTruthy();
    expect(fast).toEqual(apollo);
  });

  it.each([
    ["Apollo Client 4's clientLibrary", { clientLibrary: { name: '@apollo/client', version: '4.3.8' } }],
    ['none', {}],
    ['null', null],
  ])('answers a read whose extensions are %s, as Apollo does', async (_name, extensions) => {
    const { fast, apollo, fastPath } = await compare({ query: SESSION, variables: { id: 'bob' }, extensions });
    expect(fastPath).toBe(1);
    expect(fast).toEqual(apollo);
  });

  it('reads the data it was asked for, which later writes change', async () => {
    const query = { query: SESSION, variables: { id: sessionAlice._id } };
    const first = JSON.parse((await send(JSON.stringify(query))).body);
    expect(first.data.session.agents.map((agent: any) => agent.agentId)).toEqual(Object.keys(sessionAlice.agents));
    await app.run(
      'mutation { appendMessage(sessionId: "user-alice-chat-20240115", agentId: "support-agent", input: { role: USER, content: "fast?" }) { messageId } }',
    );
    const second = JSON.parse((await send(JSON.stringify(query))).body);
    expect(second.data.session.agents[0].messages.edges.at(-1).node.content).toBe('fast?');
  });

  it.each([...RESPONSE_CONTENT_TYPES.keys()])(
    'answers Accept %p with the content-type Apollo negotiates for it',
    async (accept) => {
      const headers: Record<string, string> = accept === undefined ? {} : { accept };
      const { fast, apollo, fastPath } = await compare({ query: SESSION, variables: { id: 'bob' } }, headers);
      expect(fastPath).toBe(1);
      expect(fast).toEqual(apollo);
      expect(fast.headers).toContain(`content-type: ${RESPONSE_CONTENT_TYPES.get(accept)}`);
    },
  );

  it('leaves other Accept values and request content-types to Apollo', async () => {
    const others: Array<Record<string, string>> = [
      { accept: 'application/json;q=0.9' },
      { accept: 'text/html' },
      { 'content-type': 'application/json; charset=latin1' },
    ];
    for (const headers of others) {
      const { fast, apollo, fastPath } = await compare({ query: SESSION, variables: { id: 'bob' } }, headers);
      expect(fastPath).toBe(0);
      expect(fast).toEqual(apollo);
    }
    const refused = await send(JSON.stringify({ query: SESSION, variables: { id: 'bob' } }), { accept: 'text/html' });
    expect(refused.status).toBe(406);
  });

  it('leaves variables that do not coerce to Apollo: 400 BAD_USER_INPUT as before', async () => {
    for (const variables of [{}, { id: { not: 'an id' } }, { id: null }]) {
      const { fast, apollo, fastPath } = await compare({ query: SESSION, variables });
      expect(fastPath).toBe(0);
      expect(fast.status).toBe(400);
      expect(JSON.parse(fast.body).errors[0].extensions.code).toBe('BAD_USER_INPUT');
      expect(fast).toEqual(apollo);
    }
  });

  it('answers resolver errors itself, exactly as Apollo does: NOT_FOUND', async () => {
    const { fast, apollo, fastPath } = await compare({
      query: '{ bob: session(id: "bob") { sessionId } nope: session(id: "nope") { sessionId } }',
    });
    expect(fastPath).toBe(1);
    expect(fast.status).toBe(200);
    expect(JSON.parse(fast.body)).toMatchObject({
      errors: [{ extensions: { code: 'NOT_FOUND' }, path: ['nope'] }],
      data: null,
    });
    expect(fast).toEqual(apollo);
  });

  it('answers a mutation from its second request on exactly as Apollo does, running it once', async () => {
    const CREATE =
      'mutation ($id: String) { createSession(input: { sessionId: $id }) { sessionType agents { agentId } } }';
    const created = (id: string) => app.db.collection('sessions').countDocuments({ _id: id as never });
    /** The mutation's answer for `id` and what /metrics counted; `apollo` sends it to Apollo. */
    const create = async (id: string, apollo = false) => {
      const before = await metrics();
      const answer = await send(
        JSON.stringify({ query: CREATE, variables: { id }, ...(apollo ? { extensions: TO_APOLLO } : {}) }),
      );
      return { answer, fastPath: (await metrics()).value(FAST_PATH) - before.value(FAST_PATH) };
    };
    // The text's first request goes to Apollo; from the second on the fast path answers it.
    const first = await create('w-1');
    expect(first.fastPath).toBe(0);
    const fast = await create('w-2');
    expect(fast.fastPath).toBe(1);
    const apollo = await create('w-3', true);
    expect(apollo.fastPath).toBe(0);
    expect(JSON.parse(fast.answer.body)).toEqual({ data: { createSession: { sessionType: 'default', agents: [] } } });
    expect(fast.answer).toEqual(apollo.answer);
    expect(fast.answer).toEqual(first.answer);
    // Each request ran once: a second run would have answered CONFLICT.
    for (const id of ['w-1', 'w-2', 'w-3']) expect(await created(id)).toBe(1);

    // A resolver's error: the fast path answers it (a mutation that ran is never handed on), as Apollo would.
    const conflict = await create('w-1');
    expect(conflict.fastPath).toBe(1);
    expect(JSON.parse(conflict.answer.body).errors[0].extensions.code).toBe('CONFLICT');
    expect(conflict.answer).toEqual((await create('w-1', true)).answer);
    expect(await created('w-1')).toBe(1);
  });

  it('runs a mutation chosen by operationName in a document that starts with a query once', async () => {
    for (const id of ['m-1', 'm-2']) {
      const answer = await send(
        JSON.stringify({ query: SEVERAL_OPERATIONS, operationName: 'Touch', variables: { id } }),
      );
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toEqual({ data: { createSession: { sessionId: id } } });
    }
    expect(await app.db.collection('sessions').countDocuments({ _id: { $in: ['m-1', 'm-2'] } as never })).toBe(2);
  });

  it("leaves a mutation with an ill-formed variable to Apollo's refusal: 400 BAD_USER_INPUT, nothing written", async () => {
    const CREATE = 'mutation ($id: String) { createSession(input: { sessionId: $id }) { sessionId } }';
    await send(JSON.stringify({ query: CREATE, variables: { id: 'w-3' } }));
    const { fast, apollo, fastPath } = await compare({ query: CREATE, variables: { id: 'lone \ud800 surrogate' } });
    expect(fastPath).toBe(0);
    expect(fast.status).toBe(400);
    expect(JSON.parse(fast.body).errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'id' });
    expect(fast).toEqual(apollo);
    expect(await app.db.collection('sessions').countDocuments({ _id: /surrogate/ as never })).toBe(0);
  });

  it('leaves documents that do not validate or parse, unknown operation names and persisted queries to Apollo', async () => {
    const cases: Array<[body: Record<string, unknown>, status: number, code: string]> = [
      [{ query: '{ session(id: "bob") { noSuchField } }' }, 400, 'GRAPHQL_VALIDATION_FAILED'],
      [{ query: '{ session(id: "bob") { sessionId }' }, 400, 'GRAPHQL_PARSE_FAILED'],
      [{ query: SEVERAL_OPERATIONS }, 400, 'OPERATION_RESOLUTION_FAILURE'],
      [{ query: SEVERAL_OPERATIONS, operationName: 'Nope' }, 400, 'OPERATION_RESOLUTION_FAILURE'],
      [{ query: '' }, 400, 'BAD_REQUEST'],
      [{ query: SESSION, variables: 'not an object' }, 400, 'BAD_REQUEST'],
    ];
    for (const [body, status, code] of cases) {
      // Twice: the second request meets what the first left in the cache.
      for (let i = 0; i < 2; i++) {
        const { fast, apollo, fastPath } = await compare(body);
        expect(fastPath).toBe(0);
        expect(fast.status).toBe(status);
        expect(JSON.parse(fast.body).errors[0].extensions.code).toBe(code);
        expect(fast).toEqual(apollo);
      }
    }
    const persisted = await send(JSON.stringify({ extensions: { persistedQuery: { version: 1, sha256Hash: 'abc' } } }));
    expect(JSON.parse(persisted.body).errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
  });

  it('keeps blocking text/plain POSTs as a possible CSRF, exactly as before', async () => {
    const before = await metrics();
    const blocked = await send(JSON.stringify({ query: SESSION, variables: { id: 'bob' } }), {
      'content-type': 'text/plain',
    });
    expect(blocked.status).toBe(400);
    expect(JSON.parse(blocked.body).errors[0].message).toMatch(
      /^This operation has been blocked as a potential Cross-Site Request Forgery/,
    );
    expect((await metrics()).value(FAST_PATH)).toBe(before.value(FAST_PATH));
  });
});

describe('GraphQL fast path with API_KEYS', () => {
  let app: TestApp;
  let url: string;
  beforeAll(async () => {
    app = await createTestApp({ config: { apiKeys: ['k1'] } });
    url = await app.server.listen(0, '127.0.0.1');
  });
  afterAll(() => app?.close());

  it('answers only authenticated requests: 401 UNAUTHENTICATED without the key, the read with it', async () => {
    const body = JSON.stringify({ query: '{ sessions(first: 1) { totalCount } }' });
    const before = await scrape(url);
    for (let i = 0; i < 2; i++) {
      const denied = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      expect(denied.status).toBe(401);
      expect(((await denied.json()) as any).errors[0].extensions.code).toBe('UNAUTHENTICATED');
      const allowed = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer k1' },
        body,
      });
      expect(allowed.status).toBe(200);
      expect(await allowed.json()).toEqual({ data: { sessions: { totalCount: 0 } } });
    }
    const after = await scrape(url);
    const answered = (metrics: Scrape) => metrics.value('hindsight_graphql_fast_path_total');
    expect(answered(after) - answered(before)).toBe(2);
  });
});
