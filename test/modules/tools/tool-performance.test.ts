import { createTestApp, type TestApp } from '../../support/app';
import {
  RecordToolExecutionDocument,
  RecordToolExecutionsDocument,
  ToolPerformanceDocument,
} from '../../support/generated/graphql';

const TOOL = 'create_shipment';
const INVALID = 'Invalid facilityId: expected ObjectId';
const TIMEOUT = 'Timeout after 5000 ms';

/**
 * A hand-made history of create_shipment (every expected figure below is computed by hand from it):
 * - facility_management: 8 successes (100, 120, …, 240 ms: 1360 ms) and 2 × INVALID (50, 70 ms): 10 runs, 1480 ms;
 * - bulk_import: 2 successes (5000, 7000 ms), 3 × TIMEOUT (5000 ms each), 1 × INVALID (300 ms): 6 runs, 27300 ms,
 *   5 of them slow (≥ 5000 ms);
 * - no context: 3 successes (1000 ms each) and one failure without a message (0 ms): 4 runs, 3000 ms.
 */
interface Execution {
  toolName: string;
  success: boolean;
  durationMs: number;
  context?: string;
  error?: string;
  taskId?: string;
}

function history() {
  const facility: Execution[] = [100, 120, 140, 160, 180, 200, 220, 240].map((durationMs) => ({
    toolName: TOOL,
    success: true,
    durationMs,
    context: 'facility_management',
  }));
  facility.push(
    {
      toolName: TOOL,
      success: false,
      durationMs: 50,
      context: 'facility_management',
      error: INVALID,
      taskId: 't-fm-1',
    },
    // The same error with other whitespace groups with it.
    {
      toolName: TOOL,
      success: false,
      durationMs: 70,
      context: 'facility_management',
      error: `  ${INVALID.replace(': ', ':\n ')} `,
      taskId: 't-fm-2',
    },
  );
  const bulk = [
    { toolName: TOOL, success: true, durationMs: 5000, context: 'bulk_import' },
    { toolName: TOOL, success: true, durationMs: 7000, context: 'bulk_import' },
    { toolName: TOOL, success: false, durationMs: 5000, context: 'bulk_import', error: TIMEOUT },
    { toolName: TOOL, success: false, durationMs: 5000, context: 'bulk_import', error: TIMEOUT },
    { toolName: TOOL, success: false, durationMs: 5000, context: 'bulk_import', error: TIMEOUT, taskId: 't-bi-3' },
    { toolName: TOOL, success: false, durationMs: 300, context: 'bulk_import', error: INVALID },
  ];
  const none = [
    { toolName: TOOL, success: true, durationMs: 1000 },
    { toolName: TOOL, success: true, durationMs: 1000 },
    { toolName: TOOL, success: true, durationMs: 1000 },
    { toolName: TOOL, success: false, durationMs: 0 },
  ];
  return { facility, bulk, none };
}

