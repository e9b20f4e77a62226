import { databaseFingerprint } from '../../support/fingerprint';
import { createTestApp, type TestApp } from '../../support/app';
import {
  type RecordExperienceInput,
  type RecordTaskInput,
  LearnFromTaskDocument,
  RecordActionDocument,
  ScopedAgentInsightsDocument,
  ScopedCreateSessionDocument,
  ScopedExperiencesDocument,
  ScopedRecordExperienceDocument,
  ScopedRecordExperiencesDocument,
  ScopedRecordInsightDocument,
  ScopedRecordTaskDocument,
  ScopedSearchExperiencesDocument,
  ScopedSessionDocument,
  ScopedSessionsDocument,
  ScopedSimilarTasksDocument,
  ScopedSuccessfulPlansDocument,
  ScopedTasksDocument,
  ScopedToolPerformanceDocument,
  ScopedUpdateExperienceDocument,
} from '../../support/generated/graphql';

const A = 'user-alice';
const B = 'user-bob';
const STEPS = [{ action: 'find_invoice' }, { action: 'refund_invoice' }];

function experience(id: string, userId: string | null): RecordExperienceInput {
  return {
    experienceId: id,
    primaryGoalDescription: `Refund the duplicate invoice charge ${id}`,
    subTaskDescription: 'Find the invoice and refund the duplicate charge',
    initiatingAgentId: 'billing-agent',
    finalOutcome: 'SUCCESS',
    ...(userId !== null ? { userId } : {}),
  };
}

function task(id: string, userId: string | null): RecordTaskInput {
  return {
    taskId: id,
    originalQuery: `Refund invoice INV-${id}`,
    goal: `Refund invoice INV-${id}`,
    steps: STEPS,
    status: 'PAUSED',
    context: 'billing',
    ...(userId !== null ? { userId } : {}),
  };
}

const sorted = (ids: Array<string | null | undefined>) => [...ids].sort();

