import { EXPERIENCES_COLLECTION } from '../../src/modules/experiences/experience.document';
import { createTestApp, type TestApp } from '../support/app';
import {
  ExperiencesDocument,
  RecordExpiringExperienceDocument,
  RecordExpiringTaskDocument,
  SearchExperiencesDocument,
  SimilarTasksDocument,
  SimilarExperiencesDocument,
  type ExperienceFilter,
  type SearchMode,
} from '../support/generated/graphql';
import { startTtlEngine, type TtlEngine } from '../support/ttl-engine';

const GOAL_SPACE = 'experiences.primary_goal_description';
const MODES: SearchMode[] = ['VECTOR', 'KEYWORD', 'HYBRID'];
/** Unfiltered, and filtered (a filter's id set is cached between searches: it must forget the expired one too). */
const FILTERS: (ExperienceFilter | null)[] = [null, { initiatingAgentId: 'astronomer' }, { tagsAny: ['optics'] }];
const QUERY = 'polish the brass telescope lens';

/** Which experiences each search mode, with each filter, and `similar` of the lasting one find now. */
async function findings(app: TestApp): Promise<Record<string, string[]>> {
  const found: Record<string, string[]> = {};
  for (const mode of MODES) {
    for (const filter of FILTERS) {
      const { searchExperiences } = await app.run(SearchExperiencesDocument, { query: QUERY, mode, filter, limit: 10 });
      found[`${mode} ${JSON.stringify(filter)}`] = searchExperiences.map((hit) => hit.experience.experienceId).sort();
    }
  }
  const { experience } = await app.run(SimilarExperiencesDocument, { id: 'lasting', limit: 10 });
  found.similar = experience!.similar.map((hit) => hit.experience.experienceId).sort();
  const { experiences } = await app.run(ExperiencesDocument, { first: 10 });
  found.list = experiences.edges.map((edge) => edge.node.experienceId).sort();
  return found;
}

describe('an expired experience leaves every search space as a delete does', () => {
  let engine: TtlEngine;
  let app: TestApp;
  beforeAll(async () => {
    engine = await startTtlEngine(100);
    app = await createTestApp({ databaseUri: engine.uri });
  });
  afterAll(async () => {
    await app.close();
    await engine.close();
  });

  it('an experience recorded with ttlSeconds: 1 is found until the TTL pass deletes it, then by no search', async () => {
    const record = (experienceId: string, goal: string, expiry: { ttlSeconds?: number }) =>
      app.run(RecordExpiringExperienceDocument, {
        input: {
          experienceId,
          primaryGoalDescription: goal,
          subTaskDescription: 'Polish the brass with a soft cloth',
          initiatingAgentId: 'astronomer',
          finalOutcome: 'SUCCESS',
          tags: ['optics'],
          ...expiry,
        },
      });
    await record('lasting', 'Polish the brass telescope tripod', {});
    await record('fleeting', 'Polish the brass telescope lens', { ttlSeconds: 1 });
    const index = app.deps.search.forDb(app.db);
    const size = index.stats(GOAL_SPACE).documents;

    // Found by every mode and filter while it lives (this also builds the filters' cached id sets).
    const before = await findings(app);
    for (const [search, ids] of Object.entries(before)) {
      const expected = search === 'similar' ? ['fleeting'] : ['fleeting', 'lasting'];
      expect({ search, ids }).toEqual({ search, ids: expected });
    }

    // The engine's TTL pass deletes it (a delete event of the change stream the spaces follow).
    const deadline = Date.now() + 10_000;
    while (await app.db.collection(EXPERIENCES_COLLECTION).countDocuments({ experience_id: 'fleeting' })) {
      if (Date.now() > deadline) throw new Error('the TTL pass did not delete the experience within 10 s');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    let after = await findings(app);
    const gone = () => Object.values(after).every((ids) => !ids.includes('fleeting'));
    while (!gone() && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      after = await findings(app);
    }
    for (const [search, ids] of Object.entries(after)) {
      expect({ search, ids }).toEqual({ search, ids: search === 'similar' ? [] : ['lasting'] });
    }
    expect(index.stats(GOAL_SPACE).documents).toBe(size - 1);
  });

  it('a task recorded with ttlSeconds: 3 leaves similarTasks once the TTL pass deletes it', async () => {
    const record = (taskId: string, ttlSeconds?: number) =>
      app.run(RecordExpiringTaskDocument, {
        input: {
          taskId,
          originalQuery: 'calibrate the observatory dome motor',
          goal: 'calibrate the dome motor',
          status: 'COMPLETED',
          ttlSeconds,
        },
      });
    await record('task-lasting');
    // Long enough to be found first on a loaded machine, short enough for the TTL pass to come soon after.
    await record('task-fleeting', 3);
    const similar = async () =>
      (
        await app.run(SimilarTasksDocument, {
          query: 'calibrate the observatory dome motor',
          minSimilarity: 0,
          limit: 10,
        })
      ).similarTasks.tasks
        .map((task) => task.taskId)
        .sort();
    expect(await similar()).toEqual(['task-fleeting', 'task-lasting']);
    const deadline = Date.now() + 10_000;
    while ((await similar()).includes('task-fleeting')) {
      if (Date.now() > deadline) throw new Error('the expired task was still found after 10 s');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await similar()).toEqual(['task-lasting']);
  });
});
