import { createTestApp, type TestApp } from '../../support/app';
import { crashAfterWrite, keyPlan } from '../../support/idempotency';
import { databaseFingerprint } from '../../support/fingerprint';
import {
  RecordToolExecutionDocument,
  RecordToolExecutionsDocument,
  ToolPerformanceDocument,
} from '../../support/generated/graphql';
import { ToolPerformanceRepository } from '../../../src/modules/tools/tool.repository';
import { summarizeExecutions } from '../../../src/modules/tools/tool.aggregation';

const batch = [
  { toolName: 'keyed_a', success: true, durationMs: 100, context: 'ctx' },
  { toolName: 'keyed_b', success: false, durationMs: 200, error: 'Timeout' },
  { toolName: 'keyed_a', success: true, durationMs: 300 },
];

describe('recordToolExecution(s) with an idempotencyKey count every execution once', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(() => app.close());

  const totals = async (toolName: string) =>
    (await app.run(ToolPerformanceDocument, { toolName })).toolPerformance.totalExecutions;

  it('a retry after success returns the same figures and writes nothing', async () => {
    const call = () =>
      app.run(RecordToolExecutionDocument, {
        input: { toolName: 'keyed_single', success: true, durationMs: 5 },
        idempotencyKey: 'tool-1',
      });
    const first = await call();
    expect(first.recordToolExecution.totalExecutions).toBe(1);
    const before = await databaseFingerprint(app.db);
    expect(await call()).toEqual(first);
    expect(await databaseFingerprint(app.db)).toEqual(before);
  });

  it('concurrent duplicates of a keyed batch count it once and all answer alike', async () => {
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        app.run(RecordToolExecutionsDocument, {
          inputs: batch.map((e) => ({ ...e, toolName: `race_${e.toolName}` })),
          idempotencyKey: 'tool-race',
        }),
      ),
    );
    for (const answer of answers) expect(answer).toEqual(answers[0]);
    expect(await totals('race_keyed_a')).toBe(2);
    expect(await totals('race_keyed_b')).toBe(1);
  });

  it('a crash after one tool was counted and before the other: the retry counts only the missing tool', async () => {
    const variables = { inputs: batch, idempotencyKey: 'tool-crash' };
    const first = await app.run(RecordToolExecutionsDocument, variables);
    // The state such a crash leaves: keyed_a counted under the key's write id, keyed_b not, the key still pending.
    const { writeId } = await keyPlan(app.db, 'tool-crash');
    const [, deltaB] = summarizeExecutions(batch);
    await new ToolPerformanceRepository(app.db).undo(deltaB, new Date(), writeId);
    expect(await app.db.collection('tool_performance').countDocuments({ toolName: 'keyed_b' })).toBe(0);
    await crashAfterWrite(app.db, 'tool-crash');

    expect(await app.run(RecordToolExecutionsDocument, variables)).toEqual(first);
    expect(await totals('keyed_a')).toBe(2);
    expect(await totals('keyed_b')).toBe(1);
    // And once more after another crash-like loss of the done mark: nothing counts again.
    await crashAfterWrite(app.db, 'tool-crash');
    expect(await app.run(RecordToolExecutionsDocument, variables)).toEqual(first);
    expect(await totals('keyed_a')).toBe(2);
  });

  it('the same key with other input is CONFLICT and counts nothing', async () => {
    await app.run(RecordToolExecutionsDocument, { inputs: batch.slice(0, 1), idempotencyKey: 'tool-conflict' });
    const before = await databaseFingerprint(app.db);
    const changed = await app.execute(RecordToolExecutionsDocument, {
      inputs: [{ ...batch[0], durationMs: 101 }],
      idempotencyKey: 'tool-conflict',
    });
    expect(changed.errors?.[0].extensions).toMatchObject({ code: 'CONFLICT', idempotencyKey: 'tool-conflict' });
    const other = await app.execute(RecordToolExecutionDocument, { input: batch[0], idempotencyKey: 'tool-conflict' });
    expect(other.errors?.[0].extensions?.code).toBe('CONFLICT');
    expect(await databaseFingerprint(app.db)).toEqual(before);
  });
});
