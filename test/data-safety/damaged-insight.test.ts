import { createTestApp, type TestApp } from '../support/app';

const VALIDATE = `mutation($id: ID!, $valid: Boolean!, $key: String) {
  validateInsight(id: $id, valid: $valid, idempotencyKey: $key) { id confidence }
}`;

/** validateInsight builds on the stored confidence: a damaged one is refused with the field named, and kept as it is. */
describe('validateInsight on a damaged stored insight', () => {
  let app: TestApp;
  const insights = () => app.db.collection('agent_insights');
  const stored = () => insights().findOne({ insightId: 'i1' });
  const store = async (fields: Record<string, unknown>) => {
    await insights().deleteMany({});
    await insights().insertOne({
      insightId: 'i1',
      agentType: 'executor',
      type: 'patterns',
      insight: 'retry the fetch',
      createdAt: new Date('2025-01-01T00:00:00Z'),
      ...fields,
    });
  };
  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(() => app.close());

  it.each<[string, Record<string, unknown>, string]>([
    ['a text confidence', { confidence: 'high' }, 'confidence'],
    ['a null confidence', { confidence: null }, 'confidence'],
    ['no confidence', {}, 'confidence'],
    ['a list confidence', { confidence: [0.5] }, 'confidence'],
    ['a document confidence', { confidence: { value: 0.5 } }, 'confidence'],
    ['a NaN confidence', { confidence: Number.NaN }, 'confidence'],
    ['a confidence over 1', { confidence: 7 }, 'confidence'],
    ['a negative confidence', { confidence: -0.5 }, 'confidence'],
    ['applied writes that are no list', { confidence: 0.5, appliedWrites: 'x' }, 'appliedWrites'],
  ])('%s: CONFLICT naming the stored field, nothing written', async (_, fields, storedField) => {
    await store(fields);
    const before = await stored();
    // appliedWrites is built on by keyed calls only.
    const keys = storedField === 'appliedWrites' ? ['k-applied'] : [null, `k-${storedField}`];
    for (const valid of [true, false]) {
      for (const key of keys) {
        const result = await app.execute(VALIDATE, { id: 'i1', valid, key: key && `${key}-${valid}` });
        expect(result.data).toBeNull();
        expect(result.errors?.map((error) => [error.extensions?.code, error.extensions?.storedField])).toEqual([
          ['CONFLICT', storedField],
        ]);
        expect(result.errors?.[0].message).toContain('nothing was written');
        expect(await stored()).toEqual(before);
      }
    }
  });

  it('the key of a refused call is free: once the document is repaired, the same call judges it once', async () => {
    await store({ confidence: 'high' });
    const first = await app.execute(VALIDATE, { id: 'i1', valid: true, key: 'k-repaired' });
    expect(first.errors?.[0].extensions?.code).toBe('CONFLICT');
    await insights().updateOne({ insightId: 'i1' }, { $set: { confidence: 0.5 } });
    for (let i = 0; i < 2; i++) {
      const again = await app.execute(VALIDATE, { id: 'i1', valid: true, key: 'k-repaired' });
      expect(again).toEqual({ data: { validateInsight: { id: 'i1', confidence: 0.625 } } });
    }
    expect((await stored())?.confidence).toBe(0.625);
    const missing = await app.execute(VALIDATE, { id: 'nope', valid: true });
    expect(missing.errors?.[0].extensions?.code).toBe('NOT_FOUND');
  });
});
