import { Int32 } from 'bson';
import { createTestApp, type TestApp } from '../../support/app';
import { sessionAlice } from '../../support/fixtures/session-alice';
import {
  AddFeedbackDocument,
  AppendMessageDocument,
  CreateSessionDocument,
  SessionWithMessagesDocument,
  UpsertAgentDocument,
} from '../../support/generated/graphql';

const iso = (date: Date) => date.toISOString();

/** The GraphQL view of a stored message of the seed. */
function expectedMessage(message: (typeof sessionAlice)['agents']['support-agent']['messages'][number]) {
  const metrics = (message as { event_loop_metrics?: any }).event_loop_metrics;
  return {
    messageId: message.message_id,
    role: message.role.toUpperCase(),
    content: message.content,
    text: message.content,
    redacted: false,
    createdAt: iso(message.created_at),
    updatedAt: iso(message.updated_at),
    eventLoopMetrics: metrics
      ? { latencyMs: metrics.accumulated_metrics.latencyMs, ...metrics.accumulated_usage }
      : null,
  };
}

describe('sessions: the seed 001 document shape', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(() => app.close());

  it('serves the seed example document, inserted as it is with the driver, with every field', async () => {
    await app.db.collection('sessions').insertOne(structuredClone(sessionAlice) as any);
    const data = await app.run(SessionWithMessagesDocument, { id: 'user-alice-chat-20240115', last: 20 });
    const session = data.session;
    const support = sessionAlice.agents['support-agent'];
    const translator = sessionAlice.agents['translator-agent'];

    expect(session).toMatchObject({
      sessionId: 'user-alice-chat-20240115',
      sessionType: 'customer_support',
      createdAt: '2024-01-15T09:00:00.000Z',
      updatedAt: '2024-01-22T14:30:45.123Z',
      metadata: sessionAlice.metadata,
      feedbacks: [
        { rating: 'UP', comment: 'Very helpful response, solved my issue!', createdAt: '2024-01-22T14:30:00.000Z' },
        { rating: 'DOWN', comment: 'Response was too slow', createdAt: '2024-01-22T16:45:00.000Z' },
        { rating: null, comment: 'Just testing the feedback system', createdAt: '2024-01-22T17:00:00.000Z' },
      ],
      messageCount: 6,
      tokenUsage: { input: 28 + 89 + 12, output: 24 + 18 + 8, total: 52 + 107 + 20 },
    });
    expect(session.agents.map((agent: any) => agent.agentId)).toEqual(['support-agent', 'translator-agent']);

    const [supportView, translatorView] = session.agents;
    expect(supportView).toMatchObject({
      agentData: {
        model: 'claude-3-sonnet-20240229',
        systemPrompt: 'You are a helpful customer support agent.',
        temperature: 0.7,
        maxTokens: 1024,
        state: support.agent_data.state,
        raw: support.agent_data,
      },
      createdAt: '2024-01-15T09:00:00.000Z',
      updatedAt: '2024-01-22T14:30:45.123Z',
      messageCount: 4,
      lastMessage: expectedMessage(support.messages[3]),
    });
    expect(supportView.messages.totalCount).toBe(4);
    expect(supportView.messages.edges.map((edge: any) => edge.node)).toEqual(support.messages.map(expectedMessage));

    expect(translatorView).toMatchObject({
      agentData: { model: 'claude-3-haiku-20240307', temperature: null, maxTokens: null, raw: translator.agent_data },
      createdAt: '2024-01-22T14:00:00.000Z',
      messageCount: 2,
    });
    expect(translatorView.messages.edges.map((edge: any) => edge.node)).toEqual(
      translator.messages.map(expectedMessage),
    );
    expect(translatorView.messages.edges[1].node.eventLoopMetrics).toEqual({
      latencyMs: 123,
      inputTokens: 12,
      outputTokens: 8,
      totalTokens: 20,
    });
  });

  it("writes sessions built through the API: seed 001's session fields, the SDK's message shape, BSON dates", async () => {
    await app.run(CreateSessionDocument, {
      input: {
        sessionId: 'built-1',
        sessionType: 'customer_support',
        metadata: { priority: 'high', custom_data: { tier: 'premium' } },
      },
    });
    await app.run(UpsertAgentDocument, {
      sessionId: 'built-1',
      input: {
        agentId: 'support-agent',
        agentData: {
          model: 'claude-3-sonnet-20240229',
          system_prompt: 'Help.',
          temperature: 0.7,
          state: { n: 1 },
          conversation_manager_state: {},
        },
      },
    });
    await app.run(AppendMessageDocument, {
      sessionId: 'built-1',
      agentId: 'support-agent',
      input: { role: 'USER', content: 'Hi, I have a question about my billing.' },
    });
    await app.run(AppendMessageDocument, {
      sessionId: 'built-1',
      agentId: 'support-agent',
      input: {
        role: 'ASSISTANT',
        content: [{ type: 'text', text: 'Hello!' }],
        eventLoopMetrics: { latencyMs: 245, inputTokens: 28, outputTokens: 24 },
      },
    });
    await app.run(AddFeedbackDocument, { sessionId: 'built-1', input: { rating: 'UP', comment: 'Great' } });

    const stored: any = await app.db
      .collection('sessions')
      .findOne({ _id: 'built-1' as any }, { promoteValues: false });
    expect(Object.keys(stored)).toEqual([
      '_id',
      'session_id',
      'session_type',
      'created_at',
      'updated_at',
      'metadata',
      'feedbacks',
      'agents',
    ]);
    expect(stored._id.toString()).toBe('built-1');
    expect(stored.session_id.toString()).toBe('built-1');
    expect(stored.created_at).toBeInstanceOf(Date);
    expect(stored.updated_at).toBeInstanceOf(Date);
    expect(stored.feedbacks).toHaveLength(1);
    expect(Object.keys(stored.feedbacks[0])).toEqual(['rating', 'comment', 'created_at']);
    expect(stored.feedbacks[0].created_at).toBeInstanceOf(Date);

    const agent = stored.agents['support-agent'];
    expect(Object.keys(agent)).toEqual(['agent_data', 'created_at', 'updated_at', 'messages']);
    expect(agent.created_at).toBeInstanceOf(Date);
    expect(agent.updated_at).toBeInstanceOf(Date);
    expect(agent.agent_data.agent_id.toString()).toBe('support-agent');
    // BSON dates at every level, as the Strands manager stores them.
    expect(agent.agent_data.created_at).toBeInstanceOf(Date);
    expect(agent.agent_data.updated_at).toBeInstanceOf(Date);

    expect(agent.messages).toHaveLength(2);
    const [user, assistant] = agent.messages;
    // A new agent's messages: the Strands SDK's SessionMessage fields (ids from 0, its index).
    expect(Object.keys(user)).toEqual(['message', 'message_id', 'redact_message', 'created_at', 'updated_at']);
    expect(Object.keys(assistant)).toEqual([
      'message',
      'message_id',
      'redact_message',
      'created_at',
      'updated_at',
      'event_loop_metrics',
    ]);
    expect(user.message_id).toBeInstanceOf(Int32);
    expect([user.message_id.valueOf(), assistant.message_id.valueOf()]).toEqual([0, 1]);
    expect(assistant.message_id).toBeInstanceOf(Int32);
    expect(user.message.role.toString()).toBe('user');
    expect(user.redact_message).toBeNull();
    expect(user.created_at).toBeInstanceOf(Date);
    expect(user.updated_at).toBeInstanceOf(Date);

    const promoted: any = await app.db.collection('sessions').findOne({ _id: 'built-1' as any });
    expect(promoted.agents['support-agent'].messages[1].event_loop_metrics).toEqual({
      accumulated_metrics: { latencyMs: 245 },
      accumulated_usage: { inputTokens: 28, outputTokens: 24, totalTokens: 52 },
    });
    expect(promoted.agents['support-agent'].messages[1].message).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'Hello!' }],
    });
    expect(promoted.agents['support-agent'].messages[0].message.content).toEqual([
      { text: 'Hi, I have a question about my billing.' },
    ]);
    expect(promoted.metadata).toEqual({ priority: 'high', custom_data: { tier: 'premium' } });
    expect(promoted.feedbacks[0]).toMatchObject({ rating: 'up', comment: 'Great' });
    expect(promoted.session_type).toBe('customer_support');
  });
});
