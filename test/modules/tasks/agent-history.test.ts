import { rankPlan } from '../../../src/modules/plans/plan.ranking';
import { DEFAULT_RANKING } from '../../../src/search/ranking';
import { SIMILARITY_WEIGHTS } from '../../../src/modules/tasks/task.similarity';
import { createTestApp, type TestApp } from '../../support/app';
import {
  DIRECT_PLAN,
  LOOKUP_PLAN,
  SHORT_CODE_ERROR,
  VALIDATED_PLAN,
  historyFixture,
  recordHistory,
  type FixtureTask,
} from '../../support/fixtures/task-history';
import {
  type LearnFromTaskInput,
  type RecordTaskInput,
  AgentInsightsWithTasksDocument,
  HistoryTaskDocument,
  LearnFromTaskDocument,
  PlanPatternDocument,
  PlannerAgentHistoryDocument,
  RecordTaskDocument,
  SimilarTasksDocument,
  SuccessfulPlansDocument,
  ThoughtAgentHistoryDocument,
  ToolPerformanceDocument,
} from '../../support/generated/graphql';

/** The seed's three example usages, and the rankings, over a recorded history of 52 tasks (hash embedder). */
describe('agent history over 52 recorded tasks', () => {
  let app: TestApp;
  let fixture: FixtureTask[];
  const patternOf = async (plan: string[]) => {
    const task = fixture.find((entry) => entry.input.steps.map((step) => step.action).join() === plan.join())!;
    return (await app.run(HistoryTaskDocument, { id: task.input.taskId })).task!.patternId as string;
  };

  beforeAll(async () => {
    app = await createTestApp();
    fixture = historyFixture();
    expect(fixture.length).toBeGreaterThanOrEqual(50);
    await recordHistory(app, fixture);
  });
  afterAll(() => app.close());

  it('thought agent: similarTasks(query, limit: 5, status: COMPLETED) returns completed shipments that used the facility lookup', async () => {
    const { similarTasks } = await app.run(ThoughtAgentHistoryDocument, {
      query: 'Create a shipment for facility HAN',
    });
    expect(similarTasks.count).toBe(5);
    const [first, second] = similarTasks.tasks;
    const han = fixture.filter((entry) => entry.input.originalQuery === 'Create a shipment for facility HAN');
    // The two tasks with exactly this query (lookup plan, 1 day ago; validated plan, 60 days ago): newer first.
    expect([first.taskId, second.taskId]).toEqual(han.map((entry) => entry.input.taskId));
    for (const task of similarTasks.tasks) {
      expect(task.status).toBe('COMPLETED');
      expect(task.goal).toMatch(/^Create a shipment for facility [A-Z]{3}$/);
      expect(task.similarity).toBeGreaterThanOrEqual(0.7);
      const { vector, keyword, goalPattern } = task.scores;
      expect(task.similarity).toBeCloseTo(
        SIMILARITY_WEIGHTS.vector * vector +
          SIMILARITY_WEIGHTS.keyword * keyword +
          SIMILARITY_WEIGHTS.goalPattern * goalPattern,
        12,
      );
      expect(task.task.steps[0].action).toBe('list_facilities');
      expect(task.successMetrics.executionTime).toBe(task.executionTime);
    }
    const similarities = similarTasks.tasks.map((task: any) => task.similarity);
    expect(similarities).toEqual([...similarities].sort((a, b) => b - a));
  });

  it('planner agent: successfulPlans keeps plans ≥ 0.8 ranked by the documented formula; toolPerformance gives the hand-computed figures', async () => {
    const { successfulPlans, toolPerformance } = await app.run(PlannerAgentHistoryDocument, {
      goal: 'Create shipment for facility',
      toolName: 'create_shipment',
      context: 'facility_management',
    });
    const lookup = await patternOf(LOOKUP_PLAN);
    const validated = await patternOf(VALIDATED_PLAN);
    expect(successfulPlans.plans.map((plan: any) => plan.planId)).toEqual([lookup, validated]);
    const [first, second] = successfulPlans.plans;
    expect(first).toMatchObject({
      goalPattern: 'create_*_for_facility_*',
      steps: [
        { stepId: 'step-1', action: 'list_facilities', order: 1 },
        { stepId: 'step-2', action: 'create_shipment', order: 2 },
      ],
      successRate: 11 / 12,
      avgExecutionTime: (12 * 1000 + 100 * 66) / 12,
      usageCount: 12,
      commonIssues: ['Facility lookup returned two matches', 'failed at step "create_shipment"'],
    });
    expect(second).toMatchObject({ successRate: 1, avgExecutionTime: 2000, usageCount: 3 });
    for (const plan of successfulPlans.plans) {
      expect(plan.scores.goalPattern).toBe(1);
      const expected = rankPlan({
        goalPattern: 1,
        text: { vector: 0, keyword: 0, score: plan.scores.semantic },
        usageCount: plan.usageCount,
        lastUsed: new Date(plan.lastUsed),
        outcome: 1 - DEFAULT_RANKING.outcomeWeight * (1 - plan.successRate),
        now: new Date(),
      });
      expect(plan.scores.outcome).toBeCloseTo(expected.outcome, 12);
      expect(plan.scores.usage).toBeCloseTo(expected.usage, 12);
      expect(plan.scores.recency).toBeCloseTo(expected.recency, 4);
      expect(plan.score).toBeCloseTo(expected.score, 4);
    }

    // The success rate weighs as the ranking says: fully with outcomeWeight 1, not at all with relevance only.
    const weighed = async (ranking: Record<string, unknown>) =>
      (await app.run(SuccessfulPlansDocument, { goal: 'Create shipment for facility', ranking })).successfulPlans.plans;
    const full = await weighed({ outcomeWeight: 1 });
    const none = await weighed({ relevanceOnly: true });
    for (const plan of full) {
      const plain = none.find((other: any) => other.planId === plan.planId)!;
      expect(plan.scores.outcome).toBeCloseTo(plan.successRate, 12);
      expect(plain.scores.outcome).toBe(1);
      expect(plan.score).toBeCloseTo(plain.score * plan.successRate, 4);
    }
    expect(full.find((plan: any) => plan.planId === lookup)!.scores.outcome).toBeCloseTo(11 / 12, 12);
    const refused = await app.execute('query { successfulPlans(goal: "x", ranking: { outcomeWeight: 2 }) { count } }');
    expect(refused.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'ranking.outcomeWeight' });

    expect(toolPerformance).toEqual({
      toolName: 'create_shipment',
      context: 'facility_management',
      // lookup plan: 11 successes, 1 failure at create_shipment; direct plan (live): 3 × 800 ms successes, 3 × 300 ms
      // failures; validated plan: 3 successes.
      totalExecutions: 21,
      successCount: 17,
      failureCount: 4,
      successRate: 17 / 21,
      avgDuration: 550,
      timedExecutions: 6,
      commonErrors: [
        {
          error: SHORT_CODE_ERROR,
          frequency: 3,
          percentage: 75,
          context: 'facility_management',
          lastTaskId: expect.any(String),
        },
        {
          error: 'the task failed at this step',
          frequency: 1,
          percentage: 25,
          context: 'facility_management',
          lastTaskId: expect.any(String),
        },
      ],
      optimalContext: ['facility_management'],
      recommendations: [
        `"${SHORT_CODE_ERROR}" causes 75% of failures in context "facility_management" (3 of 4): guard against it before calling create_shipment.`,
      ],
      lastUpdated: expect.any(String),
    });
  });

  it('learning after completion: learnFromTask stores the run, counts once, and the task links to its plan', async () => {
    const input = {
      taskId: '690b9999999999999999aaaa',
      originalQuery: 'Create a shipment for facility HAN',
      goal: 'Create a shipment for facility HAN',
      steps: [{ action: 'list_facilities' }, { action: 'create_shipment' }],
      status: 'COMPLETED',
      successMetrics: { executionTime: 1200, stepsCompleted: 2, retries: 0, userInputsRequired: 0 },
    } satisfies RecordTaskInput;
    await app.run(RecordTaskDocument, { input });
    const lookup = await patternOf(LOOKUP_PLAN);
    const before = (await app.run(PlanPatternDocument, { id: lookup })).planPattern;
    const tools = async () =>
      (await app.run(ToolPerformanceDocument, { toolName: 'list_facilities' })).toolPerformance.totalExecutions;
    const toolsBefore = await tools();

    const learn = {
      taskId: input.taskId,
      planId: '690c9999999999999999aaaa',
      status: 'COMPLETED',
      metrics: { executionTime: 1200, stepsCompleted: 2, retries: 0, userInputsRequired: 0 },
      insights: [
        'Facility lookup before shipment creation works well',
        'Using ObjectId format for facilityId prevents errors',
      ],
    } satisfies LearnFromTaskInput;
    const first = (await app.run(LearnFromTaskDocument, { input: learn })).learnFromTask;
    expect(first).toEqual({
      success: true,
      patternsLearned: 1,
      insightsStored: 2,
      patternId: lookup,
      alreadyLearned: false,
    });
    const again = (await app.run(LearnFromTaskDocument, { input: learn })).learnFromTask;
    expect(again).toEqual({ ...first, alreadyLearned: true });

    const after = (await app.run(PlanPatternDocument, { id: lookup })).planPattern;
    expect(after).toMatchObject({
      usageCount: before!.usageCount + 1,
      successCount: before!.successCount + 1,
      successRate: (before!.successCount + 1) / (before!.usageCount + 1),
      avgExecutionTime: (before!.avgExecutionTime * before!.usageCount + 1200) / (before!.usageCount + 1),
    });
    expect(await tools()).toBe(toolsBefore + 1);

    const { task } = await app.run(HistoryTaskDocument, { id: input.taskId });
    expect(task).toMatchObject({
      planId: learn.planId,
      patternId: lookup,
      status: 'COMPLETED',
      plan: { patternId: lookup, usageCount: after!.usageCount },
    });
    expect(task!.learnedAt).toEqual(expect.any(String));

    const { agentInsights } = await app.run(AgentInsightsWithTasksDocument, {
      agentType: 'EXECUTOR',
      insightType: 'PATTERNS',
    });
    const stored = agentInsights.insights.filter((insight: any) =>
      insight.evidence.some((piece: any) => piece.taskId === input.taskId),
    );
    expect(stored).toHaveLength(2);
    expect(stored[0].evidence[0].task).toEqual({ taskId: input.taskId, goal: input.goal, status: 'COMPLETED' });
  });

  it('successfulPlans honours minSuccessRate: 0.5 admits the direct plan, 0.95 keeps only the validated one', async () => {
    const direct = await patternOf(DIRECT_PLAN);
    const validated = await patternOf(VALIDATED_PLAN);
    const loose = (
      await app.run(SuccessfulPlansDocument, { goal: 'Create shipment for facility', minSuccessRate: 0.5 })
    ).successfulPlans;
    expect(loose.plans.map((plan: any) => plan.planId)).toContain(direct);
    const directPlan = loose.plans.find((plan: any) => plan.planId === direct);
    expect(directPlan).toMatchObject({
      successRate: 0.5,
      usageCount: 6,
      commonIssues: ['Using shortCode for facilityId fails', 'failed at step "create_shipment"'],
    });
    const scores = loose.plans.map((plan: any) => plan.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    const strict = (
      await app.run(SuccessfulPlansDocument, { goal: 'Create shipment for facility', minSuccessRate: 0.95 })
    ).successfulPlans;
    expect(strict.plans.map((plan: any) => plan.planId)).toEqual([validated]);
    expect(
      (await app.run(SuccessfulPlansDocument, { goal: 'Create shipment for facility', limit: 1 })).successfulPlans
        .count,
    ).toBe(1);
  });

  it('successfulPlans leaves out plans for other goals', async () => {
    const { successfulPlans } = await app.run(SuccessfulPlansDocument, {
      goal: 'List orders in Hamburg',
      minSuccessRate: 0,
    });
    expect(successfulPlans.plans.map((plan: any) => plan.goalPattern)).toEqual(['list_orders_in_*']);
    expect(successfulPlans.plans[0].steps.map((step: any) => step.action)).toEqual(['search_orders']);
  });

  it('similarTasks honours status and minSimilarity', async () => {
    const failed = (
      await app.run(SimilarTasksDocument, {
        query: 'Create a shipment for facility MAD',
        status: 'FAILED',
        minSimilarity: 0,
      })
    ).similarTasks;
    expect(failed.count).toBeGreaterThan(0);
    expect(new Set(failed.tasks.map((task: any) => task.status))).toEqual(new Set(['FAILED']));

    const all = (
      await app.run(SimilarTasksDocument, { goal: 'Create a shipment for facility MAD', minSimilarity: 0, limit: 100 })
    ).similarTasks;
    const strict = (
      await app.run(SimilarTasksDocument, {
        goal: 'Create a shipment for facility MAD',
        minSimilarity: 0.9,
        limit: 100,
      })
    ).similarTasks;
    expect(strict.count).toBeGreaterThan(0);
    expect(strict.count).toBeLessThan(all.count);
    expect(strict.tasks.every((task: any) => task.similarity >= 0.9)).toBe(true);
    expect(strict.tasks.map((task: any) => task.taskId)).toEqual(
      all.tasks.filter((task: any) => task.similarity >= 0.9).map((task: any) => task.taskId),
    );
    expect(strict.tasks.every((task: any) => task.goal === 'Create a shipment for facility MAD')).toBe(true);
  });

  it('similarTasks scores the goal pattern: a goal with other identifiers matches its kind of task fully', async () => {
    const { similarTasks } = await app.run(SimilarTasksDocument, {
      goal: 'Assign driver Chris to route R-99',
      minSimilarity: 0,
      limit: 6,
    });
    expect(similarTasks.tasks.map((task: any) => task.goal)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^Assign driver/)]),
    );
    for (const task of similarTasks.tasks.filter((entry: any) => entry.goal.startsWith('Assign driver')))
      expect(task.scores.goalPattern).toBe(1);
    expect(similarTasks.tasks[0].goal).toMatch(/^Assign driver/);
  });

  it('rejects a call without query and goal, and limits out of range', async () => {
    const none = await app.execute(SimilarTasksDocument, {});
    expect(none.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'query' });
    const limit = await app.execute(SuccessfulPlansDocument, { goal: 'x', limit: 0 });
    expect(limit.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'limit' });
  });
});
