import { dedupeKey, type DedupeIdentity } from '../../../src/modules/experiences/experience.dedupe';
import { createTestApp, type TestApp } from '../../support/app';
import {
  type RecordExperienceInput,
  RecordOccurrenceDocument,
  RecordOccurrencesDocument,
  SearchMemoriesDocument,
  SimilarMemoriesDocument,
  UpdateExperienceDocument,
} from '../../support/generated/graphql';

const COLLECTION = 'eat_agent_experiences';

let app: TestApp;
let agents = 0;

/** An experience of an agent of its own (each test gets one, so tests do not count into each other's memories). */
function memory(overrides: Partial<RecordExperienceInput> = {}): RecordExperienceInput {
  return {
    primaryGoalDescription: 'Find a delayed order',
    subTaskDescription: 'Look the order up by its number',
    initiatingAgentId: `agent-${agents}`,
    finalOutcome: 'SUCCESS',
    ...overrides,
  };
}

async function stored(agent: string) {
  return app.db.collection(COLLECTION).find({ initiating_agent_id: agent }).toArray();
}

async function events(memoryId: string) {
  return app.db.collection('memory_events').find({ memory_id: memoryId }).toArray();
}

beforeAll(async () => {
  // Below the measured default: the hash embedder's cosines are lower than the sentence model's for the same texts.
  app = await createTestApp({ config: { dedupeThreshold: 0.7 } });
});
afterAll(() => app.close());
beforeEach(() => {
  agents++;
});