describe('scopes: a userId on every memory, and a userId filter on every list and search', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await createTestApp();
    for (const [sessionId, userId] of [
      ['s-a', A],
      ['s-b', B],
      ['s-none', null],
    ] as const) {
      await app.run(ScopedCreateSessionDocument, { input: { sessionId, ...(userId ? { userId } : {}) } });
    }
    await app.run(ScopedRecordExperienceDocument, { input: experience('e-a1', A) });
    await app.run(ScopedRecordExperiencesDocument, {
      inputs: [experience('e-a2', A), experience('e-b1', B), experience('e-none', null)],
    });
    for (const [taskId, userId] of [
      ['t-a1', A],
      ['t-a2', A],
      ['t-b1', B],
      ['t-none', null],
    ] as const) {
      await app.run(ScopedRecordTaskDocument, { input: task(taskId, userId) });
    }
    // One run of each user calls lookup_customer: Alice's succeeds, Bob's fails.
    for (const [taskId, outcome] of [
      ['t-a1', 'SUCCESS'],
      ['t-b1', 'FAILURE'],
    ] as const) {
      await app.run(RecordActionDocument, {
        taskId,
        input: {
          mode: 'FAST',
          thinking: 'who is it',
          toolCalls: [{ name: 'lookup_customer', outcome, result: 'customer 7', executionTimeMs: 40 }],
        },
      });
    }
    // Alice: one completed run and one that failed at its second step; Bob: one completed run; the unscoped one too.
    const learn = (taskId: string, failed: boolean, insights: string[] = []) =>
      app.run(LearnFromTaskDocument, {
        input: {
          taskId,
          status: failed ? 'FAILED' : 'COMPLETED',
          metrics: {
            executionTime: failed ? 300 : 100,
            stepsCompleted: failed ? 1 : 2,
            retries: 0,
            userInputsRequired: 0,
          },
          insights,
        },
      });
    await learn('t-a1', false, ['Check the invoice date first']);
    await learn('t-a2', true);
    await learn('t-b1', false, ['Check the invoice date first']);
    await learn('t-none', false);
    await app.run(ScopedRecordInsightDocument, {
      input: { agentType: 'PLANNER', type: 'PATTERNS', insight: 'Refunds need approval', userId: A },
    });
    await app.run(ScopedRecordInsightDocument, {
      input: { agentType: 'PLANNER', type: 'PATTERNS', insight: 'Refunds need approval', userId: B },
    });
    await app.run(ScopedRecordInsightDocument, {
      input: { agentType: 'PLANNER', type: 'PATTERNS', insight: 'Refunds need approval', agentId: 'planner-eu' },
    });
    await app.run(ScopedRecordInsightDocument, {
      input: { agentType: 'PLANNER', type: 'PATTERNS', insight: 'Refunds need approval' },
    });
  });
  afterAll(() => app.close());

  it('sessions: the filter returns only the user’s, no filter all; userId is stored top level as user_id', async () => {
    const ids = async (userId?: string) =>
      (await app.run(ScopedSessionsDocument, { filter: userId ? { userId } : null, first: 50 })).sessions;
    const alice = await ids(A);
    expect(alice.totalCount).toBe(1);
    expect(alice.edges.map((edge) => edge.node)).toEqual([{ sessionId: 's-a', userId: A }]);
    expect(sorted((await ids()).edges.map((edge) => edge.node.sessionId))).toEqual(['s-a', 's-b', 's-none']);
    expect((await app.run(ScopedSessionDocument, { id: 's-none' })).session).toEqual({
      sessionId: 's-none',
      userId: null,
    });
    const stored = await app.db.collection<any>('sessions').findOne({ _id: 's-b' });
    expect(stored).toMatchObject({ session_id: 's-b', user_id: B });
  });

  it('experiences: the list and every search mode return only the user’s when filtered, all without', async () => {
    const list = async (userId?: string) =>
      (await app.run(ScopedExperiencesDocument, { filter: userId ? { userId } : null, first: 50 })).experiences;
    const alice = await list(A);
    expect(alice.totalCount).toBe(2);
    expect(sorted(alice.edges.map((edge) => edge.node.experienceId))).toEqual(['e-a1', 'e-a2']);
    expect(alice.edges.every((edge) => edge.node.userId === A)).toBe(true);
    expect((await list()).totalCount).toBe(4);
    for (const mode of ['HYBRID', 'VECTOR', 'KEYWORD'] as const) {
      const search = async (userId?: string) =>
        (
          await app.run(ScopedSearchExperiencesDocument, {
            query: 'refund duplicate invoice charge',
            filter: userId ? { userId } : null,
            mode,
            limit: 10,
          })
        ).searchExperiences.map((hit) => hit.experience.experienceId);
      expect(sorted(await search(A))).toEqual(['e-a1', 'e-a2']);
      expect(sorted(await search(B))).toEqual(['e-b1']);
      expect(sorted(await search())).toEqual(['e-a1', 'e-a2', 'e-b1', 'e-none']);
    }
    expect(await app.db.collection('eat_agent_experiences').countDocuments({ user_id: A })).toBe(2);
  });

  it('updateExperience sets and clears the userId, and filtered searches follow at once', async () => {
    const search = async (userId: string) =>
      (
        await app.run(ScopedSearchExperiencesDocument, {
          query: 'refund duplicate invoice',
          filter: { userId },
          mode: 'KEYWORD',
        })
      ).searchExperiences.map((hit) => hit.experience.experienceId);
    expect(await search('user-carol')).toEqual([]);
    const set = await app.run(ScopedUpdateExperienceDocument, { id: 'e-none', input: { userId: 'user-carol' } });
    expect(set.updateExperience.userId).toBe('user-carol');
    expect(await search('user-carol')).toEqual(['e-none']);
    const cleared = await app.run(ScopedUpdateExperienceDocument, { id: 'e-none', input: { userId: null } });
    expect(cleared.updateExperience.userId).toBeNull();
    expect(await search('user-carol')).toEqual([]);
    const stored = await app.db.collection('eat_agent_experiences').findOne({ experience_id: 'e-none' });
    expect(stored).not.toHaveProperty('user_id');
  });

  it('tasks and similarTasks: only the user’s when filtered, all without', async () => {
    const list = async (userId?: string) =>
      (await app.run(ScopedTasksDocument, { filter: userId ? { userId } : null, first: 50 })).tasks;
    expect(sorted((await list(A)).edges.map((edge) => edge.node.taskId))).toEqual(['t-a1', 't-a2']);
    expect((await list()).totalCount).toBe(4);
    const similar = async (userId?: string) =>
      (await app.run(ScopedSimilarTasksDocument, { query: 'Refund invoice INV-7', userId: userId ?? null, limit: 10 }))
        .similarTasks.tasks;
    const alice = await similar(A);
    expect(sorted(alice.map((hit) => hit.taskId))).toEqual(['t-a1', 't-a2']);
    expect(alice.every((hit) => hit.userId === A && hit.task.userId === A)).toBe(true);
    expect(sorted((await similar(B)).map((hit) => hit.taskId))).toEqual(['t-b1']);
    expect(sorted((await similar()).map((hit) => hit.taskId))).toEqual(['t-a1', 't-a2', 't-b1', 't-none']);
  });

  it('successfulPlans(userId): the patterns of the user’s tasks, with the figures of their runs alone', async () => {
    const plans = async (userId: string | null, minSuccessRate = 0) =>
      (await app.run(ScopedSuccessfulPlansDocument, { goal: 'Refund invoice INV-9', userId, minSuccessRate }))
        .successfulPlans.plans;
    const [all] = await plans(null);
    expect(all).toMatchObject({ usageCount: 4, successRate: 0.75 });
    const [alice] = await plans(A);
    expect(alice).toMatchObject({
      planId: all.planId,
      usageCount: 2,
      successRate: 0.5,
      avgExecutionTime: 200,
      commonIssues: ['failed at step "refund_invoice"'],
      // Her latest run's goal, not the pattern's first (another user's) goal.
      goal: 'Refund invoice INV-t-a2',
    });
    const [bob] = await plans(B);
    expect(bob).toMatchObject({ planId: all.planId, usageCount: 1, successRate: 1, commonIssues: [] });
    // minSuccessRate applies to the user's own rate.
    expect(await plans(A, 0.8)).toEqual([]);
    expect(await plans(B, 0.8)).toHaveLength(1);
    expect(await plans('user-nobody')).toEqual([]);
  });

  it('toolPerformance(userId): computed from the user’s runs (action tool calls, learned plan steps)', async () => {
    const figures = async (toolName: string, userId: string | null, context: string | null = null) =>
      (await app.run(ScopedToolPerformanceDocument, { toolName, userId, context })).toolPerformance;
    // Alice's runs: t-a1 ran both steps, t-a2 failed at refund_invoice.
    expect(await figures('refund_invoice', A)).toMatchObject({
      totalExecutions: 2,
      successCount: 1,
      failureCount: 1,
      commonErrors: [{ error: 'the task failed at this step', frequency: 1, context: 'billing', lastTaskId: 't-a2' }],
    });
    expect(await figures('refund_invoice', B)).toMatchObject({ totalExecutions: 1, successCount: 1, commonErrors: [] });
    expect(await figures('refund_invoice', null)).toMatchObject({ totalExecutions: 4, successCount: 3 });
    const lookup = await figures('lookup_customer', A);
    expect(lookup).toMatchObject({
      totalExecutions: 1,
      successCount: 1,
      timedExecutions: 1,
      avgDuration: 40,
      commonErrors: [],
    });
    expect(lookup.lastUpdated).not.toBeNull();
    expect(await figures('lookup_customer', B)).toMatchObject({
      totalExecutions: 1,
      failureCount: 1,
      commonErrors: [{ error: 'failure: customer 7', frequency: 1, lastTaskId: 't-b1' }],
    });
    expect(await figures('lookup_customer', null)).toMatchObject({ totalExecutions: 2 });
    expect(await figures('lookup_customer', A, 'billing')).toMatchObject({ context: 'billing', totalExecutions: 1 });
    expect(await figures('lookup_customer', 'user-nobody')).toMatchObject({ totalExecutions: 0, lastUpdated: null });
  });

  it('agentInsights: userId and agentId filters; the same text of two users is two insights', async () => {
    const insights = async (filter: { userId?: string; agentId?: string }, agentType: 'PLANNER' | 'EXECUTOR') =>
      (await app.run(ScopedAgentInsightsDocument, { agentType, ...filter })).agentInsights.insights;
    const alice = await insights({ userId: A }, 'PLANNER');
    expect(alice.map(({ insight, userId, agentId }) => ({ insight, userId, agentId }))).toEqual([
      { insight: 'Refunds need approval', userId: A, agentId: null },
    ]);
    expect((await insights({ agentId: 'planner-eu' }, 'PLANNER')).map((item) => item.agentId)).toEqual(['planner-eu']);
    const every = await insights({}, 'PLANNER');
    expect(every).toHaveLength(4);
    expect(new Set(every.map((item) => item.id)).size).toBe(4);
    // learnFromTask stores a task's insights in its user's scope.
    const learned = await insights({ userId: A }, 'EXECUTOR');
    expect(learned.map((item) => [item.insight, item.userId])).toEqual([['Check the invoice date first', A]]);
    expect(await insights({}, 'EXECUTOR')).toHaveLength(2);
  });

  it('creates the indexes the user and agent filters use', async () => {
    const keys = async (collection: string) =>
      (await app.db.collection(collection).indexes()).map((index) => JSON.stringify(index.key));
    expect(await keys('sessions')).toContain(JSON.stringify({ user_id: 1, updated_at: -1 }));
    expect(await keys('eat_agent_experiences')).toContain(JSON.stringify({ user_id: 1, timestamp: 1 }));
    expect(await keys('tasks')).toEqual(
      expect.arrayContaining([
        JSON.stringify({ user_id: 1, createdAt: -1 }),
        JSON.stringify({ user_id: 1, patternId: 1 }),
      ]),
    );
    expect(await keys('agent_insights')).toEqual(
      expect.arrayContaining([
        JSON.stringify({ userId: 1, agentType: 1, confidence: -1 }),
        JSON.stringify({ agentId: 1, agentType: 1, confidence: -1 }),
      ]),
    );
  });

  it('a bad userId or agentId is BAD_USER_INPUT naming the field, and nothing is written', async () => {
    const long = 'u'.repeat(201);
    const writes = [
      {
        result: () => app.execute(ScopedCreateSessionDocument, { input: { sessionId: 's-bad', userId: '' } }),
        field: 'input.userId',
      },
      {
        result: () => app.execute(ScopedRecordExperienceDocument, { input: experience('e-bad', long) }),
        field: 'input.userId',
      },
      {
        result: () =>
          app.execute(ScopedRecordExperiencesDocument, {
            inputs: [experience('e-bad1', A), experience('e-bad2', '  ')],
          }),
        field: 'inputs[1].userId',
      },
      {
        result: () => app.execute(ScopedUpdateExperienceDocument, { id: 'e-a1', input: { userId: '' } }),
        field: 'input.userId',
      },
      { result: () => app.execute(ScopedRecordTaskDocument, { input: task('t-bad', long) }), field: 'input.userId' },
      {
        result: () =>
          app.execute(ScopedRecordInsightDocument, {
            input: { agentType: 'PLANNER', type: 'PATTERNS', insight: 'x', userId: '' },
          }),
        field: 'input.userId',
      },
      {
        result: () =>
          app.execute(ScopedRecordInsightDocument, {
            input: { agentType: 'PLANNER', type: 'PATTERNS', insight: 'x', agentId: long },
          }),
        field: 'input.agentId',
      },
    ];
    for (const { result, field } of writes) {
      const before = await databaseFingerprint(app.db);
      const { errors } = await result();
      expect(errors?.map((error) => [error.extensions?.code, error.extensions?.field])).toEqual([
        ['BAD_USER_INPUT', field],
      ]);
      expect(await databaseFingerprint(app.db)).toEqual(before);
    }
    const reads = [
      { result: () => app.execute(ScopedSessionsDocument, { filter: { userId: '' } }), field: 'filter.userId' },
      { result: () => app.execute(ScopedExperiencesDocument, { filter: { userId: long } }), field: 'filter.userId' },
      {
        result: () => app.execute(ScopedSearchExperiencesDocument, { query: 'refund', filter: { userId: '' } }),
        field: 'filter.userId',
      },
      { result: () => app.execute(ScopedTasksDocument, { filter: { userId: '' } }), field: 'filter.userId' },
      { result: () => app.execute(ScopedSimilarTasksDocument, { query: 'refund', userId: '' }), field: 'userId' },
      { result: () => app.execute(ScopedSuccessfulPlansDocument, { goal: 'refund', userId: long }), field: 'userId' },
      { result: () => app.execute(ScopedToolPerformanceDocument, { toolName: 't', userId: '' }), field: 'userId' },
      { result: () => app.execute(ScopedAgentInsightsDocument, { agentType: 'PLANNER', userId: '' }), field: 'userId' },
      {
        result: () => app.execute(ScopedAgentInsightsDocument, { agentType: 'PLANNER', agentId: long }),
        field: 'agentId',
      },
    ];
    for (const { result, field } of reads) {
      const { errors } = await result();
      expect(errors?.map((error) => [error.extensions?.code, error.extensions?.field])).toEqual([
        ['BAD_USER_INPUT', field],
      ]);
    }
  });
});
