import { HYBRID_WEIGHTS, fuse } from '../../search/fusion';

/**
 * The ranking of `successfulPlans` (documented in the README):
 *
 *   goalPattern = goalPatternScore(template of the asked goal, plan's goalPattern)      (1 when they unify)
 *   vector      = max(0, cosine(embedding of the asked goal, embedding of the plan's example goal))
 *   keyword     = normalised BM25 of the asked goal over the example goals (stems, WordNet synonyms: the keyword
 *                 analysis of searchExperiences)
 *   semantic    = HYBRID_WEIGHTS.vector × vector + HYBRID_WEIGHTS.keyword × keyword    (hybrid search's fusion)
 *   match       = (goalPattern + semantic) / 2          a plan is a candidate when match ≥ MIN_PLAN_MATCH
 *   usage       = usageCount / (usageCount + USAGE_HALF_POINT)
 *   recency     = 0.5 ^ (days since lastUsed / RECENCY_HALF_LIFE_DAYS)
 *   outcome     = 1 − outcomeWeight · (1 − successRate)       the ranking's bounded outcome factor (ranking.ts)
 *   score       = match × (usage + recency) / 2 × outcome
 *
 * Plans below minSuccessRate are filtered out before ranking. Ties are broken by usageCount, then lastUsed (newer
 * first), then planId.
 */

export const MIN_PLAN_MATCH = 0.4;
/** The usage count that scores 0.5. */
export const USAGE_HALF_POINT = 5;
export const RECENCY_HALF_LIFE_DAYS = 30;
const DAY_MS = 86_400_000;

/** A plan's text similarity to the asked goal: its parts and their fusion (`semantic`). */
export interface TextSimilarity {
  vector: number;
  keyword: number;
  score: number;
}

/**
 * The text similarity of each id (the cosines and keyword hits given in the order of `ids`, null: none), fused as
 * hybrid search fuses its parts, so a goal asked in other word forms or synonyms finds the plan as it finds experiences.
 */
export function textSimilarity(
  ids: readonly string[],
  cosines: ReadonlyArray<number | null>,
  keywords: ReadonlyArray<{ score: number } | null>,
): Map<string, TextSimilarity> {
  const part = (name: keyof typeof HYBRID_WEIGHTS, scores: ReadonlyArray<number | null>) => ({
    name,
    weight: HYBRID_WEIGHTS[name],
    hits: ids.flatMap((id, i) => (scores[i] === null ? [] : [{ id, score: scores[i] }])),
  });
  const fused = fuse([
    part('vector', cosines),
    part(
      'keyword',
      keywords.map((hit) => hit?.score ?? null),
    ),
  ]);
  return new Map(
    fused.map((hit) => [
      hit.id,
      { vector: Math.max(0, hit.parts.vector ?? 0), keyword: hit.parts.keyword ?? 0, score: hit.score },
    ]),
  );
}

export interface PlanRankingParts {
  goalPattern: number;
  vector: number;
  keyword: number;
  semantic: number;
  match: number;
  usage: number;
  recency: number;
  outcome: number;
  score: number;
}

/** The parts and score of one plan. */
export function rankPlan(input: {
  goalPattern: number;
  text: TextSimilarity;
  usageCount: number;
  lastUsed: Date;
  /** The outcome factor of the plan's success rate (see `boundedFactor`); 1 leaves the score as it was. */
  outcome: number;
  now: Date;
}): PlanRankingParts {
  const semantic = input.text.score;
  const match = (input.goalPattern + semantic) / 2;
  const usage = input.usageCount / (input.usageCount + USAGE_HALF_POINT);
  const ageDays = Math.max(0, input.now.getTime() - input.lastUsed.getTime()) / DAY_MS;
  const recency = Math.pow(0.5, ageDays / RECENCY_HALF_LIFE_DAYS);
  return {
    goalPattern: input.goalPattern,
    vector: input.text.vector,
    keyword: input.text.keyword,
    semantic,
    match,
    usage,
    recency,
    outcome: input.outcome,
    score: ((match * (usage + recency)) / 2) * input.outcome,
  };
}
