import {
  DEFAULT_RANKING,
  FEEDBACK_PRIOR,
  RELEVANCE_ONLY,
  boundedFactor,
  feedbackQuality,
  halfLifeDecay,
  maximalMarginalRelevance,
  rankingFactors,
  relevanceOnly,
  type RankingSignals,
} from '../../src/search/ranking';
import { experienceSignals, feedbackIncrements } from '../../src/modules/experiences/experience.ranking';
import type { ExperienceDocument } from '../../src/modules/experiences/experience.document';

const DAY_MS = 86_400_000;
const NOW = Date.UTC(2026, 0, 1);
const plain: RankingSignals = { at: NOW, outcome: 1, observations: 0, qualitySum: 0, helpful: 0 };

describe('ranking factors', () => {
  it('halves recency every half-life and keeps a future time at 1', () => {
    expect(halfLifeDecay(0, 90)).toBe(1);
    expect(halfLifeDecay(90 * DAY_MS, 90)).toBeCloseTo(0.5, 12);
    expect(halfLifeDecay(270 * DAY_MS, 90)).toBeCloseTo(0.125, 12);
    expect(halfLifeDecay(-DAY_MS, 90)).toBe(1);
  });

  it('bounds every factor to [1 − weight, 1], whatever the value', () => {
    for (const weight of [0, 0.2, 0.5, 1])
      for (const value of [-3, 0, 0.25, 1, 7, Number.NaN]) {
        const factor = boundedFactor(weight, value);
        expect(factor).toBeGreaterThanOrEqual(1 - weight);
        expect(factor).toBeLessThanOrEqual(1);
      }
    expect(boundedFactor(0.2, 0)).toBeCloseTo(0.8, 12);
    expect(boundedFactor(0.2, 1)).toBe(1);
    // A weight outside [0, 1] is clamped: the factor never turns negative nor lifts.
    expect(boundedFactor(5, 0)).toBe(0);
    expect(boundedFactor(-1, 0)).toBe(1);
  });

  it('shrinks feedback quality towards 0.5 by the prior, so three ratings weigh more than one', () => {
    expect(feedbackQuality(0, 0)).toBe(0.5);
    expect(feedbackQuality(1, 0)).toBeCloseTo((FEEDBACK_PRIOR * 0.5) / (1 + FEEDBACK_PRIOR), 12);
    expect(feedbackQuality(3, 0)).toBeLessThan(feedbackQuality(1, 0));
    expect(feedbackQuality(3, 3)).toBeGreaterThan(feedbackQuality(1, 1));
    expect(feedbackQuality(1000, 0)).toBeLessThan(0.01);
  });

  it('multiplies relevance by every factor; relevance only leaves it as it is', () => {
    const old: RankingSignals = { at: NOW - 180 * DAY_MS, outcome: 0, observations: 6, qualitySum: 0, helpful: 0 };
    const weights = {
      recencyHalfLifeDays: 90,
      recencyWeight: 0.2,
      outcomeWeight: 0.2,
      feedbackWeight: 0.3,
      useWeight: 0.1,
    };
    const f = rankingFactors(0.8, old, weights, NOW);
    expect(f.recency).toBeCloseTo(1 - 0.2 * (1 - 0.25), 12);
    expect(f.outcome).toBeCloseTo(0.8, 12);
    expect(f.feedback).toBeCloseTo(1 - 0.3 * (1 - 1 / 8), 12);
    expect(f.use).toBeCloseTo(0.9, 12);
    expect(f.score).toBeCloseTo(0.8 * f.recency * f.outcome * f.feedback * f.use, 12);
    expect(f.score).toBeLessThanOrEqual(f.relevance);
    const none = rankingFactors(0.8, old, RELEVANCE_ONLY, NOW);
    expect(none).toEqual({ relevance: 0.8, recency: 1, outcome: 1, feedback: 1, use: 1, score: 0.8 });
    expect(relevanceOnly(RELEVANCE_ONLY)).toBe(true);
    expect(relevanceOnly(DEFAULT_RANKING)).toBe(false);
    // Unknown time and outcome are neutral.
    const unknown = rankingFactors(0.5, { ...plain, at: null, outcome: null }, DEFAULT_RANKING, NOW);
    expect([unknown.recency, unknown.outcome]).toEqual([1, 1]);
  });

  it('counts use as u / (u + 1): more helpful reports, a factor closer to 1', () => {
    const weights = { ...DEFAULT_RANKING, useWeight: 0.1 };
    const use = (helpful: number) => rankingFactors(1, { ...plain, helpful }, weights, NOW).use;
    expect(use(0)).toBeCloseTo(0.9, 12);
    expect(use(1)).toBeCloseTo(0.95, 12);
    expect(use(3)).toBeCloseTo(0.975, 12);
  });
});