describe('recordExperience counts an occurrence of the same memory', () => {
  it('a goal and sub-task equal after normalisation count one more occurrence of the stored experience', async () => {
    const first = (await app.run(RecordOccurrenceDocument, { input: memory({ tags: ['orders'] }) })).recordExperience;
    expect(first.occurrences).toBe(1);
    expect(first.lastSeenAt).toEqual(first.timestamp);
    const again = (
      await app.run(RecordOccurrenceDocument, {
        input: memory({
          primaryGoalDescription: '  FIND a delayed\u00a0 order. ',
          subTaskDescription: '“Look the ORDER up by its number!”',
          tags: ['delays', 'orders'],
        }),
      })
    ).recordExperience;
    expect(again.experienceId).toBe(first.experienceId);
    expect(again.occurrences).toBe(2);
    expect(new Date(again.lastSeenAt).getTime()).toBeGreaterThanOrEqual(new Date(first.timestamp).getTime());
    expect(again.timestamp).toEqual(first.timestamp);
    // Tags merged, in order, without repeats; the stored goal is the first one's.
    expect(again.tags).toEqual(['orders', 'delays']);
    expect(again.primaryGoalDescription).toBe('Find a delayed order');
    expect(await stored(`agent-${agents}`)).toHaveLength(1);
  });

  it('records a deduplicated event in the memory history', async () => {
    const first = (await app.run(RecordOccurrenceDocument, { input: memory() })).recordExperience;
    await app.run(RecordOccurrenceDocument, { input: memory() });
    const history = await events(first.experienceId);
    expect(history.map((event) => [event.kind, event.event, event.agent_id])).toEqual([
      ['experience', 'deduplicated', `agent-${agents}`],
    ]);
  });

  it('another outcome, agent or user is another memory: a copy is stored', async () => {
    const first = (await app.run(RecordOccurrenceDocument, { input: memory() })).recordExperience;
    const failed = (await app.run(RecordOccurrenceDocument, { input: memory({ finalOutcome: 'FAILURE' }) }))
      .recordExperience;
    const otherAgent = (
      await app.run(RecordOccurrenceDocument, { input: memory({ initiatingAgentId: `agent-${agents}-b` }) })
    ).recordExperience;
    expect(new Set([first.experienceId, failed.experienceId, otherAgent.experienceId]).size).toBe(3);
    // The stored one is about a user; a recording without one is not the same memory.
    const document = (await stored(`agent-${agents}`)).find((doc) => doc.experience_id === first.experienceId)!;
    await app.db.collection(COLLECTION).updateOne(
      { experience_id: first.experienceId },
      {
        $set: {
          user_id: 'user-1',
          dedupe_key: dedupeKey({ ...(document as unknown as DedupeIdentity), user_id: 'user-1' }),
        },
      },
    );
    const noUser = (await app.run(RecordOccurrenceDocument, { input: memory() })).recordExperience;
    expect(noUser.experienceId).not.toBe(first.experienceId);
    expect(noUser.occurrences).toBe(1);
  });

  it('dedupe: false stores a copy anyway', async () => {
    const first = (await app.run(RecordOccurrenceDocument, { input: memory() })).recordExperience;
    const copy = (await app.run(RecordOccurrenceDocument, { input: memory({ dedupe: false }) })).recordExperience;
    expect(copy.experienceId).not.toBe(first.experienceId);
    expect(copy.occurrences).toBe(1);
    expect(await stored(`agent-${agents}`)).toHaveLength(2);
  });

  it('a goal with the same words but for articles counts; another customer id does not', async () => {
    const first = (
      await app.run(RecordOccurrenceDocument, {
        input: memory({ primaryGoalDescription: 'Restart the stuck payment worker of the billing cluster' }),
      })
    ).recordExperience;
    const near = (
      await app.run(RecordOccurrenceDocument, {
        input: memory({ primaryGoalDescription: 'Restart stuck payment worker of billing cluster' }),
      })
    ).recordExperience;
    expect(near.experienceId).toBe(first.experienceId);
    expect(near.occurrences).toBe(2);
    const other = (
      await app.run(RecordOccurrenceDocument, {
        input: memory({ primaryGoalDescription: 'Restart the stuck email worker of the billing cluster' }),
      })
    ).recordExperience;
    expect(other.experienceId).not.toBe(first.experienceId);
  });

  it('a batch counts a near duplicate of an earlier input', async () => {
    const { recordExperiences } = await app.run(RecordOccurrencesDocument, {
      inputs: [
        memory({ primaryGoalDescription: 'Restart the stuck payment worker of the billing cluster' }),
        memory({ primaryGoalDescription: 'Restart stuck payment worker of billing cluster' }),
        memory({ primaryGoalDescription: 'Restart the stuck email worker of the billing cluster' }),
      ],
    });
    const ids = recordExperiences.map((experience: { experienceId: string }) => experience.experienceId);
    expect(ids[1]).toBe(ids[0]);
    expect(ids[2]).not.toBe(ids[0]);
    expect(recordExperiences[0].occurrences).toBe(2);
    expect(await stored(`agent-${agents}`)).toHaveLength(2);
  });

  it('a superseded or retired experience is not counted into', async () => {
    const first = (await app.run(RecordOccurrenceDocument, { input: memory() })).recordExperience;
    await app.db
      .collection(COLLECTION)
      .updateOne({ experience_id: first.experienceId }, { $set: { valid_until: new Date(Date.now() - 1000) } });
    const after = (await app.run(RecordOccurrenceDocument, { input: memory() })).recordExperience;
    expect(after.experienceId).not.toBe(first.experienceId);
    expect(after.occurrences).toBe(1);
  });

  it('an experience whose goal was updated is another memory', async () => {
    const first = (await app.run(RecordOccurrenceDocument, { input: memory() })).recordExperience;
    await app.run(UpdateExperienceDocument, {
      id: first.experienceId,
      input: { primaryGoalDescription: 'Cancel a delayed order' },
    });
    const again = (await app.run(RecordOccurrenceDocument, { input: memory() })).recordExperience;
    expect(again.experienceId).not.toBe(first.experienceId);
    const cancel = (
      await app.run(RecordOccurrenceDocument, { input: memory({ primaryGoalDescription: 'cancel a delayed order' }) })
    ).recordExperience;
    expect(cancel.experienceId).toBe(first.experienceId);
  });

  it('a batch counts its own duplicates and those of stored experiences', async () => {
    const storedFirst = (await app.run(RecordOccurrenceDocument, { input: memory({ tags: ['a'] }) })).recordExperience;
    const goal = 'Refund the duplicate charge on invoice 4411';
    const { recordExperiences } = await app.run(RecordOccurrencesDocument, {
      inputs: [
        memory({ primaryGoalDescription: goal, tags: ['x'] }),
        memory({ tags: ['b'] }),
        memory({ primaryGoalDescription: `${goal.toUpperCase()}.`, tags: ['y'] }),
        memory({ primaryGoalDescription: goal, dedupe: false }),
        memory(),
      ],
    });
    const ids = recordExperiences.map((experience: { experienceId: string }) => experience.experienceId);
    expect(ids[1]).toBe(storedFirst.experienceId);
    expect(ids[4]).toBe(storedFirst.experienceId);
    expect(ids[2]).toBe(ids[0]);
    expect(ids[3]).not.toBe(ids[0]);
    expect(recordExperiences[0]).toMatchObject({ occurrences: 2, tags: ['x', 'y'] });
    expect(recordExperiences[4]).toMatchObject({ occurrences: 3, tags: ['a', 'b'] });
    expect(await stored(`agent-${agents}`)).toHaveLength(3);
    expect((await events(ids[0])).map((event) => event.event)).toEqual(['deduplicated']);
    expect((await events(storedFirst.experienceId)).map((event) => event.event)).toEqual([
      'deduplicated',
      'deduplicated',
    ]);
  });

  it('a retry of a keyed recording that was counted answers the same experience and counts nothing more', async () => {
    const first = (await app.run(RecordOccurrenceDocument, { input: memory() })).recordExperience;
    const key = `retry-${agents}`;
    const counted = (await app.run(RecordOccurrenceDocument, { input: memory(), idempotencyKey: key }))
      .recordExperience;
    const retried = (await app.run(RecordOccurrenceDocument, { input: memory(), idempotencyKey: key }))
      .recordExperience;
    expect(counted).toMatchObject({ experienceId: first.experienceId, occurrences: 2 });
    expect(retried).toEqual(counted);
    // A keyed batch whose inputs were counted into each other and into a stored experience, retried.
    const batch = [memory(), memory({ primaryGoalDescription: 'Find two delayed orders' }), memory()];
    const once = (await app.run(RecordOccurrencesDocument, { inputs: batch, idempotencyKey: `${key}-batch` }))
      .recordExperiences;
    const twice = (await app.run(RecordOccurrencesDocument, { inputs: batch, idempotencyKey: `${key}-batch` }))
      .recordExperiences;
    expect(twice).toEqual(once);
    expect(once.map((experience: { occurrences: number }) => experience.occurrences)).toEqual([4, 1, 4]);
    const documents = await stored(`agent-${agents}`);
    expect(documents.map((doc) => doc.occurrences ?? 1).sort()).toEqual([1, 4]);
  });

  it('concurrent identical recordings count occurrences of one experience', async () => {
    const results = await Promise.all(
      Array.from({ length: 12 }, () => app.run(RecordOccurrenceDocument, { input: memory() })),
    );
    const ids = new Set(results.map((result) => result.recordExperience.experienceId));
    expect(ids.size).toBe(1);
    const documents = await stored(`agent-${agents}`);
    expect(documents).toHaveLength(1);
    expect(documents[0].occurrences).toBe(12);
  });
});

