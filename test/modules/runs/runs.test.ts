import type { CommandSucceededEvent } from 'mongodb';
import { createTestApp, type TestApp } from '../../support/app';
import {
  LOGIN_SOURCE,
  PHASE1_ATTEMPTS,
  PHASE2_ATTEMPTS,
  debugRun,
  expectedAction,
  taskInput,
  type ActionInput,
} from '../../support/fixtures/debug-run';
import {
  type Relevance,
  RecordActionDocument,
  RecordRunTaskDocument,
  RunToolPerformanceDocument,
  TaskActionsDocument,
  TaskAttemptsDocument,
  TaskRunsDocument,
} from '../../support/generated/graphql';

const PHASE1_TASK = 'run-debug-login';
const PHASE2_TASK = 'run-debug-signup';

describe('agent runs: actions, attempts and tool performance', () => {
  let app: TestApp;
  let contextOf: Record<string, string>;
  const returned: Record<string, unknown[]> = {};

  async function record(taskId: string, actions: ActionInput[]) {
    returned[taskId] = [];
    for (const input of actions) {
      const { recordAction } = await app.run(RecordActionDocument, { taskId, input });
      returned[taskId].push(recordAction.action);
    }
  }

  beforeAll(async () => {
    app = await createTestApp();
    contextOf = {};
    for (const [taskId, goal] of [
      [PHASE1_TASK, 'Debug the failing login endpoint'],
      [PHASE2_TASK, 'Repair the broken signup form'],
    ]) {
      const { recordTask } = await app.run(RecordRunTaskDocument, { input: taskInput(taskId, goal) });
      contextOf[taskId] = recordTask.goalPattern;
    }
    await record(PHASE1_TASK, debugRun(false));
    await record(PHASE2_TASK, debugRun(true));
  });
  afterAll(() => app.close());

  it('reads a run of 5 iterations and 12 tool calls back as recorded (results cut to 1,000 characters, flagged)', async () => {
    for (const [taskId, phase2] of [
      [PHASE1_TASK, false],
      [PHASE2_TASK, true],
    ] as const) {
      const inputs = debugRun(phase2);
      const expected = inputs.map(expectedAction);
      expect(expected.flatMap((action) => action.toolCalls)).toHaveLength(12);
      const { task } = await app.run(TaskActionsDocument, { id: taskId });
      expect(task!.actions).toEqual(expected);
      expect(returned[taskId]).toEqual(expected);
    }
    const { task } = await app.run(TaskActionsDocument, { id: PHASE1_TASK, fromIteration: 1, limit: 1 });
    const [loginRead] = task!.actions[0].toolCalls.slice(2);
    expect(loginRead.result).toBe(LOGIN_SOURCE.slice(0, 1000));
    expect(loginRead.resultTruncated).toBe(true);
  });

  it('stores the seed 004 field names and values', async () => {
    const stored = await app.db.collection('tasks').findOne({ taskId: PHASE2_TASK });
    const action = stored!.actions[2];
    expect(Object.keys(action).sort()).toEqual(
      [
        'approach',
        'hypothesis',
        'iteration',
        'mode',
        'planning',
        'progress',
        'reflection',
        'synthesis',
        'thinking',
        'timestamp',
        'tool_calls',
      ].sort(),
    );
    expect(action.timestamp).toEqual(new Date('2024-01-15T10:32:00.000Z'));
    expect(action).toMatchObject({ iteration: 2, mode: 'fast', planning: '', progress: 'advancing' });
    expect(action.tool_calls[1]).toEqual({
      name: 'python',
      args: { code: 'import jwt; print(jwt.__version__)' },
      result: "ModuleNotFoundError: No module named 'jwt'",
      result_truncated: false,
      outcome: 'error',
      execution_time: 150,
      insights: 'the jwt module is not installed',
      learning: 'check imports before logic',
      relevance: 'high',
    });
    expect(action.tool_calls[2].execution_time).toBeNull();
    const phase1 = await app.db.collection('tasks').findOne({ taskId: PHASE1_TASK });
    expect(phase1!.actions[0].tool_calls[0]).toMatchObject({ insights: '', learning: '', relevance: '' });
    expect(phase1!.actions[0]).toMatchObject({ synthesis: '', progress: '', hypothesis: { belief: '', test: '' } });
  });

  it('derives the phase 1 attempts as written by hand', async () => {
    for (const minRelevance of ['HIGH', 'MEDIUM', 'LOW'] as const) {
      const { task } = await app.run(TaskAttemptsDocument, { id: PHASE1_TASK, minRelevance });
      expect(task!.attempts).toEqual(PHASE1_ATTEMPTS);
    }
  });

  it('derives the phase 2 attempts as written by hand, for each minimum relevance (default MEDIUM)', async () => {
    const attempts = async (minRelevance?: Relevance) =>
      (await app.run(TaskAttemptsDocument, { id: PHASE2_TASK, ...(minRelevance ? { minRelevance } : {}) })).task!
        .attempts;
    expect(await attempts('HIGH')).toEqual(PHASE2_ATTEMPTS.HIGH);
    expect(await attempts('MEDIUM')).toEqual(PHASE2_ATTEMPTS.MEDIUM);
    expect(await attempts('LOW')).toEqual(PHASE2_ATTEMPTS.LOW);
    expect(await attempts()).toEqual(PHASE2_ATTEMPTS.MEDIUM);
  });

  it("counts every tool call in tool performance exactly, in the task's goal-pattern context", async () => {
    const performance = async (toolName: string, context: string | null) =>
      (await app.run(RunToolPerformanceDocument, { toolName, context })).toolPerformance;
    const context = contextOf[PHASE1_TASK];
    expect(context).toBe('debug_failing_login_endpoint');

    // By hand from the run: run_tests failed (2400 ms), timed out (30000 ms, empty result), passed (1800 ms).
    expect(await performance('run_tests', context)).toEqual({
      toolName: 'run_tests',
      context,
      totalExecutions: 3,
      successCount: 1,
      failureCount: 2,
      successRate: 1 / 3,
      avgDuration: (2400 + 30000 + 1800) / 3,
      timedExecutions: 3,
      commonErrors: [
        {
          error: 'failure: AssertionError: expected 200, got 500',
          frequency: 1,
          percentage: 50,
          context,
          lastTaskId: PHASE1_TASK,
        },
        { error: 'timeout', frequency: 1, percentage: 50, context, lastTaskId: PHASE1_TASK },
      ],
    });
    expect(await performance('read_file', context)).toEqual({
      toolName: 'read_file',
      context,
      totalExecutions: 4,
      successCount: 3,
      failureCount: 1,
      successRate: 3 / 4,
      avgDuration: (12 + 8 + 10 + 5) / 4,
      timedExecutions: 4,
      commonErrors: [
        {
          error: 'failure: FileNotFoundError: config/logging.yaml',
          frequency: 1,
          percentage: 100,
          context,
          lastTaskId: PHASE1_TASK,
        },
      ],
    });
    expect(await performance('python', context)).toMatchObject({
      totalExecutions: 2,
      successCount: 1,
      failureCount: 1,
      avgDuration: (150 + 20) / 2,
      commonErrors: [
        {
          error: "error: ModuleNotFoundError: No module named 'jwt'",
          frequency: 1,
          percentage: 100,
          context,
          lastTaskId: PHASE1_TASK,
        },
      ],
    });
    // The second search reported no duration: counted, but not in the average.
    expect(await performance('search', context)).toMatchObject({
      totalExecutions: 2,
      successCount: 2,
      failureCount: 0,
      avgDuration: 320,
      timedExecutions: 1,
    });
    expect(await performance('grep', context)).toMatchObject({ totalExecutions: 1, successCount: 1, avgDuration: 45 });

    // Over both runs (the same calls in another context): exactly twice each.
    expect(await performance('run_tests', null)).toMatchObject({
      totalExecutions: 6,
      successCount: 2,
      failureCount: 4,
      avgDuration: (2400 + 30000 + 1800) / 3,
    });
    const totals = await Promise.all(
      ['search', 'read_file', 'grep', 'run_tests', 'python'].map(
        async (tool) => (await performance(tool, null)).totalExecutions,
      ),
    );
    expect(totals.reduce((sum, total) => sum + total, 0)).toBe(24);
  });

  it('reads a page of iterations in the database: the reply carries only the page, and task reads carry no actions', async () => {
    const replies: CommandSucceededEvent[] = [];
    const listener = (event: CommandSucceededEvent) => replies.push(event);
    app.client.on('commandSucceeded', listener);
    try {
      const { task } = await app.run(TaskActionsDocument, { id: PHASE1_TASK, fromIteration: 3, limit: 1 });
      expect(task!.actions.map((action: { iteration: number }) => action.iteration)).toEqual([3]);
    } finally {
      app.client.off('commandSucceeded', listener);
    }
    const firstRow = (commandName: string) =>
      (
        replies.find((event) => event.commandName === commandName)!.reply as {
          cursor: { firstBatch: Array<Record<string, unknown>> };
        }
      ).cursor.firstBatch[0];
    expect(firstRow('find').taskId).toBe(PHASE1_TASK);
    expect(firstRow('find').actions).toBeUndefined();
    expect(firstRow('aggregate').actions).toHaveLength(1);
  });

  it('batches the actions and attempts of a page of tasks into one aggregation each', async () => {
    app.commands.reset();
    const { tasks } = await app.run(TaskRunsDocument, { first: 10 });
    const byId = Object.fromEntries(tasks.edges.map(({ node }) => [node.taskId, node]));
    expect(byId[PHASE1_TASK].actions).toEqual([{ iteration: 0 }, { iteration: 1 }]);
    expect(byId[PHASE1_TASK].attempts).toEqual(PHASE1_ATTEMPTS);
    expect(byId[PHASE2_TASK].attempts).toEqual(PHASE2_ATTEMPTS.MEDIUM);
    // countDocuments (totalCount) is an aggregate too; the run reads are the ones matching a list of taskIds.
    const runReads = app.commands.events.filter(
      (event) => event.commandName === 'aggregate' && event.command.pipeline[0].$match?.taskId?.$in,
    );
    expect(runReads).toHaveLength(2);
    for (const read of runReads) expect(read.command.pipeline[0].$match.taskId.$in).toHaveLength(2);
  });

  it('checks limits of the actions page', async () => {
    for (const variables of [
      { fromIteration: -1, limit: 10 },
      { fromIteration: 0, limit: 0 },
      { fromIteration: 0, limit: 1001 },
    ]) {
      const result = await app.execute(TaskActionsDocument, { id: PHASE1_TASK, ...variables });
      expect(result.errors?.[0].extensions?.code).toBe('BAD_USER_INPUT');
    }
  });
});
