import { planPatternId } from '../../../src/modules/plans/plan.type';
import { createTestApp, type TestApp } from '../../support/app';
import {
  type LearnFromTaskInput,
  type RecordTaskInput,
  AgentInsightsDocument,
  HistoryTaskDocument,
  LearnFromTaskDocument,
  PlanPatternDocument,
  RecordTaskDocument,
  SuccessfulPlansDocument,
  ToolPerformanceDocument,
} from '../../support/generated/graphql';

const STEPS = [{ action: 'find_report' }, { action: 'archive_report' }];
const ARCHIVE_PATTERN = planPatternId('archive_report_*', ['find_report', 'archive_report']);

function archiveTask(i: number): RecordTaskInput {
  return {
    taskId: `archive-${i}`,
    originalQuery: `Archive report R-${i}`,
    goal: `Archive report R-${i}`,
    steps: STEPS,
    status: 'PAUSED',
  };
}

function learnInput(taskId: string, overrides: Partial<LearnFromTaskInput> = {}): LearnFromTaskInput {
  return {
    taskId,
    planId: `plan-${taskId}`,
    status: 'COMPLETED',
    metrics: { executionTime: 100, stepsCompleted: 2, retries: 0, userInputsRequired: 0 },
    insights: [],
    ...overrides,
  };
}

