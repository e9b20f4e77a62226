import { createTestApp, type TestApp } from '../../support/app';
import { taskInput } from '../../support/fixtures/debug-run';
import { databaseFingerprint } from '../../support/fingerprint';
import { crashAfterWrite, keyPlan } from '../../support/idempotency';
import {
  type RecordActionInput,
  RecordActionDocument,
  RecordRunTaskDocument,
  RunToolPerformanceDocument,
  TaskActionsDocument,
} from '../../support/generated/graphql';

const input: RecordActionInput = {
  mode: 'FAST',
  thinking: 'list the backups',
  toolCalls: [{ name: 'keyed_list_backups', outcome: 'SUCCESS' }],
};

describe('recordAction with an idempotencyKey appends and counts once', () => {
  let app: TestApp;
  let taskNumber = 0;
  async function newTask(): Promise<string> {
    const taskId = `keyed-task-${++taskNumber}`;
    await app.run(RecordRunTaskDocument, { input: taskInput(taskId, 'Find the cause of the nightly backup failure') });
    return taskId;
  }
  const iterations = async (taskId: string) =>
    (await app.run(TaskActionsDocument, { id: taskId, limit: 100 })).task!.actions.map((a) => a.iteration);
  const toolRuns = async () =>
    (await app.run(RunToolPerformanceDocument, { toolName: 'keyed_list_backups' })).toolPerformance.totalExecutions;

  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(() => app.close());

  it('a retry after success returns the same action and writes nothing; concurrent duplicates append once', async () => {
    const taskId = await newTask();
    const runsBefore = await toolRuns();
    const call = () => app.run(RecordActionDocument, { taskId, input, idempotencyKey: 'act-1' });
    const answers = await Promise.all([call(), call(), call()]);
    for (const answer of answers) expect(answer).toEqual(answers[0]);
    const before = await databaseFingerprint(app.db);
    expect(await call()).toEqual(answers[0]);
    expect(await databaseFingerprint(app.db)).toEqual(before);
    expect(await iterations(taskId)).toEqual([0]);
    expect(await toolRuns()).toBe(runsBefore + 1);
  });

  it('a retry still finds its action after calls without a key appended to the same task', async () => {
    const taskId = await newTask();
    const first = await app.run(RecordActionDocument, { taskId, input, idempotencyKey: 'act-then-free' });
    await app.run(RecordActionDocument, { taskId, input: { ...input, toolCalls: [] } });
    await app.run(RecordActionDocument, { taskId, input: { ...input, toolCalls: [] } });
    const runsBefore = await toolRuns();
    expect(await app.run(RecordActionDocument, { taskId, input, idempotencyKey: 'act-then-free' })).toEqual(first);
    expect(await iterations(taskId)).toEqual([0, 1, 2]);
    expect(await toolRuns()).toBe(runsBefore);
  });

  it('a crash after the append and before the tool counts: the retry counts the calls once, appends nothing', async () => {
    const taskId = await newTask();
    const variables = { taskId, input, idempotencyKey: 'act-crash' };
    const runsBefore = await toolRuns();
    const first = await app.run(RecordActionDocument, variables);
    // The state such a crash leaves: the action appended under the key's write id, its tool call not counted.
    const { writeId } = await keyPlan(app.db, 'act-crash');
    await app.db
      .collection<{ toolName: string; appliedWrites: string[] }>('tool_performance')
      .updateOne(
        { toolName: 'keyed_list_backups' },
        { $inc: { totalExecutions: -1, successCount: -1 }, $pull: { appliedWrites: `recordAction:${writeId}` } },
      );
    await crashAfterWrite(app.db, 'act-crash');
    expect(await app.run(RecordActionDocument, variables)).toEqual(first);
    expect(await iterations(taskId)).toEqual([0]);
    expect(await toolRuns()).toBe(runsBefore + 1);
    await crashAfterWrite(app.db, 'act-crash');
    expect(await app.run(RecordActionDocument, variables)).toEqual(first);
    expect(await toolRuns()).toBe(runsBefore + 1);
  });

  it('the same key with other input is CONFLICT; a rejected call frees its key', async () => {
    const taskId = await newTask();
    await app.run(RecordActionDocument, { taskId, input, idempotencyKey: 'act-conflict' });
    const before = await databaseFingerprint(app.db);
    const other = await app.execute(RecordActionDocument, {
      taskId,
      input: { ...input, thinking: 'something else' },
      idempotencyKey: 'act-conflict',
    });
    expect(other.errors?.[0].extensions).toMatchObject({ code: 'CONFLICT', idempotencyKey: 'act-conflict' });
    const unknown = await app.execute(RecordActionDocument, { taskId: 'no-such-task', input, idempotencyKey: 'a2' });
    expect(unknown.errors?.[0].extensions?.code).toBe('NOT_FOUND');
    expect(await databaseFingerprint(app.db)).toEqual(before);
  });
});
