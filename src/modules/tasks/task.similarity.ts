/**
 * The hybrid similarity of `similarTasks` (seed 002 "Similarity Search"; documented in the README):
 *
 *   vector      = mean over the given texts of max(0, cosine(query, task's originalQuery)) and
 *                 max(0, cosine(goal, task's goal))
 *   keyword     = BM25 of the query over the tasks' original queries and of the goal over their goals (each text
 *                 standing in for the other when only one is given), divided by the best BM25 of its list; the
 *                 larger of the two
 *   goalPattern = goalPatternScore(template of goal (or query), task's goalPattern)       (1 when they unify)
 *   similarity  = 0.6 × vector + 0.2 × keyword + 0.2 × goalPattern
 *
 * Tasks below minSimilarity are dropped; ties go to the newer task.
 */
export const VECTOR_WEIGHT = 0.6;
export const KEYWORD_WEIGHT = 0.2;
export const GOAL_PATTERN_WEIGHT = 0.2;

export interface SimilarityPartsValue {
  vector: number;
  keyword: number;
  goalPattern: number;
}

/** The fused similarity of one task from its parts (each 0–1). */
export function fuseSimilarity(parts: SimilarityPartsValue): number {
  return VECTOR_WEIGHT * parts.vector + KEYWORD_WEIGHT * parts.keyword + GOAL_PATTERN_WEIGHT * parts.goalPattern;
}

/** The vector part: the mean of the cosines that apply (null: not applicable), each clamped at 0. */
export function vectorPart(cosines: ReadonlyArray<number | null>): number {
  const given = cosines.filter((value): value is number => value !== null);
  return given.length ? given.reduce((sum, value) => sum + Math.max(0, value), 0) / given.length : 0;
}

/** BM25 hits scaled so the best of the list is 1. */
export function scaleToBest(hits: ReadonlyArray<{ id: string; score: number }>): Map<string, number> {
  const best = hits.reduce((max, hit) => Math.max(max, hit.score), 0);
  return new Map(hits.map((hit) => [hit.id, best > 0 ? hit.score / best : 0]));
}
