/**
 * Keyword-side variants on the retrieval set (`node dist/bench/retrieval/keyword.js`; no embeddings, seconds): KEYWORD
 * hit@1, hit@3 and MRR of the experience queries per half for
 * - `max of fields`: the best single-field BM25 of a document (what searchExperiences does: one index per field),
 * - `bm25f g/s/c/o`: BM25F over the four fields (goal, sub-task, input context, output) with those field weights,
 *   each field length-normalised against its own mean (Robertson & Zaragoza's BM25F),
 * each at several synonym weights. The analysis is the project's (keywordTerms, queryTerms); the scorer is
 * exhaustive and written here, as a prototype, so that field weights can be compared before the index has them.
 */
import 'reflect-metadata';
import { BM25 } from '../../src/search/bm25';
import { keywordTerms, queryTerms } from '../../src/search/tokenize';
import { buildEvalSet, type EvalQuery } from '../../test/support/retrieval/corpus';
import { metrics } from '../../test/support/retrieval/evaluate';

const FIELDS = ['primaryGoalDescription', 'subTaskDescription', 'inputContextSummary', 'outputSummary'] as const;
const WEIGHTS: Record<string, number[]> = {
  '1/1/1/1': [1, 1, 1, 1],
  '1/0.5/0.5/0.5': [1, 0.5, 0.5, 0.5],
  '2/0.5/0.5/1': [2, 0.5, 0.5, 1],
  '3/0.5/0.5/1': [3, 0.5, 0.5, 1],
  '3/1/0.5/0.5': [3, 1, 0.5, 0.5],
};

function main(): void {
  const set = buildEvalSet(Number(process.env.RETRIEVAL_PER_SLICE ?? 40));
  const { k1, b } = BM25;
  // Per term: (document, field, tf normalised by the field's length).
  const fieldTerms = set.experiences.map((e) => FIELDS.map((f) => keywordTerms(e[f])));
  const mean = FIELDS.map((_, f) => fieldTerms.reduce((sum, d) => sum + d[f].length, 0) / fieldTerms.length);
  const postings = new Map<string, Array<[document: number, field: number, tf: number]>>();
  fieldTerms.forEach((fields, d) =>
    fields.forEach((terms, f) => {
      const counts = new Map<string, number>();
      for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
      for (const [term, tf] of counts) {
        if (!postings.has(term)) postings.set(term, []);
        postings.get(term)!.push([d, f, tf / (1 - b + (b * terms.length) / mean[f])]);
      }
    }),
  );
  const n = set.experiences.length;
  const idfOf = (df: number) => Math.log(1 + (n - df + 0.5) / (df + 0.5));
  // Document frequency over all fields (BM25F) and per field (one index per field).
  const df = new Map<string, number>();
  const fieldDf = new Map<string, number[]>();
  for (const [term, list] of postings) {
    df.set(term, new Set(list.map(([d]) => d)).size);
    const perField = FIELDS.map(() => 0);
    for (const [, f] of list) perField[f]++;
    fieldDf.set(term, perField);
  }
  const idf = (term: string) => idfOf(df.get(term) ?? 0);
  const fieldIdf = (term: string, f: number) => idfOf(fieldDf.get(term)?.[f] ?? 0);
  const saturate = (tf: number) => (tf * (k1 + 1)) / (tf + k1);

  /** The target's 1-based rank in the top 10 (null: not there) under `score(document terms) → number`. */
  const rankOf = (q: EvalQuery, scores: Map<number, number>) => {
    const ordered = [...scores].sort((x, y) => y[1] - x[1] || x[0] - y[0]).slice(0, 10);
    const i = ordered.findIndex(([d]) => set.experiences[d].id === q.target);
    return i === -1 ? null : i + 1;
  };
  const variants: Record<string, (q: EvalQuery, synonymWeight: number) => Map<number, number>> = {
    'max of fields': (q, w) => {
      const perField = FIELDS.map(() => new Map<number, number>());
      for (const { term, weight } of queryTerms(q.text, w))
        for (const [d, f, tf] of postings.get(term) ?? [])
          perField[f].set(d, (perField[f].get(d) ?? 0) + weight * fieldIdf(term, f) * saturate(tf));
      const best = new Map<number, number>();
      const norm = FIELDS.map((_, f) =>
        queryTerms(q.text, w)
          .filter((t) => t.weight === 1)
          .reduce((sum, t) => sum + fieldIdf(t.term, f), 0),
      );
      perField.forEach((scores, f) => {
        for (const [d, s] of scores) best.set(d, Math.max(best.get(d) ?? 0, Math.min(1, s / norm[f])));
      });
      return best;
    },
    ...Object.fromEntries(
      Object.entries(WEIGHTS).map(([name, weights]) => [
        `bm25f ${name}`,
        (q: EvalQuery, w: number) => {
          const scores = new Map<number, number>();
          for (const { term, weight } of queryTerms(q.text, w)) {
            const tf = new Map<number, number>();
            for (const [d, f, t] of postings.get(term) ?? []) tf.set(d, (tf.get(d) ?? 0) + weights[f] * t);
            const termIdf = weight * idf(term);
            for (const [d, t] of tf) scores.set(d, (scores.get(d) ?? 0) + termIdf * saturate(t));
          }
          return scores;
        },
      ]),
    ),
  };
  console.log('variant              synonyms  tuning hit@1 hit@3 MRR   held-out hit@1 hit@3 MRR');
  const queries = set.experienceQueries;
  for (const [name, score] of Object.entries(variants))
    for (const w of [0, 0.3, 0.5]) {
      const ranks = queries.map((q) => rankOf(q, score(q, w)));
      const half = (h: string) => metrics(ranks.filter((_, i) => queries[i].half === h));
      const row = (m: { hit1: number; hit3: number; mrr: number }) =>
        `${m.hit1.toFixed(3)} ${m.hit3.toFixed(3)} ${m.mrr.toFixed(3)}`;
      console.log(`${name.padEnd(21)}${String(w).padEnd(10)}${row(half('tuning'))}   ${row(half('held-out'))}`);
    }
}

main();
