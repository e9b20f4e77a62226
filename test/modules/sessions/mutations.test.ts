import { call, operationName, createTestApp, type TestApp } from '../../support/app';
import { sessionAlice } from '../../support/fixtures/session-alice';
import {
  AddFeedbackDocument,
  CreateSessionDocument,
  DeleteSessionDocument,
  DeleteSessionMetadataKeysDocument,
  UpdateSessionMetadataDocument,
  UpsertAgentDocument,
} from '../../support/generated/graphql';

const tick = () => new Promise((resolve) => setTimeout(resolve, 3));

describe('sessions: mutations', () => {
  let app: TestApp;
  const stored = (id: string): Promise<any> => app.db.collection('sessions').findOne({ _id: id as any });

  beforeAll(async () => {
    app = await createTestApp();
    await app.db.collection('sessions').insertOne(structuredClone(sessionAlice) as any);
  });
  afterAll(() => app.close());

  it('createSession generates an id, defaults the type to "default" and starts empty', async () => {
    const { createSession } = await app.run(CreateSessionDocument, { input: {} });
    expect(createSession.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(createSession).toMatchObject({
      sessionType: 'default',
      metadata: {},
      feedbacks: [],
      agents: [],
      messageCount: 0,
    });
    expect(createSession.createdAt).toBe(createSession.updatedAt);
    const doc = await stored(createSession.sessionId);
    expect(doc).toEqual({
      _id: createSession.sessionId,
      session_id: createSession.sessionId,
      session_type: 'default',
      created_at: new Date(createSession.createdAt),
      updated_at: new Date(createSession.createdAt),
      metadata: {},
      feedbacks: [],
      agents: {},
    });
  });

  it('createSession with an existing id answers CONFLICT and changes nothing', async () => {
    const before = await stored(sessionAlice._id);
    const result = await app.execute(CreateSessionDocument, {
      input: { sessionId: sessionAlice._id, sessionType: 'other' },
    });
    expect(result.errors?.[0].extensions?.code).toBe('CONFLICT');
    expect(await stored(sessionAlice._id)).toEqual(before);
  });

  it('deleteSession removes the document; a second delete answers NOT_FOUND', async () => {
    await app.run(CreateSessionDocument, { input: { sessionId: 'doomed' } });
    expect((await app.run(DeleteSessionDocument, { id: 'doomed' })).deleteSession).toBe(true);
    expect(await stored('doomed')).toBeNull();
    const again = await app.execute(DeleteSessionDocument, { id: 'doomed' });
    expect(again.errors?.[0].extensions?.code).toBe('NOT_FOUND');
  });

  it('upsertAgent creates an agent: agent_data with ISO string timestamps, agent level with dates, no messages', async () => {
    await app.run(CreateSessionDocument, { input: { sessionId: 'agents-1' } });
    const before = await stored('agents-1');
    await tick();
    const { upsertAgent } = await app.run(UpsertAgentDocument, {
      sessionId: 'agents-1',
      input: {
        agentId: 'support-agent',
        agentData: {
          model: 'claude-3-sonnet-20240229',
          system_prompt: 'You are helpful.',
          temperature: 0.2,
          max_tokens: 512,
          state: { topic: 'billing' },
          conversation_manager_state: {},
          created_at: '2024-01-15T09:00:00.000Z',
        },
      },
    });
    expect(upsertAgent).toMatchObject({
      agentId: 'support-agent',
      agentData: {
        model: 'claude-3-sonnet-20240229',
        systemPrompt: 'You are helpful.',
        temperature: 0.2,
        maxTokens: 512,
        state: { topic: 'billing' },
      },
      messageCount: 0,
      lastMessage: null,
    });
    const doc = await stored('agents-1');
    const agent = doc.agents['support-agent'];
    expect(agent.agent_data).toEqual({
      agent_id: 'support-agent',
      model: 'claude-3-sonnet-20240229',
      system_prompt: 'You are helpful.',
      temperature: 0.2,
      max_tokens: 512,
      state: { topic: 'billing' },
      conversation_manager_state: {},
      _internal_state: {},
      created_at: new Date('2024-01-15T09:00:00.000Z'),
      updated_at: new Date(upsertAgent.updatedAt),
    });
    expect(agent.created_at).toEqual(new Date(upsertAgent.createdAt));
    expect(agent.updated_at).toEqual(new Date(upsertAgent.updatedAt));
    expect(agent.messages).toEqual([]);
    expect(doc.updated_at.getTime()).toBeGreaterThan(before.updated_at.getTime());
    expect(doc.updated_at).toEqual(agent.updated_at);
  });

  it('upsertAgent on an existing agent sets each given field, keeps the others, its messages and creation times', async () => {
    const before = (await stored(sessionAlice._id)).agents['support-agent'];
    await tick();
    const { upsertAgent } = await app.run(UpsertAgentDocument, {
      sessionId: sessionAlice._id,
      input: { agentId: 'support-agent', agentData: { model: 'claude-3-opus', state: { conversation_count: 6 } } },
    });
    expect(upsertAgent).toMatchObject({
      agentId: 'support-agent',
      messageCount: 4,
      agentData: { model: 'claude-3-opus', systemPrompt: 'You are a helpful customer support agent.' },
    });
    const doc = await stored(sessionAlice._id);
    const agent = doc.agents['support-agent'];
    expect(agent.messages).toEqual(before.messages);
    expect(agent.created_at).toEqual(before.created_at);
    expect(agent.updated_at.getTime()).toBeGreaterThan(before.updated_at.getTime());
    // Like the Strands manager's update_agent: one path per field, so the fields not given survive.
    expect(agent.agent_data).toEqual({
      ...before.agent_data,
      model: 'claude-3-opus',
      state: { conversation_count: 6 },
      updated_at: agent.updated_at,
      _internal_state: {},
    });
    expect(doc.agents['translator-agent']).toEqual(sessionAlice.agents['translator-agent']);
    expect(Object.keys(doc.agents)).toEqual(['support-agent', 'translator-agent']);
  });

  it('updateSessionMetadata merges keys (dot paths set nested fields) and refreshes updated_at', async () => {
    await app.run(CreateSessionDocument, {
      input: {
        sessionId: 'meta-1',
        metadata: { user_id: 'alice', priority: 'low', custom_data: { company: 'ACME', tier: 'basic' } },
      },
    });
    const before = await stored('meta-1');
    await tick();
    const { updateSessionMetadata } = await app.run(UpdateSessionMetadataDocument, {
      sessionId: 'meta-1',
      metadata: { priority: 'high', status: 'active', 'custom_data.tier': 'premium', tags: ['vip'] },
    });
    const expected = {
      user_id: 'alice',
      priority: 'high',
      custom_data: { company: 'ACME', tier: 'premium' },
      status: 'active',
      tags: ['vip'],
    };
    expect(updateSessionMetadata.metadata).toEqual(expected);
    const doc = await stored('meta-1');
    expect(doc.metadata).toEqual(expected);
    expect(doc.updated_at.getTime()).toBeGreaterThan(before.updated_at.getTime());
    expect(updateSessionMetadata.updatedAt).toBe(doc.updated_at.toISOString());
  });

  it('deleteSessionMetadataKeys removes top-level and nested keys', async () => {
    const { deleteSessionMetadataKeys } = await app.run(DeleteSessionMetadataKeysDocument, {
      sessionId: 'meta-1',
      keys: ['user_id', 'custom_data.company', 'not_there'],
    });
    expect(deleteSessionMetadataKeys.metadata).toEqual({
      priority: 'high',
      custom_data: { tier: 'premium' },
      status: 'active',
      tags: ['vip'],
    });
    expect((await stored('meta-1')).metadata).toEqual(deleteSessionMetadataKeys.metadata);
  });

  it('addFeedback appends up, down and neutral entries with dates and refreshes updated_at', async () => {
    await app.run(CreateSessionDocument, { input: { sessionId: 'feedback-1' } });
    const up = await app.run(AddFeedbackDocument, {
      sessionId: 'feedback-1',
      input: { rating: 'UP', comment: 'Very helpful' },
    });
    const neutral = await app.run(AddFeedbackDocument, { sessionId: 'feedback-1', input: { rating: null } });
    await app.run(AddFeedbackDocument, { sessionId: 'feedback-1', input: { rating: 'DOWN', comment: 'Slow' } });
    expect(up.addFeedback).toMatchObject({ rating: 'UP', comment: 'Very helpful' });
    expect(neutral.addFeedback).toMatchObject({ rating: null, comment: '' });
    const doc = await stored('feedback-1');
    expect(doc.feedbacks.map((f: any) => [f.rating, f.comment])).toEqual([
      ['up', 'Very helpful'],
      [null, ''],
      ['down', 'Slow'],
    ]);
    expect(doc.feedbacks[0].created_at).toEqual(new Date(up.addFeedback.createdAt));
    expect(doc.updated_at).toEqual(doc.feedbacks[2].created_at);
    const missing = await app.execute(AddFeedbackDocument, { sessionId: 'nope', input: { rating: 'UP' } });
    expect(missing.errors?.[0].extensions?.code).toBe('NOT_FOUND');
    const cases = [
      call(UpdateSessionMetadataDocument, { sessionId: 'nope', metadata: { a: 1 } }),
      call(DeleteSessionMetadataKeysDocument, { sessionId: 'nope', keys: ['a'] }),
      call(UpsertAgentDocument, { sessionId: 'nope', input: { agentId: 'a', agentData: {} } }),
    ];
    for (const { document, variables } of cases) {
      const result = await app.execute(document, variables);
      expect([operationName(document), result.errors?.[0].extensions?.code]).toEqual([
        operationName(document),
        'NOT_FOUND',
      ]);
    }
  });

  it('a mutation document sees its own earlier writes: loaders are cleared after each write', async () => {
    await app.run(CreateSessionDocument, { input: { sessionId: 'fresh-1' } });
    const data = await app.run(
      `mutation Sequence {
        before: upsertAgent(sessionId: "fresh-1", input: { agentId: "a", agentData: {} }) { messageCount messages(last: 5) { totalCount } }
        append: appendMessage(sessionId: "fresh-1", agentId: "a", input: { role: USER, content: "hi" }) { messageId }
        after: upsertAgent(sessionId: "fresh-1", input: { agentId: "a", agentData: {} }) {
          messageCount
          lastMessage { text }
          messages(last: 5) { totalCount }
        }
      }`,
    );
    expect(data.before).toEqual({ messageCount: 0, messages: { totalCount: 0 } });
    expect(data.after).toEqual({ messageCount: 1, lastMessage: { text: 'hi' }, messages: { totalCount: 1 } });
  });
});
