import { createTestApp, type TestApp } from '../support/app';
import { deepMark, fingerprint, postOperation, postRaw, storedToolDocument, toJson } from './fuzz-support';

/** Cases the fuzz suite found, kept as examples: each answered INTERNAL_SERVER_ERROR before its fix. */
describe('fuzz regressions: bad requests get client codes', () => {
  let app: TestApp;
  let url: string;
  beforeAll(async () => {
    app = await createTestApp();
    url = await app.server.listen(0, '127.0.0.1');
  });
  afterAll(() => app.close());

  it('more than 50 bad variable values (graphql-js stops coercing) is BAD_USER_INPUT, and nothing is written', async () => {
    const before = await fingerprint(app.db);
    const inputs = Array.from({ length: 60 }, () => ({
      role: 'USER',
      content: 'x',
      eventLoopMetrics: { inputTokens: 'many' },
    }));
    const reply = await postOperation(
      url,
      'mutation($inputs: [AppendMessageInput!]!) { appendMessages(sessionId: "s", agentId: "a", inputs: $inputs) { messageId } }',
      { inputs },
    );
    expect(reply.status).toBe(400);
    // 50 errors naming a value, then the one that stops.
    expect(reply.body.errors).toHaveLength(51);
    expect(new Set(reply.body.errors?.map((error) => error.extensions?.code))).toEqual(new Set(['BAD_USER_INPUT']));
    expect(await fingerprint(app.db)).toEqual(before);
  });

  it('recordAction with an idempotencyKey and tool args nested 100,000 deep is BAD_USER_INPUT, and nothing is written', async () => {
    const before = await fingerprint(app.db);
    const toolCalls = [{ name: 'probe', outcome: 'SUCCESS', args: { deep: deepMark(100_000, false) } }];
    const reply = await postRaw(
      url,
      toJson({
        query:
          'mutation($input: RecordActionInput!) { recordAction(taskId: "t-1", idempotencyKey: "k-1", input: $input) { taskId } }',
        variables: { input: { mode: 'DEEP', toolCalls } },
      }),
    );
    expect(reply.body.errors?.map((error) => error.extensions?.code)).toEqual(['BAD_USER_INPUT']);
    expect(reply.body.errors?.[0].extensions?.field).toBe(`input.toolCalls.0.args.deep${'.a'.repeat(99)}`);
    expect(await fingerprint(app.db)).toEqual(before);
  });

  it.each([['3'], ['{"version": "1"}'], ['{"version": 1, "sha256Hash": 5}']])(
    'a garbage extensions.persistedQuery (%s) is BAD_REQUEST with status 400',
    async (persistedQuery) => {
      const reply = await postRaw(
        url,
        `{"query": "{ serverInfo { version } }", "extensions": {"persistedQuery": ${persistedQuery}}}`,
      );
      expect(reply.status).toBe(400);
      expect(reply.body.errors?.map((error) => error.extensions?.code)).toEqual(['BAD_REQUEST']);
    },
  );
});

describe('fuzz regressions: bodies over the size limit', () => {
  let app: TestApp;
  let url: string;
  beforeAll(async () => {
    app = await createTestApp();
    url = await app.server.listen(0, '127.0.0.1');
  });
  afterAll(() => app.close());

  it('a body over 32 MB gets a 413 with code BAD_REQUEST (not a reset connection), and the server keeps answering', async () => {
    const body = JSON.stringify({
      query: '{ serverInfo { version } }',
      variables: { pad: 'x'.repeat(33 * 1024 * 1024) },
    });
    const reply = await postRaw(url, body);
    expect(reply.status).toBe(413);
    expect(reply.body.errors?.map((error) => error.extensions?.code)).toEqual(['BAD_REQUEST']);
    expect((await postRaw(url, '{"query": "{ serverInfo { version } }"}')).status).toBe(200);
  });
});

const NOW = new Date('2025-01-01T00:00:00Z');
const RECORD_ACTION =
  'mutation { recordAction(taskId: "damaged", input: { mode: FAST, toolCalls: [{ name: "tool1", result: "ok", outcome: SUCCESS }] }) { action { iteration } } }';
const APPEND_MESSAGE =
  'mutation { appendMessage(sessionId: "damaged", agentId: "a", input: { role: USER, content: "hi" }) { messageId } }';
const RECORD_TOOL =
  'mutation { recordToolExecution(input: { toolName: "damaged", success: true, durationMs: 5 }) { totalExecutions } }';
