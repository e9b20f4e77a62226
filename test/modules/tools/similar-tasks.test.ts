import { createTestApp, type TestApp } from '../../support/app';
import {
  RecordActionDocument,
  RecordRunTaskDocument,
  SimilarToolPerformanceDocument,
  ToolPerformanceDocument,
} from '../../support/generated/graphql';

const TOOL = 'create_shipment';

/**
 * Three shipping tasks (create_shipment: 1 success, 2 failures "Carrier rejected the address") and three tasks about
 * booking meeting rooms (create_shipment: 3 successes), every call timed. The shipping tasks are the ones similar to
 * "ship a parcel to the Berlin warehouse", so figures on the 3 most similar tasks are theirs alone; u1 owns two
 * shipping tasks and one meeting task.
 */
const TASKS = [
  { id: 'ship-1', query: 'Ship a parcel to the Berlin warehouse', user: 'u1', calls: [['success', 100]] },
  {
    id: 'ship-2',
    query: 'Ship the parcel to the Berlin warehouse today',
    user: 'u1',
    calls: [['failure', 300, 'Carrier rejected the address']],
  },
  {
    id: 'ship-3',
    query: 'Ship two parcels to the Berlin warehouse',
    user: 'u2',
    calls: [['failure', 500, 'Carrier rejected the address']],
  },
  { id: 'room-1', query: 'Book a meeting room for Monday', user: 'u1', calls: [['success', 10]] },
  { id: 'room-2', query: 'Book the large meeting room', user: 'u2', calls: [['success', 20]] },
  { id: 'room-3', query: 'Book a meeting room with a projector', user: 'u2', calls: [['success', 30]] },
] as const;

const SHIPPING = 'ship a parcel to the Berlin warehouse';

describe('toolPerformance(similarTo, k): figures over the k past tasks most similar to a text', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
    for (const task of TASKS) {
      await app.run(RecordRunTaskDocument, {
        input: {
          taskId: task.id,
          originalQuery: task.query,
          goal: task.query,
          status: 'COMPLETED',
          userId: task.user,
          context: task.id.startsWith('ship') ? 'shipping' : 'facilities',
        },
      });
      await app.run(RecordActionDocument, {
        taskId: task.id,
        input: {
          mode: 'FAST',
          toolCalls: task.calls.map(([outcome, executionTimeMs, result]) => ({
            name: TOOL,
            outcome: outcome === 'success' ? ('SUCCESS' as const) : ('FAILURE' as const),
            executionTimeMs,
            result: result ?? 'ok',
          })),
        },
      });
    }
  });
  afterAll(() => app.close());

  it('the 3 tasks most like a shipping request: their 3 calls only (1 of 3 succeeded)', async () => {
    const { toolPerformance } = await app.run(SimilarToolPerformanceDocument, {
      toolName: TOOL,
      similarTo: SHIPPING,
      k: 3,
    });
    expect(toolPerformance).toMatchObject({
      toolName: TOOL,
      totalExecutions: 3,
      successCount: 1,
      failureCount: 2,
      timedExecutions: 3,
    });
    expect(toolPerformance.successRate).toBeCloseTo(1 / 3);
    expect(toolPerformance.avgDuration).toBeCloseTo(300);
    expect(toolPerformance.commonErrors).toEqual([
      { error: 'failure: Carrier rejected the address', frequency: 2, context: 'shipping', lastTaskId: 'ship-3' },
    ]);
    // Without similarTo: every recorded call (recordAction counts them into the stored aggregate).
    const overall = await app.run(ToolPerformanceDocument, { toolName: TOOL });
    expect(overall.toolPerformance.totalExecutions).toBe(6);
  });

  it('k counts tasks: all 6 tasks give all 6 calls; with userId, only that user’s tasks are searched', async () => {
    const all = await app.run(SimilarToolPerformanceDocument, { toolName: TOOL, similarTo: SHIPPING, k: 6 });
    expect(all.toolPerformance).toMatchObject({ totalExecutions: 6, successCount: 4 });
    const u1 = await app.run(SimilarToolPerformanceDocument, {
      toolName: TOOL,
      similarTo: SHIPPING,
      k: 2,
      userId: 'u1',
    });
    // u1's two shipping tasks: ship-1 (success) and ship-2 (failure).
    expect(u1.toolPerformance).toMatchObject({ totalExecutions: 2, successCount: 1, failureCount: 1 });
    expect(u1.toolPerformance.commonErrors.map((error) => error.lastTaskId)).toEqual(['ship-2']);
  });

  it('context narrows the similar tasks’ calls to that context; an unused tool has zero figures', async () => {
    const inContext = await app.run(SimilarToolPerformanceDocument, {
      toolName: TOOL,
      similarTo: SHIPPING,
      k: 6,
      context: 'facilities',
    });
    expect(inContext.toolPerformance).toMatchObject({ context: 'facilities', totalExecutions: 3, successCount: 3 });
    const unused = await app.run(SimilarToolPerformanceDocument, { toolName: 'send_fax', similarTo: SHIPPING });
    expect(unused.toolPerformance).toMatchObject({ totalExecutions: 0, successRate: 0, commonErrors: [] });
  });

  it.each([
    [{ similarTo: '   ' }, 'similarTo'],
    [{ similarTo: SHIPPING, k: 0 }, 'k'],
    [{ similarTo: SHIPPING, k: 1001 }, 'k'],
    [{ k: 5 }, 'k'],
    [{ similarTo: SHIPPING, userId: ' ' }, 'userId'],
  ])('%j → BAD_USER_INPUT naming %s', async (variables, field) => {
    const result = await app.execute(SimilarToolPerformanceDocument, { toolName: TOOL, ...variables });
    expect(result.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field });
  });
});
