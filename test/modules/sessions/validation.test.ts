import { operationName, type Operation, createTestApp, type TestApp } from '../../support/app';
import {
  AddFeedbackDocument,
  AppendMessageDocument,
  AppendMessagesDocument,
  CreateSessionDocument,
  DeleteSessionMetadataKeysDocument,
  UpdateMessageDocument,
  UpdateSessionMetadataDocument,
  UpsertAgentDocument,
} from '../../support/generated/graphql';

const KB = 1024;

describe('sessions: validation (BAD_USER_INPUT naming the field, nothing written)', () => {
  let app: TestApp;
  // The huge session's message content is left out: comparing 16 MB twice per case would slow the suite for nothing.
  const snapshot = () =>
    app.db
      .collection('sessions')
      .find({}, { projection: { 'agents.bulky.messages.content': 0 } })
      .sort({ _id: 1 })
      .toArray();

  /** Runs an operation that must be rejected, and checks that the collection did not change. */
  /** Variables are untyped on purpose: they break the rules, some of them the GraphQL types too. */
  async function rejects(
    document: Operation,
    variables: Record<string, unknown>,
    field: string | undefined,
    message?: RegExp,
  ): Promise<void> {
    const name = operationName(document);
    const before = await snapshot();
    const result = await app.execute(document, variables);
    const error = result.errors?.[0];
    expect({ name, field, code: error?.extensions?.code }).toEqual({ name, field, code: 'BAD_USER_INPUT' });
    if (field) expect({ name, field: error?.extensions?.field }).toEqual({ name, field });
    if (message) expect(error?.message).toMatch(message);
    expect(await snapshot()).toEqual(before);
  }

  beforeAll(async () => {
    app = await createTestApp();
    await app.run(CreateSessionDocument, {
      input: { sessionId: 'valid', metadata: { priority: 'low', custom_data: { tier: 'basic' } } },
    });
    await app.run(UpsertAgentDocument, { sessionId: 'valid', input: { agentId: 'agent', agentData: {} } });
    await app.run(AppendMessageDocument, {
      sessionId: 'valid',
      agentId: 'agent',
      input: { role: 'USER', content: 'hi' },
    });
  });
  afterAll(() => app.close());

  it('session ids: at most 255 ASCII characters, not empty; session type at most 50 characters', async () => {
    await rejects(CreateSessionDocument, { input: { sessionId: 'x'.repeat(256) } }, 'input.sessionId');
    await rejects(CreateSessionDocument, { input: { sessionId: 'séance' } }, 'input.sessionId');
    await rejects(CreateSessionDocument, { input: { sessionId: '' } }, 'input.sessionId');
    await rejects(CreateSessionDocument, { input: { sessionType: 't'.repeat(51) } }, 'input.sessionType');
    const longest = 'x'.repeat(255);
    expect((await app.run(CreateSessionDocument, { input: { sessionId: longest } })).createSession.sessionId).toBe(
      longest,
    );
  });

  it('metadata keys never start with $ (at any depth) nor contain a dot; metadata at most 1 MB', async () => {
    await rejects(CreateSessionDocument, { input: { metadata: { $where: 'x' } } }, 'input.metadata.$where');
    await rejects(
      CreateSessionDocument,
      { input: { metadata: { a: { b: [{ $gt: 1 }] } } } },
      'input.metadata.a.b.0.$gt',
    );
    await rejects(CreateSessionDocument, { input: { metadata: { 'a.b': 1 } } }, 'input.metadata.a.b');
    await rejects(
      CreateSessionDocument,
      { input: { metadata: { big: 'x'.repeat(1024 * KB) } } },
      'input.metadata',
      /1 MB/,
    );
    await rejects(UpdateSessionMetadataDocument, { sessionId: 'valid', metadata: { $set: 1 } }, 'metadata');
    await rejects(
      UpdateSessionMetadataDocument,
      { sessionId: 'valid', metadata: { 'custom_data.$tier': 1 } },
      'metadata',
    );
    await rejects(UpdateSessionMetadataDocument, { sessionId: 'valid', metadata: { 'a..b': 1 } }, 'metadata');
    await rejects(
      UpdateSessionMetadataDocument,
      { sessionId: 'valid', metadata: { ok: { $inc: 1 } } },
      'metadata.ok.$inc',
    );
    await rejects(
      UpdateSessionMetadataDocument,
      { sessionId: 'valid', metadata: { a: 1, 'a.b': 2 } },
      'metadata',
      /overlap/,
    );
    await rejects(DeleteSessionMetadataKeysDocument, { sessionId: 'valid', keys: [] }, 'keys');
    await rejects(DeleteSessionMetadataKeysDocument, { sessionId: 'valid', keys: ['$priority'] }, 'keys');
  });

  it('metadata stays within 1 MB in total across updates; replaced values are not counted twice', async () => {
    await app.run(CreateSessionDocument, { input: { sessionId: 'meta-size', metadata: { a: 'x'.repeat(700 * KB) } } });
    await rejects(
      UpdateSessionMetadataDocument,
      { sessionId: 'meta-size', metadata: { b: 'y'.repeat(400 * KB) } },
      'metadata',
      /1 MB/,
    );
    const replaced = await app.run(UpdateSessionMetadataDocument, {
      sessionId: 'meta-size',
      metadata: { a: 'z'.repeat(900 * KB) },
    });
    expect((replaced.updateSessionMetadata.metadata.a as string).length).toBe(900 * KB);
    await rejects(
      UpdateSessionMetadataDocument,
      { sessionId: 'meta-size', metadata: { 'nested.b': 'y'.repeat(200 * KB) } },
      'metadata',
      /1 MB/,
    );
  });

  it('a dot path through a non-object value is rejected', async () => {
    await rejects(UpdateSessionMetadataDocument, { sessionId: 'valid', metadata: { 'priority.level': 2 } }, 'metadata');
  });

  it('roles are user, assistant or system', async () => {
    await rejects(
      AppendMessageDocument,
      { sessionId: 'valid', agentId: 'agent', input: { role: 'ROBOT', content: 'x' } },
      undefined,
    );
    await rejects(
      AppendMessageDocument,
      { sessionId: 'valid', agentId: 'agent', input: { role: 'user', content: 'x' } },
      undefined,
    );
  });

  it('message content: a string or content blocks, at most 100 KB, no $ keys', async () => {
    const append = (input: Record<string, unknown>) => ({
      sessionId: 'valid',
      agentId: 'agent',
      input: { role: 'USER', ...input },
    });
    await rejects(AppendMessageDocument, append({ content: 'x'.repeat(100 * KB + 1) }), 'input.content', /100 KB/);
    await rejects(
      AppendMessageDocument,
      append({ content: [{ type: 'text', text: 'x'.repeat(100 * KB) }] }),
      'input.content',
      /100 KB/,
    );
    await rejects(AppendMessageDocument, append({ content: 42 }), 'input.content');
    await rejects(AppendMessageDocument, append({ content: { text: 'not an array' } }), 'input.content');
    await rejects(AppendMessageDocument, append({ content: ['plain strings are not blocks'] }), 'input.content');
    await rejects(AppendMessageDocument, append({ content: [{ $type: 'text' }] }), 'input.content.0.$type');
    await rejects(
      AppendMessageDocument,
      append({ content: 'x', eventLoopMetrics: { latencyMs: -1 } }),
      'input.eventLoopMetrics.latencyMs',
    );
    await rejects(
      UpdateMessageDocument,
      { sessionId: 'valid', agentId: 'agent', messageId: 1, input: { content: 'x'.repeat(100 * KB + 1) } },
      'input.content',
    );
    // Multi-byte characters count as bytes.
    await rejects(AppendMessageDocument, append({ content: 'é'.repeat(51 * KB) }), 'input.content');
    const largest = {
      sessionId: 'valid',
      agentId: 'agent',
      input: { role: 'USER' as const, content: 'x'.repeat(100 * KB) },
    };
    expect((await app.run(AppendMessageDocument, largest)).appendMessage.messageId).toBe(1);
  });

  it('a batch with one invalid message writes none of them', async () => {
    await rejects(
      AppendMessagesDocument,
      {
        sessionId: 'valid',
        agentId: 'agent',
        inputs: [
          { role: 'USER', content: 'fine' },
          { role: 'USER', content: 7 },
        ],
      },
      'inputs.1.content',
    );
    await rejects(AppendMessagesDocument, { sessionId: 'valid', agentId: 'agent', inputs: [] }, 'inputs');
    await rejects(
      AppendMessagesDocument,
      {
        sessionId: 'valid',
        agentId: 'agent',
        inputs: Array.from({ length: 501 }, () => ({ role: 'USER', content: 'x' })),
      },
      'inputs',
    );
  });

  it('agent ids: no dot, no leading $, not empty', async () => {
    await rejects(
      UpsertAgentDocument,
      { sessionId: 'valid', input: { agentId: 'a.b', agentData: {} } },
      'input.agentId',
    );
    await rejects(
      UpsertAgentDocument,
      { sessionId: 'valid', input: { agentId: '$a', agentData: {} } },
      'input.agentId',
    );
    await rejects(UpsertAgentDocument, { sessionId: 'valid', input: { agentId: '', agentData: {} } }, 'input.agentId');
    await rejects(
      UpsertAgentDocument,
      { sessionId: 'valid', input: { agentId: 'b', agentData: { agent_id: 'c' } } },
      'input.agentData.agent_id',
    );
    await rejects(
      UpsertAgentDocument,
      { sessionId: 'valid', input: { agentId: 'b', agentData: { created_at: 'yesterday' } } },
      'input.agentData.created_at',
    );
    await rejects(
      UpsertAgentDocument,
      { sessionId: 'valid', input: { agentId: 'b', agentData: { state: { $x: 1 } } } },
      'input.agentData.state.$x',
    );
    await rejects(
      AppendMessageDocument,
      { sessionId: 'valid', agentId: 'agent.x', input: { role: 'USER', content: 'x' } },
      'agentId',
    );
  });

  it('feedback comments: at most 10 KB', async () => {
    await rejects(
      AddFeedbackDocument,
      { sessionId: 'valid', input: { rating: 'UP', comment: 'x'.repeat(10 * KB + 1) } },
      'input.comment',
      /10 KB/,
    );
    expect(
      (await app.run(AddFeedbackDocument, { sessionId: 'valid', input: { comment: 'x'.repeat(10 * KB) } })).addFeedback
        .rating,
    ).toBeNull();
  });

  it('a write that would take the session past 16 MB is refused before the write with a clear error', async () => {
    const now = new Date();
    // A session just under the limit, as an SDK could have written it.
    await app.db.collection('sessions').insertOne({
      _id: 'huge',
      session_id: 'huge',
      session_type: 'default',
      created_at: now,
      updated_at: now,
      metadata: {},
      feedbacks: [],
      agents: {
        bulky: {
          agent_data: { agent_id: 'bulky' },
          created_at: now,
          updated_at: now,
          messages: [
            {
              message_id: 1,
              role: 'user',
              content: 'x'.repeat(16 * 1024 * KB - 8 * KB),
              created_at: now,
              updated_at: now,
            },
          ],
        },
      },
    } as any);
    await rejects(
      AppendMessageDocument,
      { sessionId: 'huge', agentId: 'bulky', input: { role: 'USER', content: 'y'.repeat(90 * KB) } },
      'input',
      /16 MB/,
    );
    await rejects(
      AddFeedbackDocument,
      { sessionId: 'huge', input: { comment: 'z'.repeat(10 * KB) } },
      'input',
      /16 MB/,
    );
    await rejects(
      UpsertAgentDocument,
      { sessionId: 'huge', input: { agentId: 'other', agentData: { blob: 'w'.repeat(70 * KB) } } },
      'input.agentData',
      /16 MB/,
    );
    await rejects(
      UpdateSessionMetadataDocument,
      { sessionId: 'huge', metadata: { blob: 'v'.repeat(70 * KB) } },
      'metadata',
      /16 MB/,
    );
    // Small writes still fit.
    expect(
      (
        await app.run(AppendMessageDocument, {
          sessionId: 'huge',
          agentId: 'bulky',
          input: { role: 'USER', content: 'ok' },
        })
      ).appendMessage.messageId,
    ).toBe(2);
  });
});
