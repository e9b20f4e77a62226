import { rankPlan } from '../../src/modules/plans/plan.ranking';
import { vectorPart } from '../../src/modules/tasks/task.similarity';

const DAY = 86_400_000;

describe('ranking formulas', () => {
  it('successfulPlans: score = match × (usage + recency) / 2 with usage n/(n+5) and a 30-day half-life', () => {
    const now = new Date('2025-06-01T00:00:00Z');
    const parts = rankPlan({ goalPattern: 1, cosine: 0.6, usageCount: 5, lastUsed: new Date(now.getTime() - 30 * DAY), now });
    expect(parts).toEqual({ goalPattern: 1, semantic: 0.6, match: 0.8, usage: 0.5, recency: 0.5, score: 0.4 });
    const fresh = rankPlan({ goalPattern: 0.25, cosine: -0.3, usageCount: 0, lastUsed: now, now });
    expect(fresh).toMatchObject({ semantic: 0, match: 0.125, usage: 0, recency: 1, score: 0.0625 });
  });

  it('similarTasks: the vector part is the mean of the applicable cosines, negatives counting as 0', () => {
    expect(vectorPart([0.8, null])).toBe(0.8);
    expect(vectorPart([0.8, -0.4])).toBe(0.4);
    expect(vectorPart([null, null])).toBe(0);
  });
});