describe('experience signals', () => {
  const base = {
    experience_id: 'e',
    final_outcome: 'success',
    timestamp: new Date(NOW - 10 * DAY_MS),
  } as ExperienceDocument;

  it('reads outcome, the later of timestamp and last_seen_at, and the feedback totals', () => {
    const stats = [0, 0, 0].reduce<Record<string, number>>((sum) => {
      for (const [key, value] of Object.entries(feedbackIncrements({ user_rating: 0, correction_needed: true })))
        sum[key] = (sum[key] ?? 0) + value;
      return sum;
    }, {});
    const signals = experienceSignals({
      ...base,
      final_outcome: 'Partial-Success',
      last_seen_at: new Date(NOW - DAY_MS),
      feedback_stats: stats,
    });
    expect(signals).toEqual({ at: NOW - DAY_MS, outcome: 0.5, observations: 6, qualitySum: 0, helpful: 0 });
  });

  it('counts a helpful report or a rating of 4 or more as a use; a correction stops a high rating counting', () => {
    expect(feedbackIncrements({ helpful: true }).uses).toBe(1);
    expect(feedbackIncrements({ user_rating: 4 }).uses).toBe(1);
    expect(feedbackIncrements({ user_rating: 5, correction_needed: true }).uses).toBe(0);
    expect(feedbackIncrements({ user_rating: 5, helpful: false }).uses).toBe(0);
    expect(feedbackIncrements({ user_rating: 9 }).rating_sum).toBe(5);
  });

  it('reads feedback without totals (imported) as one feedback', () => {
    const signals = experienceSignals({ ...base, feedback_signals: { user_rating: 5, comment: 'great' } });
    expect(signals).toMatchObject({ observations: 1, qualitySum: 1, helpful: 1 });
    expect(experienceSignals(base)).toMatchObject({ observations: 0, helpful: 0, outcome: 1 });
  });
});

describe('maximal marginal relevance', () => {
  // Items 0–2 are copies (similarity 1), 3 and 4 differ from everything.
  const group = [0, 0, 0, 1, 2];
  const similarity = (i: number, j: number) => (group[i] === group[j] ? 1 : 0.2);
  const scores = [0.9, 0.89, 0.88, 0.6, 0.5];

  it('keeps the order of the scores at diversity 0', () => {
    expect(maximalMarginalRelevance(scores, similarity, 0, 5)).toEqual([0, 1, 2, 3, 4]);
    expect(maximalMarginalRelevance([0.1, 0.3, 0.2], similarity, 0, 2)).toEqual([1, 2]);
  });

  it('puts different items before copies at diversity 0.5, the best first', () => {
    expect(maximalMarginalRelevance(scores, similarity, 0.5, 3)).toEqual([0, 3, 4]);
    expect(maximalMarginalRelevance(scores, similarity, 0.5, 5)).toEqual([0, 3, 4, 1, 2]);
  });

  it('prefers relevance over diversity when diversity is small', () => {
    // 0.9·0.89 − 0.1·1 = 0.701 beats 0.9·0.6 − 0.1·0.2 = 0.52.
    expect(maximalMarginalRelevance(scores, similarity, 0.1, 2)).toEqual([0, 1]);
  });

  it('returns at most the items there are', () => {
    expect(maximalMarginalRelevance([0.5], similarity, 0.5, 3)).toEqual([0]);
    expect(maximalMarginalRelevance([], similarity, 0.5, 3)).toEqual([]);
  });
});
