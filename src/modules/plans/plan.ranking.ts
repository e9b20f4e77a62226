/**
 * The ranking of `successfulPlans` (documented in the README):
 *
 *   goalPattern = goalPatternScore(template of the asked goal, plan's goalPattern)      (1 when they unify)
 *   semantic    = max(0, cosine(embedding of the asked goal, embedding of the plan's example goal))
 *   match       = (goalPattern + semantic) / 2          a plan is a candidate when match ≥ MIN_PLAN_MATCH
 *   usage       = usageCount / (usageCount + USAGE_HALF_POINT)
 *   recency     = 0.5 ^ (days since lastUsed / RECENCY_HALF_LIFE_DAYS)
 *   score       = match × (usage + recency) / 2
 *
 * Plans below minSuccessRate are filtered out before ranking. Ties are broken by usageCount, then lastUsed (newer
 * first), then planId.
 */

export const MIN_PLAN_MATCH = 0.4;
/** The usage count that scores 0.5. */
export const USAGE_HALF_POINT = 5;
export const RECENCY_HALF_LIFE_DAYS = 30;
const DAY_MS = 86_400_000;

export interface PlanRankingParts {
  goalPattern: number;
  semantic: number;
  match: number;
  usage: number;
  recency: number;
  score: number;
}

/** The parts and score of one plan; `semantic` is the raw cosine (clamped at 0 here). */
export function rankPlan(input: {
  goalPattern: number;
  cosine: number;
  usageCount: number;
  lastUsed: Date;
  now: Date;
}): PlanRankingParts {
  const semantic = Math.max(0, input.cosine);
  const match = (input.goalPattern + semantic) / 2;
  const usage = input.usageCount / (input.usageCount + USAGE_HALF_POINT);
  const ageDays = Math.max(0, input.now.getTime() - input.lastUsed.getTime()) / DAY_MS;
  const recency = Math.pow(0.5, ageDays / RECENCY_HALF_LIFE_DAYS);
  return { goalPattern: input.goalPattern, semantic, match, usage, recency, score: (match * (usage + recency)) / 2 };
}
