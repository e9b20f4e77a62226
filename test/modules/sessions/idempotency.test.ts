import { createTestApp, type TestApp } from '../../support/app';
import { crashAfterWrite } from '../../support/idempotency';
import { AppendMessagesDocument, CreateSessionDocument, UpsertAgentDocument } from '../../support/generated/graphql';

type StoredSession = { _id: string } & Record<string, any>;

describe('appendMessages with an idempotencyKey finds exactly its own messages', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(() => app.close());

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
    expect(retried.appendMessages.map((m) => m.messageId)).toEqual([1, 2]);
    const after = (await sessions.findOne({ _id: 's-same-ms' }))!;
    expect(after.agents.a1.messages.map((m: { message_id: number }) => m.message_id)).toEqual([1, 2, 3, 4]);
  });

  it('stores the seed 001 message shape: the key is recorded beside the agents, not in the messages', async () => {
    const stored = (await app.db.collection<StoredSession>('sessions').findOne({ _id: 's-same-ms' }))!;
    expect(Object.keys(stored.agents.a1.messages[0]).sort()).toEqual([
      'content',
      'created_at',
      'message_id',
      'role',
      'updated_at',
    ]);
    expect(stored.applied_writes).toEqual([{ write_id: expect.any(String), agent_id: 'a1', first_message_id: 1 }]);
  });
});