const task = (actions: unknown) => ({ taskId: 'damaged', goal: 'g', originalQuery: 'q', status: 'pending', actions });
const session = (messages: unknown) => ({
  _id: 'damaged',
  session_id: 'damaged',
  session_type: 'default',
  created_at: NOW,
  updated_at: NOW,
  metadata: {},
  feedbacks: [],
  agents: { a: { agent_data: {}, created_at: NOW, updated_at: NOW, messages } },
});
const tool = (counts: Record<string, unknown>) => storedToolDocument('damaged', counts, NOW);

describe('fuzz regressions: writes to a damaged stored document', () => {
  let app: TestApp;
  let url: string;
  beforeAll(async () => {
    app = await createTestApp();
    url = await app.server.listen(0, '127.0.0.1');
  });
  afterAll(() => app.close());

  it.each([
    ['a task whose actions are not a list', 'tasks', task({ a: 1 }), RECORD_ACTION, 'actions'],
    ['a task whose actions are a text', 'tasks', task('x'), RECORD_ACTION, 'actions'],
    [
      'a task whose keyed-write record is not a list',
      'tasks',
      { ...task([]), run: { applied_actions: 'x' } },
      RECORD_ACTION.replace('taskId: "damaged"', 'taskId: "damaged", idempotencyKey: "k"'),
      'run.applied_actions',
    ],
    [
      'a session whose agent messages are not a list',
      'sessions',
      session({ a: 1 }),
      APPEND_MESSAGE,
      'agents.a.messages',
    ],
    [
      'a tool whose counters are not numbers',
      'tool_performance',
      tool({ totalExecutions: 'two' }),
      RECORD_TOOL,
      'totalExecutions',
    ],
    [
      'a tool whose duration is not a number',
      'tool_performance',
      tool({ totalDuration: 'slow' }),
      RECORD_TOOL,
      'totalDuration',
    ],
  ])(
    '%s: CONFLICT naming the stored field, and nothing is written',
    async (_, collection, document, mutation, storedField) => {
      await app.db.collection(collection).insertOne(document as never);
      try {
        const before = await fingerprint(app.db);
        const reply = await postOperation(url, mutation, {});
        expect(reply.body.errors?.map((error) => [error.extensions?.code, error.extensions?.storedField])).toEqual([
          ['CONFLICT', storedField],
        ]);
        expect(reply.body.errors![0].message).toContain(storedField);
        expect(await fingerprint(app.db)).toEqual(before);
      } finally {
        await app.db.collection(collection).deleteMany({});
      }
    },
  );
});

describe('fuzz regressions: writes that would take an experience past 16 MB', () => {
  let app: TestApp;
  let url: string;
  beforeAll(async () => {
    app = await createTestApp();
    url = await app.server.listen(0, '127.0.0.1');
    // Stored as another writer may have stored it: a 12 MB summary, so that 5 MB more passes MongoDB's limit.
    await app.db.collection('eat_agent_experiences').insertOne({
      experience_id: 'big',
      primary_goal_description: 'goal',
      sub_task_description: 'sub task',
      initiating_agent_id: 'agent',
      final_outcome: 'success',
      output_summary: 'x'.repeat(12 * 1024 * 1024),
      feedback_signals: {},
      timestamp: NOW,
      version: 1,
    });
  });
  afterAll(() => app.close());

  it.each([
    [
      'addExperienceFeedback',
      'mutation($text: String!) { addExperienceFeedback(id: "big", signals: { errorType: $text }) { experienceId } }',
      'signals',
    ],
    [
      'updateExperience',
      'mutation($text: String!) { updateExperience(id: "big", input: { tags: [$text] }) { experienceId } }',
      'input',
    ],
  ])(
    '%s: BAD_USER_INPUT naming the input (not INTERNAL_SERVER_ERROR), and nothing is written',
    async (_, mutation, field) => {
      const before = await fingerprint(app.db);
      const reply = await postOperation(url, mutation, { text: 'y'.repeat(5 * 1024 * 1024) });
      expect(reply.body.errors?.map((error) => [error.extensions?.code, error.extensions?.field])).toEqual([
        ['BAD_USER_INPUT', field],
      ]);
      expect(reply.body.errors![0].message).toContain('16 MB');
      expect(await fingerprint(app.db)).toEqual(before);
    },
  );
});
