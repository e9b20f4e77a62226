/**
 * Learned signals on top of relevance, and diversity. A search first fuses its parts into a relevance in [0, 1]
 * (fusion.ts) over a wide pool of candidates; each candidate's relevance is then multiplied by one bounded factor per
 * signal,
 *
 *   score = relevance × recency × outcome × feedback × use,    each factor = 1 − w · (1 − v), v ∈ [0, 1], w ∈ [0, 1]
 *
 * so a factor lies in [1 − w, 1]: a signal can demote a hit by at most its weight, never lift one above its relevance
 * (the score stays in [0, 1]), and weight 0 turns it off. The values v:
 * - recency: 0.5 ^ (age in days / half-life), 1 for a time in the future;
 * - outcome: the caller's value of how it ended (1 for a success, 0 for a failure);
 * - feedback: the mean quality of the feedback given, shrunk towards a neutral 0.5 by {@link FEEDBACK_PRIOR} pseudo
 *   observations, so one rating moves it less than three;
 * - use: u / (u + 1) for u reports that the memory helped (0 → 0, 1 → 0.5, 3 → 0.75).
 *
 * Diversity is maximal marginal relevance over the ranked pool: each next hit maximises
 * (1 − d) · score − d · max(similarity with the hits already picked), d in [0, 1] (0: the ranked order as it is).
 */

/** The weights of the signals (each in [0, 1]) and the recency half-life (days, > 0). */
export interface RankingWeights {
  recencyHalfLifeDays: number;
  recencyWeight: number;
  outcomeWeight: number;
  feedbackWeight: number;
  useWeight: number;
}

/**
 * The defaults, chosen on the retrieval set (docs/retrieval.md#learned-signals): the smallest weights tried that order
 * the outcome, feedback and recency twins as targeted with both the local and the hash provider; larger ones cost the
 * relevance slices more when the answer itself failed, is old or was rated down.
 */
export const DEFAULT_RANKING: Readonly<RankingWeights> = Object.freeze({
  recencyHalfLifeDays: 90,
  recencyWeight: 0.05,
  outcomeWeight: 0.05,
  feedbackWeight: 0.1,
  useWeight: 0.05,
});

/** Every signal off: the score is the relevance. */
export const RELEVANCE_ONLY: Readonly<RankingWeights> = Object.freeze({
  ...DEFAULT_RANKING,
  recencyWeight: 0,
  outcomeWeight: 0,
  feedbackWeight: 0,
  useWeight: 0,
});

/** Pseudo observations of quality 0.5 that every feedback mean starts from. */
export const FEEDBACK_PRIOR = 2;

const DAY_MS = 86_400_000;

/** What a candidate carries for the ranking, read from its stored document. */
export interface RankingSignals {
  /** When it happened (ms since the epoch); null: unknown (recency neutral: 1). */
  at: number | null;
  /** How it ended, in [0, 1]; null: no outcome (neutral: 1). */
  outcome: number | null;
  /** Feedback observations, each of quality in [0, 1], summed: `qualitySum` over `observations`. */
  observations: number;
  qualitySum: number;
  /** Reports that it helped. */
  helpful: number;
}

/** The factors of one hit (each in [1 − weight, 1]) and the score they make with its relevance. */
export interface RankingFactors {
  relevance: number;
  recency: number;
  outcome: number;
  feedback: number;
  use: number;
  score: number;
}

/** 0.5 ^ (age / half-life) for an age in ms (a negative age: 1). */
export function halfLifeDecay(ageMs: number, halfLifeDays: number): number {
  if (!(ageMs > 0)) return 1;
  return Math.pow(0.5, ageMs / (halfLifeDays * DAY_MS));
}

/** A bounded factor: 1 − weight · (1 − value), value and weight clamped to [0, 1]. */
export function boundedFactor(weight: number, value: number): number {
  return 1 - clamp01(weight) * (1 - clamp01(value));
}

/** The feedback quality: (Σ quality + prior · 0.5) / (observations + prior). */
export function feedbackQuality(observations: number, qualitySum: number): number {
  const n = Math.max(0, observations);
  return (clamp01(n === 0 ? 0 : qualitySum / n) * n + FEEDBACK_PRIOR * 0.5) / (n + FEEDBACK_PRIOR);
}

/** The factors of a hit of relevance `relevance` with `signals` at `now` (ms). */
export function rankingFactors(
  relevance: number,
  signals: RankingSignals,
  weights: RankingWeights,
  now: number,
): RankingFactors {
  const recency =
    signals.at === null
      ? 1
      : boundedFactor(weights.recencyWeight, halfLifeDecay(now - signals.at, weights.recencyHalfLifeDays));
  const outcome = signals.outcome === null ? 1 : boundedFactor(weights.outcomeWeight, signals.outcome);
  const feedback = boundedFactor(weights.feedbackWeight, feedbackQuality(signals.observations, signals.qualitySum));
  const helpful = Math.max(0, signals.helpful);
  const use = boundedFactor(weights.useWeight, helpful / (helpful + 1));
  return { relevance, recency, outcome, feedback, use, score: relevance * recency * outcome * feedback * use };
}

/** Whether every signal is off (the ranking is the relevance, and no signal needs reading). */
export function relevanceOnly(weights: RankingWeights): boolean {
  return !weights.recencyWeight && !weights.outcomeWeight && !weights.feedbackWeight && !weights.useWeight;
}

/**
 * The order of maximal marginal relevance: indexes into `scores` (best first, `limit` of them), each next one maximising
 * (1 − diversity) · score − diversity · max similarity with those picked (`similarity(i, j)` in [−1, 1], negatives
 * counting 0). Diversity 0 keeps the order of the scores. Costs limit × n similarities.
 */
export function maximalMarginalRelevance(
  scores: readonly number[],
  similarity: (i: number, j: number) => number,
  diversity: number,
  limit: number,
): number[] {
  const n = scores.length;
  const order = [...scores.keys()].sort((a, b) => scores[b] - scores[a] || a - b);
  if (!(diversity > 0)) return order.slice(0, limit);
  const closest = new Float64Array(n);
  const picked: number[] = [];
  const left = new Set(order);
  while (picked.length < Math.min(limit, n)) {
    let best = -1;
    let bestValue = -Infinity;
    for (const i of order) {
      if (!left.has(i)) continue;
      const value = (1 - diversity) * scores[i] - diversity * closest[i];
      if (value > bestValue) {
        bestValue = value;
        best = i;
      }
    }
    picked.push(best);
    left.delete(best);
    for (const i of left) closest[i] = Math.max(closest[i], similarity(i, best));
  }
  return picked;
}

/** Cosine similarity of two vectors (0 when either is empty or of another length). */
export function cosineOf(a: ArrayLike<number> | null | undefined, b: ArrayLike<number> | null | undefined): number {
  if (!a || !b || a.length !== b.length) return 0;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

function clamp01(value: number): number {
  return value <= 0 || Number.isNaN(value) ? 0 : value >= 1 ? 1 : value;
}
