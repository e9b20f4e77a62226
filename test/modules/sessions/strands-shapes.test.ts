import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Decimal128, Long } from 'mongodb';
import { createTestApp, type TestApp } from '../../support/app';
import {
  AppendMessageDocument,
  AppendMessagesDocument,
  CreateSessionDocument,
  UpdateMessageDocument,
  UpsertAgentDocument,
} from '../../support/generated/graphql';

const run = promisify(execFile);
const PYTHON = '/usr/bin/python3';
const SDK_DOUBLE = join(__dirname, '../../support/strands/sdk_double.py');
const SECRET = 'viewer-pw-Zq81LmTt0sQ4';

/** A session as the Strands MongoDB session manager's repository writes it, operation by operation, with the driver. */
async function writeAsManager(app: TestApp, sessionId: string): Promise<{ created: Date; agentCreated: Date }> {
  const sessions = app.db.collection<any>('sessions');
  const created = new Date('2025-03-01T10:00:00.000Z');
  // create_session
  await sessions.insertOne({
    _id: sessionId,
    session_id: sessionId,
    application_name: 'support-app',
    session_type: 'AGENT',
    session_viewer_password: SECRET,
    created_at: created,
    updated_at: created,
    agents: {},
    metadata: {},
    feedbacks: [],
    guardrail_events: [],
  });
  // create_agent: SessionAgent.__dict__ with its ISO timestamps parsed into dates
  const agentCreated = new Date('2025-03-01T10:00:01.000Z');
  await sessions.updateOne(
    { _id: sessionId },
    {
      $set: {
        'agents.helper': {
          agent_data: {
            agent_id: 'helper',
            state: { step: 1 },
            conversation_manager_state: { removed_message_count: 0 },
            _internal_state: {},
            created_at: agentCreated,
            updated_at: agentCreated,
          },
          messages: [],
          created_at: agentCreated,
          updated_at: agentCreated,
        },
        updated_at: agentCreated,
      },
    },
  );
  await sessions.updateOne(
    { _id: sessionId },
    {
      $set: {
        'agents.helper.agent_data.model': 'claude-sonnet',
        'agents.helper.agent_data.system_prompt': 'Be kind.',
        'agents.helper.agent_data.prompt_metadata': { version: 3 },
      },
    },
  );
  // create_message ×2: SessionMessage.__dict__, message_id from 0
  const at = (second: number) => new Date(`2025-03-01T10:00:${String(second).padStart(2, '0')}.000Z`);
  const messages = [
    { message: { role: 'user', content: [{ text: 'my card is 4111' }] }, message_id: 0 },
    { message: { role: 'assistant', content: [{ text: 'Noted.' }, { text: 'Anything else?' }] }, message_id: 1 },
  ];
  for (const [index, message] of messages.entries()) {
    await sessions.updateOne(
      { _id: sessionId },
      {
        $push: {
          'agents.helper.messages': {
            ...message,
            redact_message: null,
            created_at: at(index + 2),
            updated_at: at(index + 2),
            ...(index === 1
              ? {
                  event_loop_metrics: {
                    accumulated_usage: { inputTokens: 12, outputTokens: 3_000_000_000, totalTokens: 3_000_000_012 },
                    accumulated_metrics: { latencyMs: 830 },
                  },
                }
              : {}),
          },
        } as any,
        $set: { 'agents.helper.updated_at': at(index + 2), updated_at: at(index + 2) },
      },
    );
  }
  // update_message (redaction): the whole message set at its index, created_at kept
  await sessions.updateOne(
    { _id: sessionId },
    {
      $set: {
        'agents.helper.messages.0': {
          message: messages[0].message,
          message_id: 0,
          redact_message: { role: 'user', content: [{ text: '[REDACTED]' }] },
          created_at: at(2),
          updated_at: at(5),
        },
        'agents.helper.updated_at': at(5),
        updated_at: at(5),
      },
    },
  );
  // update_agent: each SessionAgent field on its own path
  await sessions.updateOne(
    { _id: sessionId },
    {
      $set: {
        'agents.helper.agent_data.agent_id': 'helper',
        'agents.helper.agent_data.state': { step: 2 },
        'agents.helper.agent_data.conversation_manager_state': { removed_message_count: 1 },
        'agents.helper.agent_data._internal_state': {},
        'agents.helper.agent_data.created_at': agentCreated,
        'agents.helper.agent_data.updated_at': at(6),
        'agents.helper.updated_at': at(6),
        updated_at: at(6),
      },
    },
  );
  // update_metadata, add_feedback
  await sessions.updateOne({ _id: sessionId }, { $set: { 'metadata.customer': 'c-7', 'metadata.tier': 'gold' } });
  await sessions.updateOne(
    { _id: sessionId },
    {
      $push: { feedbacks: { rating: 'down', comment: 'slow', created_at: at(7) } } as any,
      $set: { updated_at: at(7) },
    },
  );
  return { created, agentCreated };
}

