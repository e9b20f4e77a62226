import { createTestApp, type TestApp } from '../../support/app';
import { crashAfterWrite } from '../../support/idempotency';
import {
  AddFeedbackDocument,
  AppendMessageDocument,
  AppendMessagesDocument,
  CreateSessionDocument,
  UpsertAgentDocument,
} from '../../support/generated/graphql';

type StoredSession = { _id: string } & Record<string, any>;

describe('session writes with an idempotencyKey happen once', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(() => app.close());

  async function newAgent(sessionId: string): Promise<void> {
    await app.run(CreateSessionDocument, { input: { sessionId } });
    await app.run(UpsertAgentDocument, { sessionId, input: { agentId: 'a1', agentData: {} } });
  }

  it('createSession with a key and no sessionId: a retry (also after a crash) answers the same session', async () => {
    const input = { sessionType: 'chat' };
    const first = await app.run(CreateSessionDocument, { input, idempotencyKey: 'session-key' });
    const again = await app.run(CreateSessionDocument, { input, idempotencyKey: 'session-key' });
    expect(again.createSession.sessionId).toBe(first.createSession.sessionId);
    await crashAfterWrite(app.db, 'session-key');
    const resumed = await app.run(CreateSessionDocument, { input, idempotencyKey: 'session-key' });
    expect(resumed.createSession.sessionId).toBe(first.createSession.sessionId);
    expect(await app.db.collection<StoredSession>('sessions').countDocuments({ session_type: 'chat' })).toBe(1);
  });

  it('appendMessages with a key: retries, duplicates and a crash-like retry append once, with the same ids', async () => {
    await newAgent('s-append');
    const inputs = [
      { role: 'USER' as const, content: [{ text: 'hi' }] },
      { role: 'ASSISTANT' as const, content: [{ text: 'hello' }] },
    ];
    const call = () =>
      app.run(AppendMessagesDocument, { sessionId: 's-append', agentId: 'a1', inputs, idempotencyKey: 'm1' });
    const answers = await Promise.all([call(), call(), call()]);
    expect(answers[0].appendMessages.map((m) => m.messageId)).toEqual([0, 1]);
    for (const answer of answers) expect(answer).toEqual(answers[0]);
    await crashAfterWrite(app.db, 'm1');
    expect(await call()).toEqual(answers[0]);
    const single = () =>
      app.run(AppendMessageDocument, { sessionId: 's-append', agentId: 'a1', input: inputs[0], idempotencyKey: 'm2' });
    expect((await single()).appendMessage.messageId).toBe(2);
    await crashAfterWrite(app.db, 'm2');
    expect((await single()).appendMessage.messageId).toBe(2);
    const session = await app.db.collection<StoredSession>('sessions').findOne({ _id: 's-append' });
    expect(session!.agents.a1.messages.map((m: { message_id: number }) => m.message_id)).toEqual([0, 1, 2]);
  });

  it('addFeedback with a key adds one feedback however often it is retried', async () => {
    await app.run(CreateSessionDocument, { input: { sessionId: 's-feedback' } });
    const call = () =>
      app.run(AddFeedbackDocument, {
        sessionId: 's-feedback',
        input: { rating: 'UP', comment: 'ok' },
        idempotencyKey: 'f1',
      });
    const first = await call();
    expect(await call()).toEqual(first);
    await crashAfterWrite(app.db, 'f1');
    expect(await call()).toEqual(first);
    const session = await app.db.collection<StoredSession>('sessions').findOne({ _id: 's-feedback' });
    expect(session!.feedbacks).toHaveLength(1);
  });

  it('a crash-like retry answers its own messages, not another append made in the same millisecond', async () => {
    await app.run(CreateSessionDocument, { input: { sessionId: 's-same-ms' } });
    await app.run(UpsertAgentDocument, { sessionId: 's-same-ms', input: { agentId: 'a1', agentData: {} } });
    const inputs = [
      { role: 'USER' as const, content: [{ text: 'mine 1' }] },
      { role: 'USER' as const, content: [{ text: 'mine 2' }] },
    ];
    const variables = { sessionId: 's-same-ms', agentId: 'a1', inputs, idempotencyKey: 'same-ms' };
    const first = await app.run(AppendMessagesDocument, variables);
    await app.run(AppendMessagesDocument, {
      sessionId: 's-same-ms',
      agentId: 'a1',
      inputs: [
        { role: 'ASSISTANT', content: [{ text: 'other 1' }] },
        { role: 'ASSISTANT', content: [{ text: 'other 2' }] },
      ],
    });
    // The other append as if made in the same millisecond: all four messages share one created_at.
    const sessions = app.db.collection<StoredSession>('sessions');
    const stored = (await sessions.findOne({ _id: 's-same-ms' }))!;
    const at = stored.agents.a1.messages[0].created_at;
    await sessions.updateOne({ _id: 's-same-ms' }, { $set: { 'agents.a1.messages.$[].created_at': at } });
    await crashAfterWrite(app.db, 'same-ms');

    const retried = await app.run(AppendMessagesDocument, variables);
    expect(retried).toEqual(first);
    expect(retried.appendMessages.map((m) => m.messageId)).toEqual([0, 1]);
    const after = (await sessions.findOne({ _id: 's-same-ms' }))!;
    expect(after.agents.a1.messages.map((m: { message_id: number }) => m.message_id)).toEqual([0, 1, 2, 3]);
  });

  it('stores the SDK message shape: the key is recorded beside the agents, not in the messages', async () => {
    const stored = (await app.db.collection<StoredSession>('sessions').findOne({ _id: 's-same-ms' }))!;
    expect(Object.keys(stored.agents.a1.messages[0]).sort()).toEqual([
      'created_at',
      'message',
      'message_id',
      'redact_message',
      'updated_at',
    ]);
    expect(stored.applied_writes).toEqual([{ write_id: expect.any(String), agent_id: 'a1', first_message_id: 0 }]);
  });
});
