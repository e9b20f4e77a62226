import { HashEmbeddingProvider } from '../../../src/embeddings/hash.provider';
import { createTestApp, type Operation, type TestApp } from '../../support/app';
import {
  type ReembedCollection,
  HistoryReembedDocument,
  HistoryReembedStatusDocument,
  LearnFromTaskDocument,
  RecordTaskDocument,
  SimilarTasksDocument,
  SuccessfulPlansDocument,
} from '../../support/generated/graphql';

const GOALS = [
  'Create a shipment for facility HAN',
  'List orders in Berlin',
  'Create an invoice for customer C-1001',
  'Get weather in Oslo for 3 days',
];

describe('agent history after an embedder change', () => {
  let source: TestApp;
  let other: TestApp;
  const sameDb = () => ({ db: other.client.db(source.db.databaseName) });
  const run = <TData, TVariables>(document: Operation<TData, TVariables>, variables: NoInfer<TVariables>) =>
    other.run(document, variables, sameDb());
  const reembed = async (collection: ReembedCollection) => {
    await run(HistoryReembedDocument, { collection });
    for (let i = 0; i < 200; i++) {
      const { reembedStatus } = await run(HistoryReembedStatusDocument, { collection });
      if (reembedStatus!.state !== 'RUNNING') return reembedStatus;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('reembed did not finish');
  };

  beforeAll(async () => {
    source = await createTestApp();
    for (const [i, goal] of GOALS.entries()) {
      await source.run(RecordTaskDocument, {
        input: { taskId: `t${i}`, originalQuery: goal, goal, steps: [{ action: `tool_${i}` }], status: 'COMPLETED' },
      });
      await source.run(LearnFromTaskDocument, {
        input: {
          taskId: `t${i}`,
          status: 'COMPLETED',
          metrics: { executionTime: 100, stepsCompleted: 1, retries: 0, userInputsRequired: 0 },
        },
      });
    }
    other = await createTestApp({ embeddings: new HashEmbeddingProvider(256) });
  });
  afterAll(async () => {
    await other.close();
    await source.close();
  });

  it('refuses to compare vectors of another embedder, and works again after reembed(TASKS) and reembed(PLAN_PATTERNS)', async () => {
    const similar = await other.execute(SimilarTasksDocument, { query: 'List orders in Berlin' }, sameDb());
    expect(similar.errors?.[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      reason: 'EMBEDDING_MODEL_MISMATCH',
      collection: 'TASKS',
    });
    const plans = await other.execute(SuccessfulPlansDocument, { goal: 'List orders in Berlin' }, sameDb());
    expect(plans.errors?.[0].extensions).toMatchObject({
      reason: 'EMBEDDING_MODEL_MISMATCH',
      collection: 'PLAN_PATTERNS',
    });

    expect(await reembed('TASKS')).toMatchObject({ state: 'DONE', processed: GOALS.length, total: GOALS.length });
    expect(await reembed('PLAN_PATTERNS')).toMatchObject({
      state: 'DONE',
      processed: GOALS.length,
      total: GOALS.length,
    });
    const task = await source.db.collection('tasks').findOne({ taskId: 't1' });
    expect(task!.embeddings.goal_embedding).toHaveLength(256);
    expect(task!.embeddings.originalQuery_embedding).toHaveLength(256);

    const { similarTasks } = await run(SimilarTasksDocument, { query: 'List orders in Berlin' });
    expect(similarTasks.tasks[0]).toMatchObject({ taskId: 't1' });
    expect(similarTasks.tasks[0].scores.vector).toBeCloseTo(1, 5);
    const { successfulPlans } = await run(SuccessfulPlansDocument, { goal: 'List orders in Hamburg' });
    expect(successfulPlans.plans.map((plan: any) => plan.goal)).toEqual(['List orders in Berlin']);
  });
});