describe('tool performance', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
    const { facility, bulk, none } = history();
    await app.run(RecordToolExecutionsDocument, { inputs: facility });
    for (const input of bulk) await app.run(RecordToolExecutionDocument, { input });
    await app.run(RecordToolExecutionsDocument, { inputs: none });
  });
  afterAll(() => app.close());

  it('reports every overall figure as computed by hand, with the recommendations of the documented rules', async () => {
    const { toolPerformance } = await app.run(ToolPerformanceDocument, { toolName: TOOL });
    expect(toolPerformance).toEqual({
      toolName: TOOL,
      context: null,
      totalExecutions: 20,
      successCount: 13,
      failureCount: 7,
      successRate: 13 / 20,
      avgDuration: (1480 + 27300 + 3000) / 20,
      timedExecutions: 20,
      commonErrors: [
        { error: TIMEOUT, frequency: 3, percentage: 100 * (3 / 7), context: 'bulk_import', lastTaskId: 't-bi-3' },
        {
          error: INVALID,
          frequency: 2,
          percentage: 100 * (2 / 7),
          context: 'facility_management',
          lastTaskId: 't-fm-2',
        },
        { error: INVALID, frequency: 1, percentage: 100 * (1 / 7), context: 'bulk_import', lastTaskId: null },
        { error: 'unknown error', frequency: 1, percentage: 100 * (1 / 7), context: null, lastTaskId: null },
      ],
      optimalContext: ['facility_management'],
      recommendations: [
        'Fails in 67% of runs in context "bulk_import" (4 of 6); it does better in "facility_management" (80% success).',
        '25% of timed runs took 5000 ms or more (average 1589 ms): allow for it in time budgets.',
        'Slow in context "bulk_import": average 4550 ms against 1589 ms overall.',
        'Works best in "facility_management" (80% success over 10 runs).',
      ],
      lastUpdated: expect.any(String),
    });
  });

  it('reports the figures of one context, with its dominant error', async () => {
    const { toolPerformance } = await app.run(ToolPerformanceDocument, { toolName: TOOL, context: 'bulk_import' });
    expect(toolPerformance).toMatchObject({
      context: 'bulk_import',
      totalExecutions: 6,
      successCount: 2,
      failureCount: 4,
      successRate: 2 / 6,
      avgDuration: 27300 / 6,
      timedExecutions: 6,
      commonErrors: [
        { error: TIMEOUT, frequency: 3, percentage: 75, context: 'bulk_import' },
        { error: INVALID, frequency: 1, percentage: 25, context: 'bulk_import' },
      ],
      optimalContext: ['facility_management'],
      recommendations: [
        'Fails in 67% of runs in context "bulk_import" (4 of 6); it does better in "facility_management" (80% success).',
        `"${TIMEOUT}" causes 75% of failures in context "bulk_import" (3 of 4): guard against it before calling ${TOOL}.`,
        '83% of timed runs in context "bulk_import" took 5000 ms or more (average 4550 ms): allow for it in time budgets.',
      ],
    });
    const facility = (await app.run(ToolPerformanceDocument, { toolName: TOOL, context: 'facility_management' }))
      .toolPerformance;
    expect(facility).toMatchObject({ totalExecutions: 10, successRate: 0.8, avgDuration: 148, recommendations: [] });
  });

  it('answers zeros for an unknown tool or context, saying the data is too thin', async () => {
    const unknown = (await app.run(ToolPerformanceDocument, { toolName: 'never_ran' })).toolPerformance;
    expect(unknown).toMatchObject({
      totalExecutions: 0,
      successRate: 0,
      avgDuration: 0,
      commonErrors: [],
      optimalContext: [],
      lastUpdated: null,
      recommendations: ['Only 0 executions of never_ran recorded: too few for reliable figures.'],
    });
    const context = (await app.run(ToolPerformanceDocument, { toolName: TOOL, context: 'nowhere' })).toolPerformance;
    expect(context.recommendations).toEqual([
      `Only 0 executions of ${TOOL} in context "nowhere" recorded: too few for reliable figures.`,
    ]);
  });

  it('reads a tool’s performance with one indexed find, not a scan of history', async () => {
    app.commands.reset();
    await app.run(ToolPerformanceDocument, { toolName: TOOL, context: 'bulk_import' });
    expect(app.commands.events.map((event) => event.commandName)).toEqual(['find']);
    expect(app.commands.events[0].command.filter).toEqual({ toolName: TOOL });
    const indexes = await app.db.collection('tool_performance').indexes();
    expect(indexes).toEqual(expect.arrayContaining([expect.objectContaining({ key: { toolName: 1 }, unique: true })]));
    expect(indexes).toEqual(expect.arrayContaining([expect.objectContaining({ key: { lastUpdated: -1 } })]));
  });

  it('stores the seed’s field names', async () => {
    const document = await app.db.collection('tool_performance').findOne({ toolName: TOOL });
    expect(document).toMatchObject({
      toolName: TOOL,
      totalExecutions: 20,
      successCount: 13,
      failureCount: 7,
      avgDuration: 1589,
      optimalContext: ['facility_management'],
      lastUpdated: expect.any(Date),
    });
    expect(document!.commonErrors[0]).toMatchObject({ error: TIMEOUT, frequency: 3, context: 'bulk_import' });
  });

  it('100 concurrent recordToolExecution calls on one tool give exact totals', async () => {
    const calls = Array.from({ length: 100 }, (_, i) => ({
      toolName: 'lookup_facility',
      success: i % 4 !== 0,
      durationMs: i,
      context: i % 2 === 0 ? 'even' : 'odd',
      ...(i % 4 === 0 ? { error: `E${(i / 4) % 3}` } : {}),
    }));
    await Promise.all(calls.map((input) => app.run(RecordToolExecutionDocument, { input })));
    const all = (await app.run(ToolPerformanceDocument, { toolName: 'lookup_facility' })).toolPerformance;
    expect(all).toMatchObject({
      totalExecutions: 100,
      successCount: 75,
      failureCount: 25,
      avgDuration: 49.5,
      timedExecutions: 100,
    });
    // Failures are i = 0, 4, …, 96 (all even): E0 for i/4 ≡ 0 (mod 3): 9 times; E1 and E2: 8 times each.
    expect(all.commonErrors.map((error: any) => [error.error, error.frequency, error.context])).toEqual([
      ['E0', 9, 'even'],
      ['E1', 8, 'even'],
      ['E2', 8, 'even'],
    ]);
    const even = (await app.run(ToolPerformanceDocument, { toolName: 'lookup_facility', context: 'even' }))
      .toolPerformance;
    const odd = (await app.run(ToolPerformanceDocument, { toolName: 'lookup_facility', context: 'odd' }))
      .toolPerformance;
    expect([even.totalExecutions, even.failureCount, even.avgDuration]).toEqual([50, 25, 49]);
    expect([odd.totalExecutions, odd.failureCount, odd.avgDuration]).toEqual([50, 0, 50]);
    expect(all.optimalContext).toEqual(['odd']);
  });

  it('warns about the overall failure rate of a tool that runs without contexts', async () => {
    const inputs = [true, false, true, false, true].map((success, i) => ({
      toolName: 'plain_tool',
      success,
      durationMs: 10 * i,
      ...(success ? {} : { error: 'boom' }),
    }));
    await app.run(RecordToolExecutionsDocument, { inputs });
    const { toolPerformance } = await app.run(ToolPerformanceDocument, { toolName: 'plain_tool' });
    expect(toolPerformance).toMatchObject({ totalExecutions: 5, failureCount: 2, avgDuration: 20, optimalContext: [] });
    // "boom" causes all failures but only twice (fewer than 3): not reported as dominant.
    expect(toolPerformance.recommendations).toEqual(['Fails in 40% of runs (2 of 5).']);
  });

  it('rejects a negative duration and a blank tool name, naming the input', async () => {
    const negative = await app.execute(RecordToolExecutionDocument, {
      input: { toolName: TOOL, success: true, durationMs: -1 },
    });
    expect(negative.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.0.durationMs' });
    const blank = await app.execute(RecordToolExecutionsDocument, {
      inputs: [{ toolName: '  ', success: true, durationMs: 1 }],
    });
    expect(blank.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'inputs.0.toolName' });
  });
});