describe('learnFromTask', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(() => app.close());

  const pattern = async (id: string) => (await app.run(PlanPatternDocument, { id })).planPattern!;
  const tool = async (toolName: string) => (await app.run(ToolPerformanceDocument, { toolName })).toolPerformance;

  it('100 concurrent learnFromTask calls on one plan pattern give exact totals', async () => {
    await Promise.all(Array.from({ length: 100 }, (_, i) => app.run(RecordTaskDocument, { input: archiveTask(i) })));
    // Runs i ≡ 0 (mod 5) failed at their first step; run i took 10·i ms.
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        app.run(LearnFromTaskDocument, {
          input: learnInput(`archive-${i}`, {
            status: i % 5 === 0 ? 'FAILED' : 'COMPLETED',
            metrics: { executionTime: 10 * i, stepsCompleted: i % 5 === 0 ? 0 : 2, retries: 0, userInputsRequired: 0 },
          }),
        }),
      ),
    );
    expect(
      results.every(
        ({ learnFromTask }) => learnFromTask.patternId === ARCHIVE_PATTERN && learnFromTask.patternsLearned === 1,
      ),
    ).toBe(true);
    expect(await pattern(ARCHIVE_PATTERN)).toMatchObject({
      goalPattern: 'archive_report_*',
      stepSequence: ['find_report', 'archive_report'],
      usageCount: 100,
      successCount: 80,
      failureCount: 20,
      successRate: 0.8,
      avgExecutionTime: 495,
      commonIssues: ['failed at step "find_report"'],
    });
    expect(await tool('find_report')).toMatchObject({ totalExecutions: 100, successCount: 80, failureCount: 20 });
    expect(await tool('archive_report')).toMatchObject({ totalExecutions: 80, successCount: 80, failureCount: 0 });
    const statuses = await app.db
      .collection('tasks')
      .aggregate([{ $match: { goalPattern: 'archive_report_*' } }, { $group: { _id: '$status', n: { $sum: 1 } } }])
      .toArray();
    expect(Object.fromEntries(statuses.map((row) => [row._id, row.n]))).toEqual({ completed: 80, failed: 20 });
  });

  it('is idempotent per taskId: a repeat returns the first answer, concurrent repeats count once', async () => {
    await app.run(RecordTaskDocument, { input: archiveTask(100) });
    const input = learnInput('archive-100', { insights: ['Archive after the lookup'] });
    const attempts = await Promise.all(Array.from({ length: 10 }, () => app.execute(LearnFromTaskDocument, { input })));
    const counted = attempts.filter((attempt) => attempt.data?.learnFromTask?.alreadyLearned === false);
    expect(counted).toHaveLength(1);
    for (const attempt of attempts) {
      if (attempt.errors) expect(attempt.errors[0].extensions?.code).toBe('CONFLICT');
      else expect(attempt.data!.learnFromTask).toMatchObject({ success: true, patternsLearned: 1, insightsStored: 1 });
    }
    const repeat = (await app.run(LearnFromTaskDocument, { input: { ...input, status: 'FAILED' } })).learnFromTask;
    expect(repeat).toEqual({
      success: true,
      patternsLearned: 1,
      insightsStored: 1,
      patternId: ARCHIVE_PATTERN,
      alreadyLearned: true,
    });
    expect(await pattern(ARCHIVE_PATTERN)).toMatchObject({ usageCount: 101, successCount: 81 });
    expect(await tool('find_report')).toMatchObject({ totalExecutions: 101 });
    const { agentInsights } = await app.run(AgentInsightsDocument, { agentType: 'EXECUTOR', insightType: 'PATTERNS' });
    expect(agentInsights.insights).toEqual([
      expect.objectContaining({ insight: 'Archive after the lookup', evidenceCount: 1, confidence: 0.5 }),
    ]);
  });

  it('takes over an interrupted claim and skips the parts it had finished', async () => {
    await app.run(RecordTaskDocument, { input: archiveTask(101) });
    // A call that claimed the task 2 minutes ago, updated the pattern, and died before tool performance.
    await app.db.collection('tasks').updateOne(
      { taskId: 'archive-101' },
      {
        $set: {
          learning: {
            state: 'applying',
            claimId: 'dead',
            claimedAt: new Date(Date.now() - 120_000),
            done: { pattern: true },
          },
        },
      },
    );
    const before = await pattern(ARCHIVE_PATTERN);
    const toolsBefore = (await tool('archive_report')).totalExecutions;
    const result = (await app.run(LearnFromTaskDocument, { input: learnInput('archive-101') })).learnFromTask;
    expect(result).toMatchObject({ success: true, patternsLearned: 1, alreadyLearned: false });
    expect((await pattern(ARCHIVE_PATTERN)).usageCount).toBe(before!.usageCount);
    expect((await tool('archive_report')).totalExecutions).toBe(toolsBefore + 1);
  });

  it('a call taking over after a crash between counting tools and marking them done counts them once', async () => {
    await app.run(RecordTaskDocument, { input: archiveTask(104) });
    const toolsBefore = (await tool('archive_report')).totalExecutions;
    await app.run(LearnFromTaskDocument, { input: learnInput('archive-104') });
    // The state of a call that counted the tools and died before marking them done.
    await app.db.collection('tasks').updateOne(
      { taskId: 'archive-104' },
      {
        $set: {
          learning: {
            state: 'applying',
            claimId: 'dead',
            claimedAt: new Date(Date.now() - 120_000),
            done: { pattern: true },
          },
        },
      },
    );
    await app.run(LearnFromTaskDocument, { input: learnInput('archive-104') });
    expect((await tool('archive_report')).totalExecutions).toBe(toolsBefore + 1);
  });

  it('answers CONFLICT while another call holds a fresh claim, NOT_FOUND for an unrecorded task', async () => {
    await app.run(RecordTaskDocument, { input: archiveTask(102) });
    await app.db
      .collection('tasks')
      .updateOne(
        { taskId: 'archive-102' },
        { $set: { learning: { state: 'applying', claimId: 'busy', claimedAt: new Date() } } },
      );
    const busy = await app.execute(LearnFromTaskDocument, { input: learnInput('archive-102') });
    expect(busy.errors?.[0].extensions).toMatchObject({ code: 'CONFLICT', taskId: 'archive-102' });
    const missing = await app.execute(LearnFromTaskDocument, { input: learnInput('never-recorded') });
    expect(missing.errors?.[0].extensions).toMatchObject({ code: 'NOT_FOUND', taskId: 'never-recorded' });
  });

  it("counts a run for the plan pattern its planId names (a reused plan), using the pattern's steps when the task has none", async () => {
    await app.run(RecordTaskDocument, {
      input: {
        taskId: 'reuse-1',
        originalQuery: 'Please file away report Q3',
        goal: 'File away report Q3',
        status: 'PAUSED',
      },
    });
    const before = await pattern(ARCHIVE_PATTERN);
    const toolBefore = (await tool('find_report')).totalExecutions;
    const result = (
      await app.run(LearnFromTaskDocument, {
        input: learnInput('reuse-1', { planId: ARCHIVE_PATTERN, metrics: { executionTime: 100, stepsCompleted: 2 } }),
      })
    ).learnFromTask;
    expect(result).toMatchObject({ patternsLearned: 1, patternId: ARCHIVE_PATTERN });
    expect((await pattern(ARCHIVE_PATTERN)).usageCount).toBe(before!.usageCount + 1);
    expect((await tool('find_report')).totalExecutions).toBe(toolBefore + 1);
    const { task } = await app.run(HistoryTaskDocument, { id: 'reuse-1' });
    expect(task).toMatchObject({
      planId: ARCHIVE_PATTERN,
      patternId: ARCHIVE_PATTERN,
      status: 'COMPLETED',
      plan: { patternId: ARCHIVE_PATTERN },
    });
  });

  it('learns no pattern from a task without steps, but stores its insights as warnings of its agent', async () => {
    await app.run(RecordTaskDocument, {
      input: {
        taskId: 'no-plan',
        originalQuery: 'What is our refund policy?',
        goal: 'Explain the refund policy',
        status: 'PAUSED',
        agentType: 'THOUGHT',
      },
    });
    const result = (
      await app.run(LearnFromTaskDocument, {
        input: learnInput('no-plan', {
          status: 'FAILED',
          insights: ['The policy document is missing', 'The policy document is missing'],
        }),
      })
    ).learnFromTask;
    expect(result).toEqual({
      success: true,
      patternsLearned: 0,
      insightsStored: 1,
      patternId: null,
      alreadyLearned: false,
    });
    const { agentInsights } = await app.run(AgentInsightsDocument, { agentType: 'THOUGHT', insightType: 'WARNINGS' });
    expect(agentInsights.insights).toEqual([
      expect.objectContaining({
        insight: 'The policy document is missing',
        evidence: [{ taskId: 'no-plan', description: 'failed run: Explain the refund policy' }],
      }),
    ]);
  });

  it('gives a pattern learned from a task stored without vectors (imported) a goal vector of the current embedder', async () => {
    await app.db.collection('tasks').insertOne({
      taskId: 'imported-1',
      originalQuery: 'Export invoices for March',
      goal: 'Export invoices for March',
      planId: null,
      status: 'paused',
      successMetrics: { executionTime: 0, stepsCompleted: 0, retries: 0, userInputsRequired: 0 },
      createdAt: new Date(),
      steps: [{ id: 's1', action: 'export_invoices', order: 1 }],
    });
    const { patternId } = (
      await app.run(LearnFromTaskDocument, {
        input: learnInput('imported-1', { metrics: { executionTime: 10, stepsCompleted: 1 } }),
      })
    ).learnFromTask;
    const stored = await app.db.collection('plan_patterns').findOne({ patternId });
    expect(stored).toMatchObject({
      goalPattern: 'export_invoices_for_*',
      embedding_model: { provider: 'hash', dimensions: 384 },
    });
    expect(stored!.embeddings.goal_embedding).toHaveLength(384);
    const { successfulPlans } = await app.run(SuccessfulPlansDocument, { goal: 'Export invoices for April' });
    expect(successfulPlans.plans.map((plan: any) => plan.planId)).toEqual([patternId]);
  });

  it('countToolExecutions: false leaves tool performance to the live reports', async () => {
    await app.run(RecordTaskDocument, { input: archiveTask(103) });
    const before = (await tool('find_report')).totalExecutions;
    await app.run(LearnFromTaskDocument, { input: learnInput('archive-103', { countToolExecutions: false }) });
    expect((await tool('find_report')).totalExecutions).toBe(before);
  });

  it('rejects negative metrics and blank insights, naming the input', async () => {
    const negative = await app.execute(LearnFromTaskDocument, {
      input: learnInput('archive-1', {
        metrics: { executionTime: -5, stepsCompleted: 1, retries: 0, userInputsRequired: 0 },
      }),
    });
    expect(negative.errors?.[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'input.metrics.executionTime',
    });
    const blank = await app.execute(LearnFromTaskDocument, {
      input: learnInput('archive-1', { insights: ['ok', '  '] }),
    });
    expect(blank.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.insights.1' });
  });
});
