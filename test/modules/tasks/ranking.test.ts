import { DEFAULT_RANKING } from '../../../src/search/ranking';
import { createTestApp, type TestApp } from '../../support/app';
import {
  RankedSimilarTasksDocument,
  RecordTaskDocument,
  type RankedSimilarTasksQueryVariables,
} from '../../support/generated/graphql';

describe('similarTasks ranking', () => {
  let app: TestApp;
  const similar = async (variables: RankedSimilarTasksQueryVariables) =>
    (await app.run(RankedSimilarTasksDocument, variables)).similarTasks.tasks;

  beforeAll(async () => {
    app = await createTestApp();
    // The same request twice: the failed attempt is the newer, which wins a tie of similarity.
    for (const [taskId, status] of [
      ['done', 'COMPLETED'],
      ['failed', 'FAILED'],
    ] as const)
      await app.run(RecordTaskDocument, {
        input: {
          taskId,
          originalQuery: 'Reconcile the otter ledger',
          goal: 'Reconcile the otter ledger',
          steps: [{ action: 'reconcile' }],
          status,
          successMetrics: { executionTime: 1000, stepsCompleted: 1, retries: 0, userInputsRequired: 0 },
        },
      });
  });
  afterAll(() => app.close());

  it('ranks the completed task above the failed one; relevance only keeps the tie to the newer', async () => {
    const query = 'reconcile the otter ledger';
    const plain = await similar({ query, limit: 2, ranking: { relevanceOnly: true } });
    expect(plain.map((task) => task.taskId)).toEqual(['failed', 'done']);
    for (const task of plain) expect(task.score).toBe(task.similarity);
    const ranked = await similar({ query, limit: 2 });
    expect(ranked.map((task) => task.taskId)).toEqual(['done', 'failed']);
    expect(ranked[1].outcome).toBeCloseTo(1 - DEFAULT_RANKING.outcomeWeight, 10);
    expect(ranked[0].outcome).toBe(1);
    for (const task of ranked) expect(task.score).toBeCloseTo(task.similarity * task.recency * task.outcome, 10);
  });

  it('refuses a weight outside 0..1, naming the field', async () => {
    const result = await app.execute(RankedSimilarTasksDocument, {
      query: 'reconcile',
      ranking: { outcomeWeight: 2 },
    });
    expect(result.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'ranking.outcomeWeight' });
  });
});
