/**
 * Counters another driver stored as int64 (pymongo writes every Python int above 2^31, and some drivers every int, as
 * one): Hindsight's own updates of tools and task runs go on counting on them.
 */
import { Long } from 'mongodb';
import { createTestApp, type TestApp } from '../support/app';
import { taskInput } from '../support/fixtures/debug-run';
import { RecordActionDocument, RecordTaskDocument, RecordToolExecutionDocument } from '../support/generated/graphql';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(() => app.close());

/**
 * Rewrites each document of `collection` matching `filter` with every integer in it stored as an int64, as another
 * driver would have written it; returns how many integers it widened.
 */
async function widenStored(collection: string, filter: Record<string, unknown>): Promise<number> {
  let count = 0;
  const widened = (value: unknown): unknown => {
    if (typeof value === 'number' && Number.isInteger(value)) {
      count += 1;
      return Long.fromNumber(value);
    }
    if (Array.isArray(value)) return value.map(widened);
    if (value && Object.getPrototypeOf(value) === Object.prototype) {
      return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, widened(field)]));
    }
    return value;
  };
  const documents = await app.db.collection<any>(collection).find(filter).toArray();
  for (const { _id, ...rest } of documents) {
    await app.db.collection<any>(collection).replaceOne({ _id }, widened(rest) as Record<string, unknown>);
  }
  return count;
}

describe('int64 counters', () => {
  it('recordToolExecution counts on a tool whose counters are int64', async () => {
    const input = { toolName: 'wide_tool', success: true, durationMs: 5, context: 'ctx' };
    await app.run(RecordToolExecutionDocument, { input });
    expect(await widenStored('tool_performance', { toolName: 'wide_tool' })).toBeGreaterThan(2);
    const { recordToolExecution } = await app.run(RecordToolExecutionDocument, {
      input: { ...input, success: false, error: 'timeout' },
    });
    expect(recordToolExecution).toMatchObject({ totalExecutions: 2, successCount: 1, failureCount: 1 });
    expect(recordToolExecution.successRate).toBeCloseTo(0.5);
  });

  it('recordAction numbers the next action after int64 iterations and streaks', async () => {
    const record = (approach: string) =>
      app.run(RecordActionDocument, {
        taskId: 'wide-task',
        input: { mode: 'FAST', approach, toolCalls: [{ name: 'ls', outcome: 'SUCCESS' }] },
      });
    await app.run(RecordTaskDocument, { input: taskInput('wide-task', 'List the files') });
    await record('first');
    await record('second');
    expect(await widenStored('tasks', { taskId: 'wide-task' })).toBeGreaterThan(1);
    const { recordAction } = await record('third');
    expect(recordAction.action.iteration).toBe(2);
  });
});
