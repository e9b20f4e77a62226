import { EXPERIENCES_COLLECTION } from '../../../src/modules/experiences/experience.document';
import { DEFAULT_RANKING } from '../../../src/search/ranking';
import { createTestApp, type TestApp } from '../../support/app';
import {
  AddExperienceFeedbackDocument,
  RankedSearchExperiencesDocument,
  RankedSimilarExperiencesDocument,
  RecordExperiencesDocument,
  type RankedSearchExperiencesQueryVariables,
  type RecordExperienceInput,
} from '../../support/generated/graphql';

const DAY_MS = 86_400_000;

/** An experience of its own agent (so that no two are deduplicated), SUCCESS and recorded now unless said. */
function experience(id: string, goal: string, extra: Partial<RecordExperienceInput> = {}): RecordExperienceInput {
  return {
    experienceId: id,
    primaryGoalDescription: goal,
    subTaskDescription: `Sub-task of ${id}`,
    initiatingAgentId: `agent-${id}`,
    finalOutcome: 'SUCCESS',
    ...extra,
  };
}

describe('searchExperiences ranking', () => {
  let app: TestApp;
  const search = async (variables: RankedSearchExperiencesQueryVariables) =>
    (await app.run(RankedSearchExperiencesDocument, variables)).searchExperiences;
  const ids = (hits: Array<{ experience: { experienceId: string } }>) => hits.map((hit) => hit.experience.experienceId);
  const relevanceOnly = { relevanceOnly: true };

  beforeAll(async () => {
    app = await createTestApp();
    await app.run(RecordExperiencesDocument, {
      inputs: [
        // Outcome: the failure's goal is the query itself, the success's says a little more.
        experience('outcome-failure', 'Rotate the vault credentials', { finalOutcome: 'FAILURE' }),
        experience('outcome-success', 'Rotate the vault credentials of the service'),
        // Feedback: twins; the first will be rated down three times.
        experience('feedback-down', 'Compact the ledger journal'),
        experience('feedback-twin', 'Compact the ledger journal files'),
        // Recency: the old answer matches the query exactly, the new one says a little more.
        experience('recency-old', 'Renew the harbor certificate', {
          timestamp: new Date(Date.now() - 400 * DAY_MS).toISOString(),
        }),
        experience('recency-new', 'Renew the harbor certificate today', {
          timestamp: new Date(Date.now() - 2 * DAY_MS).toISOString(),
        }),
      ],
    });
    for (let i = 0; i < 3; i++)
      await app.run(AddExperienceFeedbackDocument, {
        id: 'feedback-down',
        signals: { userRating: 0, correctionNeeded: true },
      });
  });
  afterAll(() => app.close());

  it('ranks the SUCCESS above the FAILURE for the same goal; relevance alone puts the closer text first', async () => {
    const query = 'rotate the vault credentials';
    const plain = await search({ query, limit: 2, ranking: relevanceOnly });
    expect(ids(plain)).toEqual(['outcome-failure', 'outcome-success']);
    for (const hit of plain) {
      expect(hit.score).toBe(hit.relevance);
      expect([hit.recency, hit.outcome, hit.feedback, hit.use]).toEqual([1, 1, 1, 1]);
    }
    const ranked = await search({ query, limit: 2, ranking: { outcomeWeight: 0.5 } });
    expect(ids(ranked)).toEqual(['outcome-success', 'outcome-failure']);
    const [success, failure] = ranked;
    expect(success.outcome).toBe(1);
    expect(failure.outcome).toBeCloseTo(0.5, 10);
    const byDefault = await search({ query, limit: 2 });
    const failureByDefault = byDefault.find((hit) => hit.experience.experienceId === 'outcome-failure');
    expect(failureByDefault?.outcome).toBeCloseTo(1 - DEFAULT_RANKING.outcomeWeight, 10);
    for (const hit of ranked) {
      expect(hit.score).toBeCloseTo(hit.relevance * hit.recency * hit.outcome * hit.feedback * hit.use, 10);
      expect(hit.vectorScore).not.toBeNull();
      expect(hit.keywordScore).not.toBeNull();
    }
    // The relevance is the same whatever the ranking.
    expect(failure.relevance).toBe(plain[0].relevance);
    // Outcome weight 0: back to relevance order.
    expect(ids(await search({ query, limit: 2, ranking: { outcomeWeight: 0 } }))).toEqual(ids(plain));
  });

  it('ranks an experience rated 0 with a correction three times below its twin', async () => {
    const query = 'compact the ledger journal';
    expect(ids(await search({ query, limit: 2, ranking: relevanceOnly }))).toEqual(['feedback-down', 'feedback-twin']);
    const ranked = await search({ query, limit: 2, ranking: { feedbackWeight: 0.5 } });
    expect(ids(ranked)).toEqual(['feedback-twin', 'feedback-down']);
    // Three ratings of 0 and three corrections: quality (0 + 2 × 0.5) / (6 + 2) = 0.125; no feedback: 0.5.
    expect(ranked[1].feedback).toBeCloseTo(1 - 0.5 * (1 - 0.125), 10);
    expect(ranked[0].feedback).toBeCloseTo(1 - 0.5 * 0.5, 10);
    expect(ids(await search({ query, limit: 2, ranking: { feedbackWeight: 0 } }))[0]).toBe('feedback-down');
  });

  it('ranks the new answer above the old one; a long half-life leaves relevance to decide', async () => {
    const query = 'renew the harbor certificate';
    expect(ids(await search({ query, limit: 2, ranking: relevanceOnly }))).toEqual(['recency-old', 'recency-new']);
    const ranked = await search({ query, limit: 2, ranking: { recencyWeight: 0.5 } });
    expect(ids(ranked)).toEqual(['recency-new', 'recency-old']);
    const old = ranked[1];
    expect(old.recency).toBeCloseTo(1 - 0.5 * (1 - 0.5 ** (400 / 90)), 3);
    const slow = await search({ query, limit: 2, ranking: { recencyWeight: 0.5, recencyHalfLifeDays: 1_000_000 } });
    expect(ids(slow)).toEqual(['recency-old', 'recency-new']);
    expect(slow[0].recency).toBeGreaterThan(0.999);
  });

  it('counts use: feedback with helpful: true (or a rating of 4 or more) raises the use factor', async () => {
    await app.run(RecordExperiencesDocument, {
      inputs: [experience('use-a', 'Purge the orchard cache'), experience('use-b', 'Purge the orchard cache')],
    });
    await app.run(AddExperienceFeedbackDocument, { id: 'use-b', signals: { helpful: true } });
    await app.run(AddExperienceFeedbackDocument, { id: 'use-b', signals: { userRating: 5 } });
    const hits = await search({
      query: 'purge the orchard cache',
      limit: 2,
      ranking: { feedbackWeight: 0, useWeight: 0.3 },
    });
    expect(ids(hits)).toEqual(['use-b', 'use-a']);
    expect(hits[0].use).toBeCloseTo(1 - 0.3 / 3, 10);
    expect(hits[1].use).toBeCloseTo(0.7, 10);
  });

  it("ranks by signals written after a search: this process's feedback at once, another writer's outcome once followed", async () => {
    await app.run(RecordExperiencesDocument, {
      inputs: [
        experience('cached-a', 'Reindex the archive shards'),
        experience('cached-b', 'Reindex the archive shards now'),
      ],
    });
    const query = 'reindex the archive shards';
    const ranking = { feedbackWeight: 0.5, outcomeWeight: 0.5 };
    // The first search reads (and the index keeps) both candidates' ranking fields.
    expect(ids(await search({ query, limit: 2, ranking }))).toEqual(['cached-a', 'cached-b']);
    for (let i = 0; i < 3; i++)
      await app.run(AddExperienceFeedbackDocument, {
        id: 'cached-a',
        signals: { userRating: 0, correctionNeeded: true },
      });
    expect(ids(await search({ query, limit: 2, ranking }))).toEqual(['cached-b', 'cached-a']);
    // A tool writing MongoDB directly: the search learns of it through the change stream.
    await app.db
      .collection(EXPERIENCES_COLLECTION)
      .updateOne({ experience_id: 'cached-b' }, { $set: { final_outcome: 'FAILURE' } });
    const deadline = Date.now() + 10_000;
    let hits = await search({ query, limit: 2, ranking });
    while (hits[0].experience.experienceId !== 'cached-a' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      hits = await search({ query, limit: 2, ranking });
    }
    expect(ids(hits)).toEqual(['cached-a', 'cached-b']);
    expect(hits[1].outcome).toBeLessThan(1);
  });

  it('refuses a negative half-life, weights outside 0..1, diversity outside 0..1, naming the field', async () => {
    const cases: Array<[RankedSearchExperiencesQueryVariables, string]> = [
      [{ query: 'x', ranking: { recencyHalfLifeDays: -1 } }, 'ranking.recencyHalfLifeDays'],
      [{ query: 'x', ranking: { recencyHalfLifeDays: 0 } }, 'ranking.recencyHalfLifeDays'],
      [{ query: 'x', ranking: { outcomeWeight: 1.5 } }, 'ranking.outcomeWeight'],
      [{ query: 'x', ranking: { feedbackWeight: -0.1 } }, 'ranking.feedbackWeight'],
      [{ query: 'x', ranking: { recencyWeight: 2 } }, 'ranking.recencyWeight'],
      [{ query: 'x', ranking: { useWeight: -1 } }, 'ranking.useWeight'],
      [{ query: 'x', ranking: { relevanceOnly: true, outcomeWeight: 0.5 } }, 'ranking.outcomeWeight'],
      [{ query: 'x', diversity: -0.1 }, 'diversity'],
      [{ query: 'x', diversity: 1.01 }, 'diversity'],
    ];
    for (const [variables, field] of cases) {
      const result = await app.execute(RankedSearchExperiencesDocument, variables);
      expect(result.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field });
    }
    const similar = await app.execute(RankedSimilarExperiencesDocument, {
      id: 'outcome-success',
      ranking: { outcomeWeight: 7 },
    });
    expect(similar.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'ranking.outcomeWeight' });
  });

  it('ranks Experience.similar by the same signals', async () => {
    const similar = async (ranking?: { relevanceOnly?: boolean }) =>
      (await app.run(RankedSimilarExperiencesDocument, { id: 'outcome-success', limit: 3, ranking })).experience!
        .similar;
    const plain = await similar(relevanceOnly);
    expect(plain[0].experience.experienceId).toBe('outcome-failure');
    expect(plain[0].score).toBe(plain[0].relevance);
    const ranked = await similar();
    const failure = ranked.find((hit) => hit.experience.experienceId === 'outcome-failure');
    const outcome = 1 - DEFAULT_RANKING.outcomeWeight;
    expect(failure?.outcome).toBeCloseTo(outcome, 10);
    expect(failure?.score).toBeCloseTo(
      failure!.relevance * failure!.recency * outcome * failure!.feedback * failure!.use,
    );
  });
});

