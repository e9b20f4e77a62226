import { createTestApp, type TestApp } from '../../support/app';
import { taskInput } from '../../support/fixtures/debug-run';
import {
  type RecordActionInput,
  type ToolCallInput,
  RecordActionDocument,
  RecordRunTaskDocument,
  RunToolPerformanceDocument,
  TaskActionsDocument,
} from '../../support/generated/graphql';

const fast = (thinking: string, extra: Partial<RecordActionInput> = {}): RecordActionInput => ({
  mode: 'FAST',
  thinking,
  ...extra,
});

describe('recordAction', () => {
  let app: TestApp;
  let taskNumber = 0;

  async function newTask(): Promise<string> {
    const taskId = `task-${++taskNumber}`;
    await app.run(RecordRunTaskDocument, { input: taskInput(taskId, 'Find the cause of the nightly backup failure') });
    return taskId;
  }
  const recordAction = (taskId: string, input: RecordActionInput) =>
    app.execute(RecordActionDocument, { taskId, input });
  const iterations = async (taskId: string) =>
    (await app.run(TaskActionsDocument, { id: taskId, limit: 1000 })).task!.actions.map(
      (action: { iteration: number }) => action.iteration,
    );

  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(() => app.close());

  it('50 concurrent recordAction calls on one task get iterations 0..49, nothing lost', async () => {
    const taskId = await newTask();
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, k) => app.run(RecordActionDocument, { taskId, input: fast(`attempt ${k}`) })),
    );
    const given = results.map((result) => result.recordAction.action.iteration).sort((a: number, b: number) => a - b);
    expect(given).toEqual(Array.from({ length: 50 }, (_, i) => i));
    const { task } = await app.run(TaskActionsDocument, { id: taskId, limit: 1000 });
    expect(task!.actions.map((action: { iteration: number }) => action.iteration)).toEqual(given);
    expect(new Set(task!.actions.map((action: { thinking: string }) => action.thinking))).toEqual(
      new Set(Array.from({ length: 50 }, (_, k) => `attempt ${k}`)),
    );
    // Each caller got back the iteration its own action was stored under.
    for (const { recordAction } of results)
      expect(task!.actions[recordAction.action.iteration].thinking).toBe(recordAction.action.thinking);
  });

  it('accepts a supplied iteration only when it is the next one: CONFLICT when taken, BAD_USER_INPUT beyond', async () => {
    const taskId = await newTask();
    expect((await recordAction(taskId, fast('first', { iteration: 0 }))).data?.recordAction.action.iteration).toBe(0);
    const taken = await recordAction(taskId, fast('again', { iteration: 0 }));
    expect(taken.errors?.[0].extensions).toMatchObject({ code: 'CONFLICT', iteration: 0, nextIteration: 1 });
    const gap = await recordAction(taskId, fast('ahead', { iteration: 5 }));
    expect(gap.errors?.[0].extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: 'input.iteration',
      nextIteration: 1,
    });
    expect((await recordAction(taskId, fast('second', { iteration: 1 }))).data?.recordAction.action.iteration).toBe(1);
    expect((await recordAction(taskId, fast('third'))).data?.recordAction.action.iteration).toBe(2);
    expect(await iterations(taskId)).toEqual([0, 1, 2]);
  });

  it('of 10 concurrent calls supplying the same iteration, exactly one is stored and the others get CONFLICT', async () => {
    const taskId = await newTask();
    await recordAction(taskId, fast('first'));
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, k) => recordAction(taskId, fast(`racer ${k}`, { iteration: 1 }))),
    );
    expect(results.filter((result) => !result.errors)).toHaveLength(1);
    expect(results.filter((result) => result.errors?.[0].extensions?.code === 'CONFLICT')).toHaveLength(9);
    expect(await iterations(taskId)).toEqual([0, 1]);
  });

  it('concurrent calls count their tool calls exactly: racers that lose count nothing, a repeated key counts once', async () => {
    const taskId = await newTask();
    const [probe, grep] = [`probe-${taskId}`, `grep-${taskId}`];
    const calls = (k: number): ToolCallInput[] => [
      { name: probe, outcome: 'SUCCESS', executionTimeMs: k },
      { name: grep, outcome: k % 3 === 0 ? 'FAILURE' : 'SUCCESS', executionTimeMs: 10, result: 'no match' },
    ];
    const free = Array.from({ length: 30 }, (_, k) => recordAction(taskId, fast(`free ${k}`, { toolCalls: calls(k) })));
    // Five keys, each sent four times at once: one action and one count per key.
    const keyed = Array.from({ length: 20 }, (_, k) =>
      app.execute(RecordActionDocument, {
        taskId,
        input: fast(`keyed ${k % 5}`, { toolCalls: calls(100 + (k % 5)) }),
        idempotencyKey: `${taskId}-key-${k % 5}`,
      }),
    );
    const results = await Promise.all([...free, ...keyed]);
    expect(results.flatMap((result) => result.errors ?? [])).toEqual([]);
    // Ten racers for one taken iteration: none is stored, none counts.
    const racers = await Promise.all(
      Array.from({ length: 10 }, (_, k) =>
        recordAction(taskId, fast(`racer ${k}`, { iteration: 0, toolCalls: calls(1000) })),
      ),
    );
    expect(racers.map((result) => result.errors?.[0].extensions?.code)).toEqual(Array(10).fill('CONFLICT'));

    expect(await iterations(taskId)).toEqual(Array.from({ length: 35 }, (_, i) => i));
    const counted = [...Array.from({ length: 30 }, (_, k) => k), ...Array.from({ length: 5 }, (_, k) => 100 + k)];
    const figures = async (toolName: string) =>
      (await app.run(RunToolPerformanceDocument, { toolName })).toolPerformance;
    expect(await figures(probe)).toMatchObject({
      totalExecutions: 35,
      successCount: 35,
      failureCount: 0,
      timedExecutions: 35,
      avgDuration: counted.reduce((sum, k) => sum + k, 0) / 35,
    });
    const failures = counted.filter((k) => k % 3 === 0).length;
    expect(await figures(grep)).toMatchObject({
      totalExecutions: 35,
      successCount: 35 - failures,
      failureCount: failures,
      avgDuration: 10,
    });
  });

  it('rejects planning or reflection in FAST mode and keeps them in DEEP mode', async () => {
    const taskId = await newTask();
    for (const field of ['planning', 'reflection'] as const) {
      const result = await recordAction(taskId, fast('think', { [field]: 'a plan' }));
      expect(result.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: `input.${field}` });
    }
    const deep = await app.run(RecordActionDocument, {
      taskId,
      input: { mode: 'DEEP', thinking: 't', planning: 'p', reflection: 'r' },
    });
    expect(deep.recordAction.action).toMatchObject({ iteration: 0, mode: 'DEEP', planning: 'p', reflection: 'r' });
  });

  it('defaults the compression fields to empty (null enums) and the timestamp to now', async () => {
    const taskId = await newTask();
    const before = Date.now();
    const { recordAction: result } = await app.run(RecordActionDocument, {
      taskId,
      input: { mode: 'FAST', toolCalls: [{ name: 'list_backups', outcome: 'SUCCESS' }] },
    });
    expect(result.action).toMatchObject({
      thinking: '',
      synthesis: '',
      progress: null,
      hypothesis: { belief: '', test: '' },
      toolCalls: [
        {
          name: 'list_backups',
          args: {},
          result: '',
          resultTruncated: false,
          executionTimeMs: null,
          insights: '',
          learning: '',
          relevance: null,
        },
      ],
    });
    expect(Date.parse(result.action.timestamp)).toBeGreaterThanOrEqual(before - 5);
    expect(Date.parse(result.action.timestamp)).toBeLessThanOrEqual(Date.now());
    expect(result.task).toEqual({ taskId, goal: 'Find the cause of the nightly backup failure' });
  });

  it('cuts results longer than 1,000 characters and flags them; 1,000 characters are kept whole', async () => {
    const taskId = await newTask();
    const calls: ToolCallInput[] = [
      { name: 'cat', args: { file: 'a' }, outcome: 'SUCCESS', result: 'a'.repeat(1000) },
      { name: 'cat', args: { file: 'b' }, outcome: 'SUCCESS', result: 'b'.repeat(1001) },
      { name: 'cat', args: { file: 'c' }, outcome: 'SUCCESS', result: '😀'.repeat(1200) },
    ];
    const { recordAction: result } = await app.run(RecordActionDocument, {
      taskId,
      input: fast('read', { toolCalls: calls }),
    });
    expect(
      result.action.toolCalls.map((call: { result: string; resultTruncated: boolean }) => [
        Array.from(call.result).length,
        call.resultTruncated,
      ]),
    ).toEqual([
      [1000, false],
      [1000, true],
      [1000, true],
    ]);
  });

  it('rejects invalid tool calls without storing the action or counting the calls', async () => {
    const taskId = await newTask();
    const cases: Array<[ToolCallInput, string]> = [
      [{ name: '  ', outcome: 'SUCCESS' }, 'input.toolCalls.0.name'],
      [
        { name: 'query', args: { filter: { $where: 'sleep(1)' } }, outcome: 'SUCCESS' },
        'input.toolCalls.0.args.filter.$where',
      ],
      [{ name: 'query', outcome: 'SUCCESS', executionTimeMs: -1 }, 'input.toolCalls.0.executionTimeMs'],
    ];
    for (const [call, field] of cases) {
      const result = await recordAction(taskId, fast('try', { toolCalls: [call] }));
      expect(result.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field });
    }
    const tooMany = await recordAction(
      taskId,
      fast('try', { toolCalls: Array.from({ length: 101 }, () => ({ name: 'query', outcome: 'SUCCESS' })) }),
    );
    expect(tooMany.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.toolCalls' });
    expect(await iterations(taskId)).toEqual([]);
    expect((await app.run(RunToolPerformanceDocument, { toolName: 'query' })).toolPerformance.totalExecutions).toBe(0);
  });

  it('is NOT_FOUND for an unknown task, and counts nothing', async () => {
    const result = await recordAction(
      'no-such-task',
      fast('x', { toolCalls: [{ name: 'orphan_tool', outcome: 'FAILURE' }] }),
    );
    expect(result.errors?.[0].extensions).toMatchObject({ code: 'NOT_FOUND', taskId: 'no-such-task' });
    const supplied = await recordAction('no-such-task', fast('x', { iteration: 0 }));
    expect(supplied.errors?.[0].extensions?.code).toBe('NOT_FOUND');
    expect(
      (await app.run(RunToolPerformanceDocument, { toolName: 'orphan_tool' })).toolPerformance.totalExecutions,
    ).toBe(0);
  });

  it("counts calls in the task's own context when it has one (as learnFromTask does)", async () => {
    await app.run(RecordRunTaskDocument, {
      input: { ...taskInput('ctx-task', 'Ship order 42'), context: 'fulfilment' },
    });
    await app.run(RecordActionDocument, {
      taskId: 'ctx-task',
      input: fast('ship', { toolCalls: [{ name: 'ship_order', outcome: 'SUCCESS', executionTimeMs: 40 }] }),
    });
    const { toolPerformance } = await app.run(RunToolPerformanceDocument, {
      toolName: 'ship_order',
      context: 'fulfilment',
    });
    expect(toolPerformance).toMatchObject({ totalExecutions: 1, successCount: 1, avgDuration: 40 });
  });
});
