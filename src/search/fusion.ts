/**
 * Score fusion for hybrid search. Every fused hit's `score` is the weighted sum of its normalised part scores,
 *
 *   score(d) = Σ_i w_i · clamp(s_i(d), 0, 1) / Σ_i w_i
 *
 * over the lists i given (e.g. `vector` and `keyword`, w = 0.5 each), where s_i(d) is d's score in list
 * i, or 0 when d is not in it. Vector parts are cosines (negative ones count as 0); keyword parts are the normalised
 * BM25 scores of `searchKeyword`, already in [0, 1]. Dividing by Σ w keeps the result in [0, 1], so a caller's
 * threshold (e.g. `minSimilarity` 0.7) means the same whichever parts are present; with a single list the fused
 * score is that list's score.
 *
 * The order is the {@link FusionMethod}'s: the weighted sum itself (the default), or a variant that rescales each
 * list over its own hits first (min-max, z-score) or uses ranks only (reciprocal-rank fusion). Those variants' values
 * depend on the other results, so they only order hits: thresholds (`minScore`) always apply to the absolute
 * weighted sum above, and mean the same whatever the method.
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

/**
 * How fused hits are ordered (each list weighted by its weight w_i, a hit absent from a list getting nothing from it):
 * - `weighted`: the weighted sum `score` itself;
 * - `min-max`: Σ w_i · (s_i − min_i) / (max_i − min_i), min and max over list i's hits;
 * - `z-score`: Σ w_i · (s_i − mean_i) / sd_i over list i's hits, an absent hit counting as min_i;
 * - `rrf`: Σ w_i / (k + rank_i), rank_i the hit's 1-based rank in list i.
 */
export type FusionMethod =
  { kind: 'weighted' } | { kind: 'min-max' } | { kind: 'z-score' } | { kind: 'rrf'; k: number };

export interface FusionOptions {
  /** Keep at most this many hits (best first). */
  limit?: number;
  /** Drop hits whose fused score (the weighted sum) is below this. */
  minScore?: number;
  /** The order of the hits (default {@link HYBRID_FUSION}). */
  method?: FusionMethod;
}

/**
 * Weights of hybrid search: equal. On the retrieval set (bench/retrieval, docs/retrieval.md) the variants that beat
 * them on the tuning half (weights 0.4/0.6, z-scores, min-max) did not on the held-out half.
 */
export const HYBRID_WEIGHTS = { vector: 0.5, keyword: 0.5 } as const;

/** The order of hybrid search: the weighted sum (see {@link HYBRID_WEIGHTS} for how it was chosen). */
export const HYBRID_FUSION: FusionMethod = { kind: 'weighted' };

/** Fuses ranked lists into one ranking, best first (ties: smaller id first). See the module comment for the formula. */
export function fuse(lists: readonly FusionList[], options: FusionOptions = {}): FusedHit[] {
  const names = new Set<string>();
  for (const list of lists) {
    if (names.has(list.name)) throw new Error(`Fusion list ${JSON.stringify(list.name)} appears twice.`);
    if (!(list.weight >= 0) || !Number.isFinite(list.weight))
      throw new Error(`Fusion weight of ${JSON.stringify(list.name)} must be ≥ 0.`);
    names.add(list.name);
  }
  const method = options.method ?? HYBRID_FUSION;
  const totalWeight = lists.reduce((sum, list) => sum + list.weight, 0);
  const value = lists.map((list) => partValue(list, method));
  const fused = new Map<string, { hit: FusedHit; fields: Array<string | null> }>();
  lists.forEach((list, l) => {
    for (const hit of list.hits) {
      let entry = fused.get(hit.id);
      if (!entry) {
        entry = {
          hit: {
            id: hit.id,
            score: 0,
            parts: Object.fromEntries(lists.map((other) => [other.name, null])),
            field: null,
          },
          fields: lists.map(() => null),
        };
        fused.set(hit.id, entry);
      }
      const seen = entry.hit.parts[list.name];
      if (seen !== null && seen >= hit.score) continue;
      entry.hit.parts[list.name] = hit.score;
      entry.fields[l] = hit.field ?? null;
    }
  });
  const results: Array<{ hit: FusedHit; order: number }> = [];
  for (const { hit: entry, fields } of fused.values()) {
    let sum = 0;
    let order = 0;
    let best = -Infinity;
    lists.forEach((list, l) => {
      const part = entry.parts[list.name];
      sum += list.weight * clamp01(part ?? 0);
      const contribution = list.weight * value[l](part);
      order += contribution;
      if (part !== null && contribution > best) {
        best = contribution;
        entry.field = fields[l];
      }
    });
    entry.score = totalWeight > 0 ? sum / totalWeight : 0;
    if (options.minScore === undefined || entry.score >= options.minScore) results.push({ hit: entry, order });
  }
  results.sort((a, b) => b.order - a.order || (a.hit.id < b.hit.id ? -1 : a.hit.id > b.hit.id ? 1 : 0));
  const kept = options.limit === undefined ? results : results.slice(0, options.limit);
  return kept.map(({ hit }) => hit);
}

/** A list's part of the order for a hit with part score `score` (null: absent from the list), before its weight. */
function partValue(list: FusionList, method: FusionMethod): (score: number | null) => number {
  if (method.kind === 'weighted') return (score) => clamp01(score ?? 0);
  const scores = list.hits.map((hit) => hit.score);
  switch (method.kind) {
    case 'min-max': {
      const low = scores.reduce((a, b) => Math.min(a, b), Infinity);
      const span = scores.reduce((a, b) => Math.max(a, b), -Infinity) - low;
      return (score) => (score === null ? 0 : span > 0 ? (score - low) / span : 1);
    }
    case 'z-score': {
      const mean = scores.reduce((sum, s) => sum + s, 0) / (scores.length || 1);
      const sd = Math.sqrt(scores.reduce((sum, s) => sum + (s - mean) ** 2, 0) / (scores.length || 1));
      const low = scores.reduce((a, b) => Math.min(a, b), Infinity);
      return (score) => (sd > 0 ? ((score ?? low) - mean) / sd : 0);
    }
    case 'rrf': {
      // Equal scores share the better rank.
      const rank = new Map<number, number>();
      [...scores].sort((a, b) => b - a).forEach((s, i) => rank.has(s) || rank.set(s, i + 1));
      return (score) => (score === null ? 0 : 1 / (method.k + rank.get(score)!));
    }
  }
}

function clamp01(value: number): number {
  return value <= 0 ? 0 : value >= 1 ? 1 : value;
}