const SESSION_QUERY = `query ($id: ID!) {
  session(id: $id) {
    sessionId sessionType applicationName createdAt updatedAt metadata messageCount
    tokenUsage { input output total }
    feedbacks { rating comment createdAt }
    agents {
      agentId createdAt updatedAt messageCount
      agentData { model systemPrompt state conversationManagerState raw }
      lastMessage { messageId text redacted }
      messages(first: 10) {
        edges { node { messageId role content text redacted createdAt updatedAt
          eventLoopMetrics { latencyMs inputTokens outputTokens totalTokens } } }
      }
    }
  }
}`;

describe('sessions: the shapes the Strands SDK and its MongoDB session manager write', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(() => app.close());

  it('serves a session written as the manager writes it, field by field, the redaction instead of the original', async () => {
    await writeAsManager(app, 'mgr-1');
    const result = await app.execute(SESSION_QUERY, { id: 'mgr-1' });
    expect(result.errors).toBeUndefined();
    const session = result.data!.session;
    expect(session).toMatchObject({
      sessionId: 'mgr-1',
      sessionType: 'AGENT',
      applicationName: 'support-app',
      createdAt: '2025-03-01T10:00:00.000Z',
      updatedAt: '2025-03-01T10:00:07.000Z',
      metadata: { customer: 'c-7', tier: 'gold' },
      messageCount: 2,
      tokenUsage: { input: 12, output: 3_000_000_000, total: 3_000_000_012 },
      feedbacks: [{ rating: 'DOWN', comment: 'slow', createdAt: '2025-03-01T10:00:07.000Z' }],
    });
    const [agent] = session.agents;
    expect(agent).toMatchObject({
      agentId: 'helper',
      createdAt: '2025-03-01T10:00:01.000Z',
      updatedAt: '2025-03-01T10:00:06.000Z',
      messageCount: 2,
      agentData: {
        model: 'claude-sonnet',
        systemPrompt: 'Be kind.',
        state: { step: 2 },
        conversationManagerState: { removed_message_count: 1 },
      },
      lastMessage: { messageId: 1, text: 'Noted.\nAnything else?', redacted: false },
    });
    expect(agent.agentData.raw.prompt_metadata).toEqual({ version: 3 });
    expect(agent.messages.edges.map((edge: any) => edge.node)).toEqual([
      {
        messageId: 0,
        role: 'USER',
        content: [{ text: '[REDACTED]' }],
        text: '[REDACTED]',
        redacted: true,
        createdAt: '2025-03-01T10:00:02.000Z',
        updatedAt: '2025-03-01T10:00:05.000Z',
        eventLoopMetrics: null,
      },
      {
        messageId: 1,
        role: 'ASSISTANT',
        content: [{ text: 'Noted.' }, { text: 'Anything else?' }],
        text: 'Noted.\nAnything else?',
        redacted: false,
        createdAt: '2025-03-01T10:00:03.000Z',
        updatedAt: '2025-03-01T10:00:03.000Z',
        eventLoopMetrics: { latencyMs: 830, inputTokens: 12, outputTokens: 3_000_000_000, totalTokens: 3_000_000_012 },
      },
    ]);
    // The original of a redacted message and the viewer password are never served.
    expect(JSON.stringify(result)).not.toContain('4111');
    const page = await app.execute(
      `{ sessions(first: 50) { edges { node { sessionId applicationName metadata agents { agentData { raw } } } } } }`,
    );
    expect(page.errors).toBeUndefined();
    expect(JSON.stringify([result, page])).not.toContain(SECRET);
  });

  it('continues an SDK-shaped agent in its shape, and redacts through updateMessage as the manager does', async () => {
    await writeAsManager(app, 'mgr-2');
    const { appendMessage } = await app.run(AppendMessageDocument, {
      sessionId: 'mgr-2',
      agentId: 'helper',
      input: { role: 'USER', content: 'and my phone is 555' },
    });
    expect(appendMessage).toMatchObject({ messageId: 2, content: [{ text: 'and my phone is 555' }], redacted: false });
    const { updateMessage } = await app.run(UpdateMessageDocument, {
      sessionId: 'mgr-2',
      agentId: 'helper',
      messageId: 2,
      input: { content: 'and my phone is [REDACTED]' },
    });
    expect(updateMessage).toMatchObject({ messageId: 2, text: 'and my phone is [REDACTED]', redacted: true });
    const stored = (await app.db.collection<any>('sessions').findOne({ _id: 'mgr-2' }))!;
    const message = stored.agents.helper.messages[2];
    expect(message).toEqual({
      message: { role: 'user', content: [{ text: 'and my phone is 555' }] },
      message_id: 2,
      redact_message: { role: 'user', content: [{ text: 'and my phone is [REDACTED]' }] },
      created_at: new Date(appendMessage.createdAt),
      updated_at: new Date(updateMessage.updatedAt),
    });
  });

  it('upsertAgent keeps the fields the manager stores beside SessionAgent and writes dates', async () => {
    const { agentCreated } = await writeAsManager(app, 'mgr-3');
    const { upsertAgent } = await app.run(UpsertAgentDocument, {
      sessionId: 'mgr-3',
      input: { agentId: 'helper', agentData: { state: { step: 3 }, updated_at: '2025-03-02T00:00:00Z' } },
    });
    expect(upsertAgent.agentData).toMatchObject({
      model: 'claude-sonnet',
      systemPrompt: 'Be kind.',
      state: { step: 3 },
      conversationManagerState: { removed_message_count: 1 },
    });
    const stored = (await app.db.collection<any>('sessions').findOne({ _id: 'mgr-3' }))!;
    expect(stored.agents.helper.agent_data).toEqual({
      agent_id: 'helper',
      state: { step: 3 },
      conversation_manager_state: { removed_message_count: 1 },
      _internal_state: {},
      created_at: agentCreated,
      updated_at: new Date('2025-03-02T00:00:00Z'),
      model: 'claude-sonnet',
      system_prompt: 'Be kind.',
      prompt_metadata: { version: 3 },
    });
    expect(stored.agents.helper.messages).toHaveLength(2);
  });

  it('takes int64 ids and counts in every update, and renders int64 and decimal metadata as JSON values', async () => {
    const now = new Date();
    await app.db.collection<any>('sessions').insertOne({
      _id: 'wide-1',
      session_id: 'wide-1',
      session_type: 'default',
      created_at: now,
      updated_at: now,
      metadata: {
        big: Long.fromString('9007199254740993'),
        small: Long.fromNumber(5),
        price: Decimal128.fromString('1.25'),
      },
      feedbacks: [],
      agents: {
        a: {
          agent_data: { agent_id: 'a', state: {}, conversation_manager_state: {} },
          created_at: now,
          updated_at: now,
          messages: [0, 1].map((id) => ({
            message: { role: 'user', content: [{ text: `m${id}` }] },
            message_id: Long.fromNumber(id),
            redact_message: null,
            created_at: now,
            updated_at: now,
            event_loop_metrics: { accumulated_usage: { inputTokens: Long.fromNumber(2 ** 31 + 1) } },
          })),
        },
      },
    });
    const { appendMessages } = await app.run(AppendMessagesDocument, {
      sessionId: 'wide-1',
      agentId: 'a',
      inputs: [{ role: 'ASSISTANT', content: 'next', eventLoopMetrics: { inputTokens: 2 ** 31 + 5 } }],
    });
    expect(appendMessages.map((m) => m.messageId)).toEqual([2]);
    expect(appendMessages[0].eventLoopMetrics?.inputTokens).toBe(2 ** 31 + 5);
    const { updateMessage } = await app.run(UpdateMessageDocument, {
      sessionId: 'wide-1',
      agentId: 'a',
      messageId: 1,
      input: { content: 'gone' },
    });
    expect(updateMessage).toMatchObject({ messageId: 1, text: 'gone', redacted: true });
    const result = await app.execute(`{ session(id: "wide-1") { metadata tokenUsage { input } } }`);
    expect(result.errors).toBeUndefined();
    expect(result.data!.session).toEqual({
      metadata: { big: '9007199254740993', small: 5, price: '1.25' },
      tokenUsage: { input: 2 * (2 ** 31 + 1) + 2 ** 31 + 5 },
    });
  });

  it('a message or feedback that does not fit blanks only its own fields: the page is served, the error names them', async () => {
    const now = new Date();
    const sessions = app.db.collection<any>('sessions');
    await sessions.insertOne({
      _id: 'bad-1',
      session_id: 'bad-1',
      session_type: 'broken-fixture',
      created_at: now,
      updated_at: now,
      metadata: {},
      feedbacks: [{ rating: 'up', comment: 'ok', created_at: 'not a date' }],
      agents: {
        a: {
          agent_data: { agent_id: 'a' },
          created_at: now,
          updated_at: now,
          messages: [
            { message: { role: 42, content: [{ text: 'hi' }] }, message_id: 0, created_at: now, updated_at: now },
            { message_id: 1, role: 'user', content: 'fine', created_at: 'never', updated_at: now },
          ],
        },
      },
    });
    await app.run(CreateSessionDocument, { input: { sessionId: 'good-1', sessionType: 'broken-fixture' } });
    const result = await app.execute(
      `{ sessions(first: 10, filter: { sessionType: "broken-fixture" }) { edges { node { sessionId
        feedbacks { comment createdAt }
        agents { messages(first: 5) { edges { node { messageId role text createdAt } } } } } } } }`,
    );
    const nodes = result.data!.sessions.edges.map((edge: any) => edge.node);
    expect(nodes.map((node: any) => node.sessionId).sort()).toEqual(['bad-1', 'good-1']);
    const bad = nodes.find((node: any) => node.sessionId === 'bad-1');
    expect(bad.feedbacks).toEqual([{ comment: 'ok', createdAt: '1970-01-01T00:00:00.000Z' }]);
    expect(bad.agents[0].messages.edges.map((edge: any) => edge.node.text)).toEqual(['hi', 'fine']);
    const errors = (result.errors ?? []).map((error) => ({
      path: error.path!.slice(4).join('.'),
      storedField: error.extensions?.storedField,
      code: error.extensions?.code,
    }));
    expect(errors).toEqual(
      expect.arrayContaining([
        { path: 'feedbacks.0.createdAt', storedField: 'feedbacks.0.created_at', code: 'STORED_VALUE_INVALID' },
        {
          path: 'agents.0.messages.edges.0.node.role',
          storedField: 'agents.a.messages.message.role',
          code: 'STORED_VALUE_INVALID',
        },
        {
          path: 'agents.0.messages.edges.1.node.createdAt',
          storedField: 'agents.a.messages.created_at',
          code: 'STORED_VALUE_INVALID',
        },
      ]),
    );
    expect(errors).toHaveLength(3);
  });

  const python = existsSync(PYTHON) ? it : it.skip;
  python('what Hindsight writes reads back through the SDK dataclasses (pymongo test double)', async () => {
    await app.run(CreateSessionDocument, {
      input: { sessionId: 'sdk-rt', applicationName: 'support-app', userId: 'user-7' },
    });
    await app.run(UpsertAgentDocument, {
      sessionId: 'sdk-rt',
      input: { agentId: 'helper', agentData: { model: 'claude-sonnet', state: { step: 1 } } },
    });
    await app.run(AppendMessagesDocument, {
      sessionId: 'sdk-rt',
      agentId: 'helper',
      inputs: [
        { role: 'USER', content: 'my card is 4111' },
        { role: 'ASSISTANT', content: [{ text: 'Noted.' }], eventLoopMetrics: { inputTokens: 3, outputTokens: 4 } },
      ],
    });
    await app.run(UpdateMessageDocument, {
      sessionId: 'sdk-rt',
      agentId: 'helper',
      messageId: 0,
      input: { content: 'my card is [REDACTED]' },
    });
    // Hindsight's user scope is a top-level key the SDK's reads ignore.
    expect(await app.db.collection<any>('sessions').findOne({ _id: 'sdk-rt' })).toMatchObject({ user_id: 'user-7' });
    const { stdout } = await run(PYTHON, [SDK_DOUBLE, app.uri, app.db.databaseName, 'sdk-rt']).catch(
      (error: { stdout?: string }) => {
        throw new Error(`the SDK double rejected what Hindsight wrote: ${error.stdout}`);
      },
    );
    expect(JSON.parse(stdout)).toEqual({
      session: 'sdk-rt',
      agents: {
        helper: {
          state: { step: 1 },
          messages: [
            { id: 0, role: 'user', content: [{ text: 'my card is [REDACTED]' }] },
            { id: 1, role: 'assistant', content: [{ text: 'Noted.' }] },
          ],
        },
      },
    });
  });
});
