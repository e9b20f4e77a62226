import { createTestApp, type TestApp } from '../support/app';
import { SessionRepository } from '../../src/modules/sessions/session.repository';

const NOW = new Date('2025-01-01T00:00:00Z');

describe('a stored list item that is not what it should be', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(() => app.close());

  describe('attempts: a damaged tool call fails only attempts, naming it, and the other calls are served', () => {
    const good = { name: 'search', args: { q: 'oslo' }, outcome: 'failure', relevance: '' };
    // Each case: the stored calls of iteration 1, the field reported, and how many good calls are served in all.
    it.each<[string, unknown, string, number]>([
      ['a number', [good, 5], 'actions.1.tool_calls', 2],
      ['a text', ['x'], 'actions.1.tool_calls', 1],
      ['null', [null], 'actions.1.tool_calls', 1],
      ['a list', [[good]], 'actions.1.tool_calls', 1],
      ['calls that are no list', 'x', 'actions.1.tool_calls', 1],
      ['a call without a name', [good, { args: {}, outcome: 'success' }], 'actions.1.tool_calls.1.name', 2],
      [
        'a call with an unknown outcome',
        [{ name: 'fetch', args: {}, outcome: 7 }],
        'actions.1.tool_calls.0.outcome',
        1,
      ],
    ])('%s', async (_, calls, storedField, served) => {
      await app.db.collection('tasks').deleteMany({});
      await app.db.collection('tasks').insertOne({
        taskId: 't',
        goal: 'g',
        originalQuery: 'q',
        status: 'paused',
        createdAt: NOW,
        actions: [
          { iteration: 0, timestamp: NOW, mode: 'fast', tool_calls: [good] },
          { iteration: 1, timestamp: NOW, mode: 'fast', tool_calls: calls },
        ],
      });
      const result = await app.execute('{ task(id: "t") { taskId attempts } }');
      const attempts = Array(served).fill("search(q='oslo') → failure");
      expect(result.data).toEqual({ task: { taskId: 't', attempts } });
      expect(
        result.errors?.map((error) => [error.path, error.extensions?.code, error.extensions?.storedField]),
      ).toEqual([[['task', 'attempts'], 'STORED_VALUE_INVALID', storedField]]);
    });
  });

  describe("appendMessage after a last stored message that is not one: appended after the agent's messages", () => {
    const session = (messages: unknown[]) => ({
      _id: 's' as never,
      session_id: 's',
      created_at: NOW,
      updated_at: NOW,
      metadata: {},
      feedbacks: [],
      agents: { a: { agent_data: {}, created_at: NOW, updated_at: NOW, messages } },
    });
    const flat = { message_id: 3, role: 'user', content: 'flat', created_at: NOW };
    const sdk = { message: { role: 'user', content: [{ text: 'sdk' }] }, message_id: 3, redact_message: null };
    it.each<[string, unknown]>([
      ['a number', 5],
      ['a text', 'x'],
      ['null', null],
      ['a list holding a message', [{ message_id: 7, role: 'user', content: 'x' }]],
      ['an empty list', []],
    ])('%s: the next id, in the shape of the last message', async (_, last) => {
      for (const [shape, stored] of [
        ['flat', flat],
        ['sdk', sdk],
      ] as const) {
        await app.db.collection('sessions').deleteMany({});
        await app.db.collection('sessions').insertOne(session([stored, last]));
        const result = await app.execute(
          'mutation { appendMessage(sessionId: "s", agentId: "a", input: { role: USER, content: "hi" }) { messageId role } }',
        );
        expect(result).toEqual({ data: { appendMessage: { messageId: 4, role: 'USER' } } });
        const after = await app.db.collection('sessions').findOne({});
        const messages = after!.agents.a.messages;
        expect(messages.slice(0, 2)).toEqual([stored, last]);
        expect(messages[2]).toMatchObject(
          shape === 'flat'
            ? { message_id: 4, role: 'user', content: 'hi' }
            : { message_id: 4, message: { role: 'user', content: [{ text: 'hi' }] } },
        );
      }
    });

    it('an agent whose messages are none of them documents starts at id 0 in the SDK shape', async () => {
      await app.db.collection('sessions').deleteMany({});
      await app.db.collection('sessions').insertOne(session([5, 'x']));
      const result = await app.execute(
        'mutation { appendMessage(sessionId: "s", agentId: "a", input: { role: USER, content: "hi" }) { messageId } }',
      );
      expect(result).toEqual({ data: { appendMessage: { messageId: 0 } } });
      expect((await app.db.collection('sessions').findOne({}))!.agents.a.messages[2]).toMatchObject({
        message_id: 0,
        message: { role: 'user' },
      });
    });

    it("the last message id (where a subscription starts) counts only the messages' numeric ids", async () => {
      await app.db.collection('sessions').deleteMany({});
      await app.db.collection('sessions').insertOne(session([flat, 5, null, { role: 'user' }, { message_id: 'x' }]));
      expect(await new SessionRepository(app.db).lastMessageId('s', 'a')).toBe(3);
    });

    it('ids out of order: the next id is one past the highest, not past the last', async () => {
      await app.db.collection('sessions').deleteMany({});
      await app.db.collection('sessions').insertOne(session([{ ...flat, message_id: 9 }, flat]));
      const result = await app.execute(
        'mutation { appendMessage(sessionId: "s", agentId: "a", input: { role: USER, content: "hi" }) { messageId } }',
      );
      expect(result).toEqual({ data: { appendMessage: { messageId: 10 } } });
    });

    it('a message id that is no number is not counted', async () => {
      await app.db.collection('sessions').deleteMany({});
      await app.db.collection('sessions').insertOne(session([flat, { ...flat, message_id: 'x' }]));
      const result = await app.execute(
        'mutation { appendMessage(sessionId: "s", agentId: "a", input: { role: USER, content: "hi" }) { messageId } }',
      );
      expect(result).toEqual({ data: { appendMessage: { messageId: 4 } } });
    });
  });
});
