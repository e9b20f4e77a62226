import type { EmbeddingProvider } from '../../../src/embeddings/provider';
import { nameTheSameThings, normalizeForDedupe } from '../../../src/modules/experiences/experience.dedupe';
import type { GoalPair } from '../fixtures/dedupe-pairs';

/** A candidate threshold's figures on a labelled set: a pair merges when its goals normalise alike or score ≥ it. */
export interface ThresholdRow {
  threshold: number;
  /** Same-memory pairs merged. */
  truePositives: number;
  /** Different tasks merged: each would lose a memory. */
  falsePositives: number;
  /** Same-memory pairs kept apart: a copy stored. */
  falseNegatives: number;
  precision: number;
  recall: number;
}

/** Each pair's cosine similarity with the provider (its vectors are unit length), in the set's order. */
export async function pairScores(provider: EmbeddingProvider, pairs: readonly GoalPair[]): Promise<number[]> {
  const texts = [...new Set(pairs.flatMap((pair) => [pair.a, pair.b]))];
  const vectors = new Map((await provider.embed(texts)).map((vector, i) => [texts[i], vector]));
  return pairs.map((pair) => {
    const [a, b] = [vectors.get(pair.a)!, vectors.get(pair.b)!];
    let dot = 0;
    for (let i = 0; i < a.length; i++) dot += a[i] * b[i];
    return dot;
  });
}

/** The merge decision's precision and recall on the set at each threshold. */
export function thresholdTable(
  pairs: readonly GoalPair[],
  scores: number[],
  thresholds: number[],
  guarded = true,
): ThresholdRow[] {
  const named = pairs.map((pair) => !guarded || nameTheSameThings(pair.a, pair.b));
  return thresholds.map((threshold) => {
    let truePositives = 0;
    let falsePositives = 0;
    let falseNegatives = 0;
    pairs.forEach((pair, i) => {
      const merged = normalizeForDedupe(pair.a) === normalizeForDedupe(pair.b) || (scores[i] >= threshold && named[i]);
      if (merged && pair.same) truePositives++;
      else if (merged) falsePositives++;
      else if (pair.same) falseNegatives++;
    });
    const precision = truePositives + falsePositives === 0 ? 1 : truePositives / (truePositives + falsePositives);
    return {
      threshold,
      truePositives,
      falsePositives,
      falseNegatives,
      precision,
      recall: truePositives / (truePositives + falseNegatives),
    };
  });
}

export const CANDIDATE_THRESHOLDS = [0.7, 0.75, 0.8, 0.82, 0.84, 0.85, 0.86, 0.88, 0.9, 0.92, 0.94, 0.96, 0.98];
