/**
 * The hybrid similarity of `similarTasks` (seed 002 "Similarity Search"; documented in the README), fused by the
 * search subsystem's `fuse` (a weighted sum of parts in [0, 1]):
 *
 *   vector      = mean over the given texts of max(0, cosine(query, task's originalQuery)) and
 *                 max(0, cosine(goal, task's goal))
 *   keyword     = normalised BM25 (min(1, bm25 / Σ idf of the query's terms)) of the query over the tasks' original
 *                 queries and of the goal over their goals (each text standing in for the other when only one is
 *                 given); the larger of the two
 *   goalPattern = goalPatternScore(template of goal (or query), task's goalPattern)       (1 when they unify)
 *   similarity  = 0.6 × vector + 0.2 × keyword + 0.2 × goalPattern
 *
 * Tasks below minSimilarity are dropped; ties go to the newer task.
 */
export const SIMILARITY_WEIGHTS = { vector: 0.6, keyword: 0.2, goalPattern: 0.2 } as const;

/** The vector part: the mean of the cosines that apply (null: not applicable), each clamped at 0. */
export function vectorPart(cosines: ReadonlyArray<number | null>): number {
  const given = cosines.filter((value): value is number => value !== null);
  return given.length ? given.reduce((sum, value) => sum + Math.max(0, value), 0) / given.length : 0;
}
