import { rankPlan, textSimilarity } from '../../../src/modules/plans/plan.ranking';

const DAY = 86_400_000;

describe('ranking formulas', () => {
  it('successfulPlans: score = match × (usage + recency) / 2 × outcome with usage n/(n+5) and a 30-day half-life', () => {
    const now = new Date('2025-06-01T00:00:00Z');
    const parts = rankPlan({
      goalPattern: 1,
      text: { vector: 0.8, keyword: 0.4, score: 0.6 },
      usageCount: 5,
      lastUsed: new Date(now.getTime() - 30 * DAY),
      outcome: 1,
      now,
    });
    expect(parts).toEqual({
      goalPattern: 1,
      vector: 0.8,
      keyword: 0.4,
      semantic: 0.6,
      match: 0.8,
      usage: 0.5,
      recency: 0.5,
      outcome: 1,
      score: 0.4,
    });
    const fresh = rankPlan({
      goalPattern: 0.25,
      text: { vector: 0, keyword: 0, score: 0 },
      usageCount: 0,
      lastUsed: now,
      outcome: 0.5,
      now,
    });
    expect(fresh).toMatchObject({ semantic: 0, match: 0.125, usage: 0, recency: 1, outcome: 0.5, score: 0.03125 });
  });

  it('successfulPlans: semantic fuses the cosine (negative counts 0) and the keyword score as hybrid search does', () => {
    const text = textSimilarity(['a', 'b', 'c'], [0.8, -0.3, null], [{ score: 0.4 }, null, { score: 1 }]);
    expect(Object.fromEntries(text)).toEqual({
      a: { vector: 0.8, keyword: 0.4, score: 0.6000000000000001 },
      b: { vector: 0, keyword: 0, score: 0 },
      c: { vector: 0, keyword: 1, score: 0.5 },
    });
  });
});
