import { rankPlan } from '../../../src/modules/plans/plan.ranking';

const DAY = 86_400_000;

describe('ranking formulas', () => {
  it('successfulPlans: score = match × (usage + recency) / 2 with usage n/(n+5) and a 30-day half-life', () => {
    const now = new Date('2025-06-01T00:00:00Z');
    const parts = rankPlan({
      goalPattern: 1,
      cosine: 0.6,
      usageCount: 5,
      lastUsed: new Date(now.getTime() - 30 * DAY),
      now,
    });
    expect(parts).toEqual({ goalPattern: 1, semantic: 0.6, match: 0.8, usage: 0.5, recency: 0.5, score: 0.4 });
    const fresh = rankPlan({ goalPattern: 0.25, cosine: -0.3, usageCount: 0, lastUsed: now, now });
    expect(fresh).toMatchObject({ semantic: 0, match: 0.125, usage: 0, recency: 1, score: 0.0625 });
  });
});
