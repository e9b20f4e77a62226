import { call, operationName, type OperationCall, createTestApp, type TestApp } from '../../support/app';
import {
  type AppendMessageInput,
  type AgentMessagesQueryVariables,
  AgentMessagesDocument,
  AppendMessageDocument,
  AppendMessagesDocument,
  CreateSessionDocument,
  SessionAgentDocument,
  SessionWithMessagesDocument,
  UpdateMessageDocument,
  UpsertAgentDocument,
} from '../../support/generated/graphql';

async function createSessionWithAgent(app: TestApp, sessionId: string, agentId = 'agent'): Promise<void> {
  await app.run(CreateSessionDocument, { input: { sessionId } });
  await app.run(UpsertAgentDocument, { sessionId, input: { agentId, agentData: { model: 'm' } } });
}

async function stored(app: TestApp, sessionId: string): Promise<any> {
  return app.db.collection('sessions').findOne({ _id: sessionId as any });
}

describe('sessions: messages', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(() => app.close());

  it('appendMessage stores the message, returns it with the next id and refreshes agent and session updated_at', async () => {
    await createSessionWithAgent(app, 'append-1');
    const before = await stored(app, 'append-1');
    const first = await app.run(AppendMessageDocument, {
      sessionId: 'append-1',
      agentId: 'agent',
      input: { role: 'USER', content: 'Hello $there' },
    });
    // A new agent's messages take the Strands SDK's shape: ids from 0, content as blocks.
    expect(first.appendMessage).toMatchObject({
      messageId: 0,
      role: 'USER',
      content: [{ text: 'Hello $there' }],
      text: 'Hello $there',
      eventLoopMetrics: null,
    });
    const second = await app.run(AppendMessageDocument, {
      sessionId: 'append-1',
      agentId: 'agent',
      input: {
        role: 'ASSISTANT',
        content: [
          { type: 'text', text: 'Part one' },
          { type: 'image', source: { type: 'base64', data: 'iVBOR' } },
          { text: 'part two' },
        ],
        eventLoopMetrics: { latencyMs: 12.5, inputTokens: 3, outputTokens: 4, totalTokens: 7 },
      },
    });
    expect(second.appendMessage).toMatchObject({
      messageId: 1,
      role: 'ASSISTANT',
      text: 'Part one\npart two',
      eventLoopMetrics: { latencyMs: 12.5, inputTokens: 3, outputTokens: 4, totalTokens: 7 },
    });
    expect(second.appendMessage.createdAt).toBe(second.appendMessage.updatedAt);

    const after = await stored(app, 'append-1');
    const agent = after.agents.agent;
    expect(agent.messages.map((m: any) => m.message_id)).toEqual([0, 1]);
    expect(agent.messages[1].created_at.toISOString()).toBe(second.appendMessage.createdAt);
    expect(agent.updated_at.getTime()).toBe(agent.messages[1].created_at.getTime());
    expect(after.updated_at.getTime()).toBe(agent.messages[1].created_at.getTime());
    expect(after.updated_at.getTime()).toBeGreaterThanOrEqual(before.updated_at.getTime());
    expect(agent.created_at.getTime()).toBe(before.agents.agent.created_at.getTime());
  });

  it('appendMessages appends a batch atomically with consecutive ids after the highest stored one', async () => {
    await createSessionWithAgent(app, 'batch-1');
    await app.run(AppendMessageDocument, {
      sessionId: 'batch-1',
      agentId: 'agent',
      input: { role: 'SYSTEM', content: 'Be brief.' },
    });
    const data = await app.run(AppendMessagesDocument, {
      sessionId: 'batch-1',
      agentId: 'agent',
      inputs: [
        { role: 'USER', content: 'one' },
        { role: 'ASSISTANT', content: 'two', eventLoopMetrics: { inputTokens: 5, outputTokens: 6 } },
        { role: 'USER', content: 'three' },
      ],
    });
    expect(data.appendMessages.map((m: any) => [m.messageId, m.text])).toEqual([
      [1, 'one'],
      [2, 'two'],
      [3, 'three'],
    ]);
    expect(data.appendMessages[1].eventLoopMetrics).toEqual({
      latencyMs: null,
      inputTokens: 5,
      outputTokens: 6,
      totalTokens: 11,
    });
    const doc = await stored(app, 'batch-1');
    expect(doc.agents.agent.messages.map((m: any) => m.message_id)).toEqual([0, 1, 2, 3]);
    expect(doc.agents.agent.messages[2].event_loop_metrics).toEqual({
      accumulated_usage: { inputTokens: 5, outputTokens: 6, totalTokens: 11 },
    });
  });

  it('continues the ids of an SDK-written agent whose messages are not numbered from 1', async () => {
    const now = new Date();
    await app.db.collection('sessions').insertOne({
      _id: 'sdk-1',
      session_id: 'sdk-1',
      session_type: 'default',
      created_at: now,
      updated_at: now,
      metadata: {},
      feedbacks: [],
      agents: {
        a: {
          agent_data: { agent_id: 'a' },
          created_at: now,
          updated_at: now,
          messages: [
            { message_id: 7, role: 'user', content: 'x', created_at: now, updated_at: now },
            { message_id: 41, role: 'assistant', content: 'y', created_at: now, updated_at: now },
          ],
        },
      },
    } as any);
    const data = await app.run(AppendMessageDocument, {
      sessionId: 'sdk-1',
      agentId: 'a',
      input: { role: 'USER', content: 'z' },
    });
    expect(data.appendMessage.messageId).toBe(42);
  });

  it('200 concurrent appends get message ids 0..199 with no duplicate, gap or lost message', async () => {
    await createSessionWithAgent(app, 'concurrent-1');
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, index) =>
        app.run(AppendMessageDocument, {
          sessionId: 'concurrent-1',
          agentId: 'agent',
          input: { role: 'USER', content: `message ${index}` },
        }),
      ),
    );
    const returned = results.map((result) => result.appendMessage.messageId).sort((a: number, b: number) => a - b);
    expect(returned).toEqual(Array.from({ length: 200 }, (_, index) => index));
    const messages = (await stored(app, 'concurrent-1')).agents.agent.messages;
    expect(messages).toHaveLength(200);
    expect(messages.map((m: any) => m.message_id)).toEqual(Array.from({ length: 200 }, (_, index) => index));
    // Each call got back its own message.
    const byContent = new Map(messages.map((m: any) => [m.message.content[0].text, m.message_id]));
    results.forEach((result, index) => expect(byContent.get(`message ${index}`)).toBe(result.appendMessage.messageId));
  });

  describe('Agent.messages pagination', () => {
    const sessionId = 'paged-1';
    const page = async (variables: Omit<AgentMessagesQueryVariables, 'id' | 'agentId'>) =>
      (await app.run(AgentMessagesDocument, { id: sessionId, agentId: 'agent', ...variables })).session!.agent!
        .messages;
    const ids = (connection: any) => connection.edges.map((edge: any) => edge.node.messageId);

    beforeAll(async () => {
      await createSessionWithAgent(app, sessionId);
      await app.run(AppendMessagesDocument, {
        sessionId,
        agentId: 'agent',
        inputs: Array.from({ length: 12 }, (_, index): AppendMessageInput => ({
          role: index % 3 === 0 ? 'USER' : 'ASSISTANT',
          content: `m${index + 1}`,
        })),
      });
    });

    it('pages forward with first/after, with totalCount and pageInfo', async () => {
      const one = await page({ first: 5 });
      expect(ids(one)).toEqual([0, 1, 2, 3, 4]);
      expect(one.totalCount).toBe(12);
      expect(one.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
      expect(one.pageInfo.endCursor).toBe(one.edges[4].cursor);
      const two = await page({ first: 5, after: one.pageInfo.endCursor });
      expect(ids(two)).toEqual([5, 6, 7, 8, 9]);
      expect(two.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: true });
      const three = await page({ first: 5, after: two.pageInfo.endCursor });
      expect(ids(three)).toEqual([10, 11]);
      expect(three.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    });

    it('pages backward with last/before', async () => {
      const one = await page({ last: 5 });
      expect(ids(one)).toEqual([7, 8, 9, 10, 11]);
      expect(one.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
      const two = await page({ last: 5, before: one.pageInfo.startCursor });
      expect(ids(two)).toEqual([2, 3, 4, 5, 6]);
      const three = await page({ last: 5, before: two.pageInfo.startCursor });
      expect(ids(three)).toEqual([0, 1]);
      expect(three.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    });

    it('defaults to the first 50 and pages between two cursors', async () => {
      expect(ids(await page({}))).toEqual(Array.from({ length: 12 }, (_, index) => index));
      const all = await page({});
      const between = await page({ after: all.edges[2].cursor, before: all.edges[6].cursor });
      expect(ids(between)).toEqual([3, 4, 5]);
    });

    it('filters by role, totalCount included', async () => {
      const users = await page({ role: 'USER', first: 2 });
      expect(ids(users)).toEqual([0, 3]);
      expect(users.totalCount).toBe(4);
      expect(users.edges.every((edge: any) => edge.node.role === 'USER')).toBe(true);
      const next = await page({ role: 'USER', first: 2, after: users.pageInfo.endCursor });
      expect(ids(next)).toEqual([6, 9]);
      expect(next.pageInfo.hasNextPage).toBe(false);
    });

    it('reads the session and the page in one aggregate that slices inside the database', async () => {
      app.commands.reset();
      const result = await page({ last: 2 });
      expect(ids(result)).toEqual([10, 11]);
      const aggregates = app.commands.events.filter((event) => event.commandName === 'aggregate');
      // The session's read computes the selected page too (session.selection.ts); no find of the whole document.
      expect(aggregates).toHaveLength(1);
      expect(app.commands.count('find')).toBe(0);
      expect(JSON.stringify(aggregates[0].command.pipeline)).toContain('$slice');
    });

    it('rejects page sizes outside 1..500, first with last, and foreign cursors', async () => {
      for (const variables of [
        { first: 0 },
        { first: 501 },
        { last: 501 },
        { first: 1, last: 1 },
        { after: 'not-a-cursor' },
      ]) {
        const result = await app.execute(AgentMessagesDocument, { id: sessionId, agentId: 'agent', ...variables });
        expect(result.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
        expect(result.errors?.[0].extensions?.field).toEqual(expect.any(String));
      }
      expect(ids(await page({ first: 500 }))).toHaveLength(12);
    });
  });

  it('updateMessage redacts an SDK-shaped message: redact_message written, message and created_at kept', async () => {
    await createSessionWithAgent(app, 'redact-1');
    const appended = await app.run(AppendMessagesDocument, {
      sessionId: 'redact-1',
      agentId: 'agent',
      inputs: [
        { role: 'USER', content: 'my card is 4111 1111 1111 1111' },
        { role: 'ASSISTANT', content: 'noted' },
      ],
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const data = await app.run(UpdateMessageDocument, {
      sessionId: 'redact-1',
      agentId: 'agent',
      messageId: 0,
      input: { content: 'my card is [REDACTED]' },
    });
    expect(data.updateMessage).toMatchObject({
      messageId: 0,
      role: 'USER',
      content: [{ text: 'my card is [REDACTED]' }],
      text: 'my card is [REDACTED]',
      redacted: true,
    });
    expect(data.updateMessage.createdAt).toBe(appended.appendMessages[0].createdAt);
    expect(new Date(data.updateMessage.updatedAt).getTime()).toBeGreaterThan(
      new Date(data.updateMessage.createdAt).getTime(),
    );
    const doc = await stored(app, 'redact-1');
    const [first, second] = doc.agents.agent.messages;
    // The manager's redaction: the original stays in `message` (never served), the redaction beside it.
    expect(first.redact_message).toEqual({ role: 'user', content: [{ text: 'my card is [REDACTED]' }] });
    expect(first.message).toEqual({ role: 'user', content: [{ text: 'my card is 4111 1111 1111 1111' }] });
    expect(first.created_at.toISOString()).toBe(appended.appendMessages[0].createdAt);
    expect(second.redact_message).toBeNull();
    expect(second.updated_at.toISOString()).toBe(appended.appendMessages[1].updatedAt);
    expect(doc.agents.agent.updated_at.toISOString()).toBe(data.updateMessage.updatedAt);
    expect(doc.updated_at.toISOString()).toBe(data.updateMessage.updatedAt);
  });

  it('answers NOT_FOUND for an unknown session, agent or message, and writes nothing', async () => {
    await createSessionWithAgent(app, 'missing-1');
    const before = await stored(app, 'missing-1');
    const cases: OperationCall[] = [
      call(AppendMessageDocument, { sessionId: 'nope', agentId: 'agent', input: { role: 'USER', content: 'x' } }),
      call(AppendMessageDocument, { sessionId: 'missing-1', agentId: 'ghost', input: { role: 'USER', content: 'x' } }),
      call(AppendMessagesDocument, {
        sessionId: 'missing-1',
        agentId: 'ghost',
        inputs: [{ role: 'USER', content: 'x' }],
      }),
      call(UpdateMessageDocument, { sessionId: 'missing-1', agentId: 'agent', messageId: 99, input: { content: 'x' } }),
      call(UpdateMessageDocument, { sessionId: 'missing-1', agentId: 'ghost', messageId: 1, input: { content: 'x' } }),
      call(SessionAgentDocument, { id: 'missing-1', agentId: 'ghost' }),
      call(SessionWithMessagesDocument, { id: 'nope' }),
    ];
    for (const { document, variables } of cases) {
      const result = await app.execute(document, variables);
      expect([operationName(document), result.errors?.[0].extensions?.code]).toEqual([
        operationName(document),
        'NOT_FOUND',
      ]);
    }
    expect(await stored(app, 'missing-1')).toEqual(before);
    expect(await app.db.collection('sessions').countDocuments({ _id: 'nope' as any })).toBe(0);
  });
});