describe('a search page shows one experience per memory', () => {
  it('searchExperiences collapses stored copies and still fills the page', async () => {
    const goal = 'Reconcile the ledger of warehouse W-7';
    const copies: string[] = [];
    for (let i = 0; i < 4; i++)
      copies.push(
        (await app.run(RecordOccurrenceDocument, { input: memory({ primaryGoalDescription: goal, dedupe: false }) }))
          .recordExperience.experienceId,
      );
    const others: string[] = [];
    for (const place of ['W-8', 'W-9'])
      others.push(
        (
          await app.run(RecordOccurrenceDocument, {
            input: memory({ primaryGoalDescription: `Reconcile the ledger of warehouse ${place}` }),
          })
        ).recordExperience.experienceId,
      );
    for (const mode of ['VECTOR', 'KEYWORD', 'HYBRID'] as const) {
      const { searchExperiences } = await app.run(SearchMemoriesDocument, { query: goal, limit: 3, mode });
      const ids = searchExperiences.map((hit: { experience: { experienceId: string } }) => hit.experience.experienceId);
      expect(ids).toHaveLength(3);
      expect(ids.filter((id: string) => copies.includes(id))).toHaveLength(1);
      expect(ids.filter((id: string) => others.includes(id)).sort()).toEqual([...others].sort());
    }
  });

  it('copies stored before the dedupe key existed collapse too', async () => {
    const goal = 'Audit the cold storage of depot D-4';
    const copies: string[] = [];
    for (let i = 0; i < 3; i++)
      copies.push(
        (await app.run(RecordOccurrenceDocument, { input: memory({ primaryGoalDescription: goal, dedupe: false }) }))
          .recordExperience.experienceId,
      );
    // As an older document: no stored keys, so the search computes the identity from the fields it reads for them.
    await app.db
      .collection('eat_agent_experiences')
      .updateMany({ experience_id: { $in: copies } }, { $unset: { dedupe_key: '', near_key: '' } });
    for (const mode of ['VECTOR', 'KEYWORD', 'HYBRID'] as const) {
      const { searchExperiences } = await app.run(SearchMemoriesDocument, { query: goal, limit: 3, mode });
      const ids = searchExperiences.map((hit: { experience: { experienceId: string } }) => hit.experience.experienceId);
      expect(ids.filter((id: string) => copies.includes(id))).toHaveLength(1);
    }
  });

  it('Experience.similar leaves out the copies of the experience and of each other', async () => {
    const goal = 'Rotate the signing keys of tenant T-3';
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push(
        (await app.run(RecordOccurrenceDocument, { input: memory({ primaryGoalDescription: goal, dedupe: false }) }))
          .recordExperience.experienceId,
      );
    const other = (
      await app.run(RecordOccurrenceDocument, {
        input: memory({ primaryGoalDescription: 'Rotate the signing keys of tenant T-4', dedupe: false }),
      })
    ).recordExperience.experienceId;
    const { experience } = await app.run(SimilarMemoriesDocument, { id: ids[0], limit: 5 });
    const similar = experience!.similar.map(
      (hit: { experience: { experienceId: string } }) => hit.experience.experienceId,
    );
    expect(similar).toContain(other);
    expect(similar.filter((id: string) => ids.includes(id))).toEqual([]);
  });
});
