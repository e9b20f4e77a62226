/**
 * Score fusion for hybrid search: a weighted sum of normalised part scores.
 *
 *   score(d) = Σ_i w_i · clamp(s_i(d), 0, 1) / Σ_i w_i
 *
 * over the lists i given (e.g. `vector` and `keyword`, w = 0.5 each), where s_i(d) is d's score in list
 * i, or 0 when d is not in it. Vector parts are cosines (negative ones count as 0); keyword parts are the normalised
 * BM25 scores of `searchKeyword`, already in [0, 1]. Dividing by Σ w keeps the result in [0, 1], so a caller's
 * threshold (e.g. `minSimilarity` 0.7) means the same whichever parts are present; with a single list the fused
 * score is that list's score. A weighted sum (rather than reciprocal-rank fusion) is used because its scores are
 * absolute similarities that can be thresholded, while RRF's only order results.
 *
 * Each fused hit keeps every part (its score in each list, null when absent) and the field of the part that
 * contributed most, so a result can say how it scored.
 */

/** One ranked list to fuse. */
export interface FusionList {
  /** Name of the part, e.g. `vector` or `keyword`: fused hits report this list's score under it. */
  name: string;
  /** Weight of the part (≥ 0); weights need not sum to 1. */
  weight: number;
  hits: ReadonlyArray<{ id: string; score: number; field?: string | null }>;
}

export interface FusedHit {
  id: string;
  /** The weighted sum, in [0, 1]. */
  score: number;
  /** Each list's own score for this hit (null when the list did not contain it), by list name. */
  parts: Record<string, number | null>;
  /** The field of the part with the largest weighted contribution (null when that part named none). */
  field: string | null;
}

export interface FusionOptions {
  /** Keep at most this many hits (best first). */
  limit?: number;
  /** Drop hits whose fused score is below this. */
  minScore?: number;
}

/**
 * Weights of hybrid search: equal. On the retrieval set (bench/retrieval, docs/retrieval.md), with stemmed and
 * synonym-expanded keywords, 0.5/0.5 ranked best of the weighted sums 0.5 to 0.8, min-max-normalised sums and
 * reciprocal-rank fusion on the tuning half, and on the held-out half too.
 */
export const HYBRID_WEIGHTS = { vector: 0.5, keyword: 0.5 } as const;

/** Fuses ranked lists into one ranking, best first (ties: smaller id first). See the module comment for the formula. */
export function fuse(lists: readonly FusionList[], options: FusionOptions = {}): FusedHit[] {
  const names = new Set<string>();
  for (const list of lists) {
    if (names.has(list.name)) throw new Error(`Fusion list ${JSON.stringify(list.name)} appears twice.`);
    if (!(list.weight >= 0) || !Number.isFinite(list.weight))
      throw new Error(`Fusion weight of ${JSON.stringify(list.name)} must be ≥ 0.`);
    names.add(list.name);
  }
  const totalWeight = lists.reduce((sum, list) => sum + list.weight, 0);
  const fused = new Map<string, FusedHit & { best: number }>();
  for (const list of lists) {
    for (const hit of list.hits) {
      let entry = fused.get(hit.id);
      if (!entry) {
        entry = {
          id: hit.id,
          score: 0,
          parts: Object.fromEntries(lists.map((l) => [l.name, null])),
          field: null,
          best: -1,
        };
        fused.set(hit.id, entry);
      }
      if (entry.parts[list.name] !== null && entry.parts[list.name]! >= hit.score) continue;
      entry.parts[list.name] = hit.score;
      const contribution = list.weight * clamp01(hit.score);
      if (contribution > entry.best) {
        entry.best = contribution;
        entry.field = hit.field ?? null;
      }
    }
  }
  const results: FusedHit[] = [];
  for (const { best: _best, ...entry } of fused.values()) {
    let sum = 0;
    for (const list of lists) sum += list.weight * clamp01(entry.parts[list.name] ?? 0);
    entry.score = totalWeight > 0 ? sum / totalWeight : 0;
    if (options.minScore === undefined || entry.score >= options.minScore) results.push(entry);
  }
  results.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return options.limit === undefined ? results : results.slice(0, options.limit);
}

function clamp01(value: number): number {
  return value <= 0 ? 0 : value >= 1 ? 1 : value;
}
