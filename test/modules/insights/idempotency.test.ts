import { createTestApp, type TestApp } from '../../support/app';
import { crashAfterWrite } from '../../support/idempotency';
import { databaseFingerprint } from '../../support/fingerprint';
import { RecordInsightDocument, ValidateInsightDocument } from '../../support/generated/graphql';

describe('insights: retries change nothing more', () => {
  let app: TestApp;
  let id: string;
  beforeAll(async () => {
    app = await createTestApp();
    const input = { agentType: 'EXECUTOR' as const, type: 'PATTERNS' as const, insight: 'Retry-safe insight' };
    id = (await app.run(RecordInsightDocument, { input })).recordInsight.id;
  });
  afterAll(() => app.close());

  const confidence = async () =>
    (await app.db.collection('agent_insights').findOne({ insightId: id }))!.confidence as number;

  it('recordInsight is idempotent by nature: the same report twice (same evidence task) changes nothing', async () => {
    const input = {
      agentType: 'EXECUTOR' as const,
      type: 'WARNINGS' as const,
      insight: 'Check the facility id first',
      evidence: [{ taskId: 't-1', description: 'failed on a bad id' }],
    };
    const first = await app.run(RecordInsightDocument, { input });
    const before = await databaseFingerprint(app.db);
    expect(await app.run(RecordInsightDocument, { input })).toEqual(first);
    expect(await databaseFingerprint(app.db)).toEqual(before);
  });

  it('validateInsight with a key: a retry (also concurrent, also after a crash) judges once', async () => {
    const start = await confidence();
    const call = () => app.run(ValidateInsightDocument, { id, valid: true, idempotencyKey: 'judge-1' });
    const answers = await Promise.all([call(), call(), call()]);
    for (const answer of answers) expect(answer).toEqual(answers[0]);
    const once = answers[0].validateInsight.confidence;
    expect(once).toBeCloseTo(1 - (1 - start) * 0.75);
    const before = await databaseFingerprint(app.db);
    expect(await call()).toEqual(answers[0]);
    expect(await databaseFingerprint(app.db)).toEqual(before);
    await crashAfterWrite(app.db, 'judge-1');
    expect(await call()).toEqual(answers[0]);
    expect(await confidence()).toBe(once);
    // Without a key every call judges again.
    await app.run(ValidateInsightDocument, { id, valid: true });
    expect(await confidence()).toBeGreaterThan(once);
  });

  it('validateInsight: the same key with the other verdict is CONFLICT; an unknown id is NOT_FOUND and frees the key', async () => {
    await app.run(ValidateInsightDocument, { id, valid: false, idempotencyKey: 'judge-2' });
    const before = await databaseFingerprint(app.db);
    const other = await app.execute(ValidateInsightDocument, { id, valid: true, idempotencyKey: 'judge-2' });
    expect(other.errors?.[0].extensions).toMatchObject({ code: 'CONFLICT', idempotencyKey: 'judge-2' });
    const missing = await app.execute(ValidateInsightDocument, { id: 'ins_none', valid: true, idempotencyKey: 'j3' });
    expect(missing.errors?.[0].extensions?.code).toBe('NOT_FOUND');
    expect(await databaseFingerprint(app.db)).toEqual(before);
  });
});