describe('searchExperiences candidate pool and diversity', () => {
  let app: TestApp;
  const search = async (variables: RankedSearchExperiencesQueryVariables) =>
    (await app.run(RankedSearchExperiencesDocument, variables)).searchExperiences;
  const ids = (hits: Array<{ experience: { experienceId: string } }>) => hits.map((hit) => hit.experience.experienceId);

  beforeAll(async () => {
    app = await createTestApp();
    const fillers = Array.from({ length: 60 }, (_, i) =>
      experience(`filler-${String(i).padStart(3, '0')}`, `Walrus tide survey number ${i} for the lighthouse crew`, {
        finalOutcome: 'FAILURE',
      }),
    );
    await app.run(RecordExperiencesDocument, {
      inputs: [
        ...fillers,
        // Ranks below all 60 fillers by relevance on both sides (within the pool of 100 per side).
        experience('pool-success', 'Walrus tide survey archive with many more words that dilute the match entirely'),
        // Words of the query in other forms: found by keyword (stems) only; the hash vectors share no word.
        experience('keyword-only', 'narwhals migrating'),
        // The query's stop words and their pairs only: found by vector only (keyword search skips stop words).
        experience('vector-only', 'it was for the'),
      ],
    });
  });
  afterAll(() => app.close());

  it('keeps a keyword-only and a vector-only hit through fusion', async () => {
    const hits = await search({
      query: 'it was for the narwhal migration',
      limit: 5,
      ranking: { relevanceOnly: true },
    });
    const byId = new Map(hits.map((hit) => [hit.experience.experienceId, hit]));
    const keywordOnly = byId.get('keyword-only');
    const vectorOnly = byId.get('vector-only');
    expect(keywordOnly?.keywordScore).toBeGreaterThan(0);
    expect(keywordOnly!.vectorScore ?? 0).toBeLessThan(0.2);
    expect(vectorOnly?.keywordScore).toBeNull();
    expect(vectorOnly?.vectorScore).toBeGreaterThan(0.3);
  });

  it('ranks the whole pool, not the top of the page: a success below 60 failures comes first', async () => {
    const query = 'walrus tide survey for the lighthouse crew';
    const plain = await search({ query, limit: 3, ranking: { relevanceOnly: true } });
    expect(ids(plain).every((id) => id.startsWith('filler-'))).toBe(true);
    const all = await search({ query, limit: 100, ranking: { relevanceOnly: true } });
    expect(ids(all).indexOf('pool-success')).toBeGreaterThanOrEqual(60);
    const ranked = await search({ query, limit: 3, ranking: { outcomeWeight: 1 } });
    expect(ids(ranked)[0]).toBe('pool-success');
    for (const hit of ranked) if (hit.experience.experienceId.startsWith('filler-')) expect(hit.score).toBe(0);
  });

  it('diversity 0.5 puts different goals on a page that copies of one goal fill otherwise', async () => {
    await app.run(RecordExperiencesDocument, {
      inputs: [
        ...Array.from({ length: 6 }, (_, i) =>
          experience(`copy-${i}`, 'Calibrate the penguin scale', { subTaskDescription: `Calibration step ${i}` }),
        ),
        experience('other-1', 'Calibrate the penguin thermometer'),
        experience('other-2', 'Calibrate the penguin camera'),
        experience('other-3', 'Weigh the penguin colony'),
        experience('other-4', 'Clean the penguin scale'),
      ],
    });
    const goals = (hits: Array<{ experience: { primaryGoalDescription: string } }>) =>
      new Set(hits.map((hit) => hit.experience.primaryGoalDescription)).size;
    const query = 'calibrate the penguin scale';
    const plain = await search({ query, limit: 5 });
    expect(goals(plain)).toBe(1);
    const diverse = await search({ query, limit: 5, diversity: 0.5 });
    expect(goals(diverse)).toBeGreaterThanOrEqual(4);
    expect(diverse[0].experience.primaryGoalDescription).toBe('Calibrate the penguin scale');
    expect(new Set(ids(diverse)).size).toBe(5);
  });
});
