import type { Db } from 'mongodb';
import { createTestApp, type TestApp } from '../../support/app';
import {
  AddExperienceFeedbackDocument,
  AppendMessageDocument,
  CreateSessionDocument,
  DeleteSessionMetadataKeysDocument,
  RecordExperienceDocument,
  UpdateExperienceDocument,
  UpdateMessageDocument,
  UpdateSessionMetadataDocument,
  UpsertAgentDocument,
} from '../../support/generated/graphql';

/** A document with its modification times left out: what a repeated update must leave as the first left it. */
function withoutModificationTimes(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutModificationTimes);
  if (value !== null && typeof value === 'object' && !(value instanceof Date) && value.constructor === Object) {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => !/^(updated_?at|last_?updated)$/i.test(key))
        .map(([key, entry]) => [key, withoutModificationTimes(entry)]),
    );
  }
  return value;
}

async function stored(db: Db, collection: string, filter: Record<string, unknown>): Promise<unknown> {
  return withoutModificationTimes(await db.collection(collection).findOne(filter));
}

describe('updates that are retry-safe by nature: the same call twice leaves the state the first left', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
    await app.run(CreateSessionDocument, { input: { sessionId: 'repeat-s', metadata: { a: 1, b: 2 } } });
    await app.run(UpsertAgentDocument, { sessionId: 'repeat-s', input: { agentId: 'a1', agentData: { x: 1 } } });
    await app.run(AppendMessageDocument, {
      sessionId: 'repeat-s',
      agentId: 'a1',
      input: { role: 'USER', content: [{ text: 'hi' }] },
    });
  });
  afterAll(() => app.close());

  /** Runs `call` once, then again, and expects the second to change nothing but modification times. */
  async function expectRepeatable(collection: string, filter: Record<string, unknown>, call: () => Promise<unknown>) {
    await call();
    const once = await stored(app.db, collection, filter);
    await call();
    expect(await stored(app.db, collection, filter)).toEqual(once);
  }

  const session = { _id: 'repeat-s' };

  it('upsertAgent', () =>
    expectRepeatable('sessions', session, () =>
      app.run(UpsertAgentDocument, { sessionId: 'repeat-s', input: { agentId: 'a1', agentData: { x: 2 } } }),
    ));

  it('updateMessage', () =>
    expectRepeatable('sessions', session, () =>
      app.run(UpdateMessageDocument, {
        sessionId: 'repeat-s',
        agentId: 'a1',
        messageId: 0, // a new agent's first (the SDK's numbering)
        input: { content: [{ text: '[redacted]' }] },
      }),
    ));

  it('updateSessionMetadata', () =>
    expectRepeatable('sessions', session, () =>
      app.run(UpdateSessionMetadataDocument, { sessionId: 'repeat-s', metadata: { b: 3, c: { d: 4 } } }),
    ));

  it('deleteSessionMetadataKeys', () =>
    expectRepeatable('sessions', session, () =>
      app.run(DeleteSessionMetadataKeysDocument, { sessionId: 'repeat-s', keys: ['a'] }),
    ));

  describe('experiences', () => {
    let id: string;
    beforeAll(async () => {
      const { recordExperience } = await app.run(RecordExperienceDocument, {
        input: {
          primaryGoalDescription: 'Book a flight from London to New York.',
          subTaskDescription: 'Search British Airways flights.',
          initiatingAgentId: 'agent_booking',
          finalOutcome: 'SUCCESS',
        },
      });
      id = recordExperience.experienceId;
    });
    const experience = () => ({ experience_id: id });

    it('updateExperience', () =>
      expectRepeatable('eat_agent_experiences', experience(), () =>
        app.run(UpdateExperienceDocument, { id, input: { outputSummary: 'Booked BA117.', tags: ['flights'] } }),
      ));

    // Feedback is counted for the ranking, so a retry is counted once only through its idempotencyKey.
    it('addExperienceFeedback with an idempotencyKey', () =>
      expectRepeatable('eat_agent_experiences', experience(), () =>
        app.run(AddExperienceFeedbackDocument, {
          id,
          signals: { userRating: 4, comment: 'fine' },
          idempotencyKey: 'feedback-once',
        }),
      ));

    it('addExperienceFeedback without a key counts each call', async () => {
      const stats = async () =>
        ((await app.db.collection('eat_agent_experiences').findOne(experience())) as { feedback_stats?: unknown })
          ?.feedback_stats as { given: number } | undefined;
      const before = (await stats())?.given ?? 0;
      await app.run(AddExperienceFeedbackDocument, { id, signals: { userRating: 4 } });
      await app.run(AddExperienceFeedbackDocument, { id, signals: { userRating: 4 } });
      expect((await stats())?.given).toBe(before + 2);
    });
  });
});
