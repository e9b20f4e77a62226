import { createTestApp, type TestApp } from '../support/app';
import {
  LearnFromTaskDocument,
  RecordTaskDocument,
  SimilarTasksDocument,
  SuccessfulPlansDocument,
} from '../support/generated/graphql';

/**
 * similarTasks and successfulPlans rank with the keyword analysis of searchExperiences (stems, WordNet synonyms).
 * Two tasks, and two plans of the same template `export_*`, differ in one word; the queries name it in another word
 * form or by a synonym. The hash embedder sees words as written, so without the analysis both score alike and the
 * newer one (the report) wins the tie.
 */
describe('similarTasks and successfulPlans: stems and synonyms', () => {
  let app: TestApp;
  const GOALS = { invoice: 'Export a customer invoice', report: 'Export a quarterly report' };

  beforeAll(async () => {
    app = await createTestApp();
    for (const [name, goal] of Object.entries(GOALS)) {
      await app.run(RecordTaskDocument, {
        input: { taskId: name, originalQuery: goal, goal, steps: [{ action: `export_${name}` }], status: 'PAUSED' },
      });
      await app.run(LearnFromTaskDocument, {
        input: {
          taskId: name,
          planId: `plan-${name}`,
          status: 'COMPLETED',
          metrics: { executionTime: 100, stepsCompleted: 1, retries: 0, userInputsRequired: 0 },
          insights: [],
        },
      });
    }
  });
  afterAll(() => app.close());

  const similar = async (query: string) =>
    (await app.run(SimilarTasksDocument, { query, minSimilarity: 0 })).similarTasks.tasks.map((task) => task.taskId);
  const plans = async (goal: string) => (await app.run(SuccessfulPlansDocument, { goal })).successfulPlans.plans;

  it.each([
    ['another word form', 'invoicing export'],
    ['a synonym', 'bill export'],
  ])('similarTasks finds the task asked with %s first', async (_, query) => {
    expect((await similar(query))[0]).toBe('invoice');
  });

  it.each([
    ['another word form', 'Export invoicing'],
    ['a synonym', 'Export a bill'],
  ])('successfulPlans ranks the plan asked with %s first, with its keyword part', async (_, goal) => {
    const [first, second] = await plans(goal);
    expect(first.goal).toBe(GOALS.invoice);
    expect(first.scores.keyword).toBeGreaterThan(second.scores.keyword);
    expect(first.scores.semantic).toBeCloseTo((first.scores.vector + first.scores.keyword) / 2, 12);
  });
});
