import { HashEmbeddingProvider } from '../../src/embeddings/hash.provider';
import { SLICES, buildEvalSet, type EvalSet } from '../../bench/retrieval/corpus';
import { MODES, evaluate, metrics } from '../../bench/retrieval/eval';

/** A slice of the set: one query per slice and its targets among the first 150 records of each corpus. */
function smallSet(): EvalSet {
  const set = buildEvalSet(1);
  const keep = <T extends { id: string }>(records: T[], targets: string[]) =>
    records.filter((record, i) => i < 150 || targets.includes(record.id));
  return {
    ...set,
    experiences: keep(
      set.experiences,
      set.experienceQueries.map((q) => q.target),
    ),
    tasks: keep(
      set.tasks,
      set.taskQueries.map((q) => q.target),
    ),
  };
}

describe('retrieval evaluation', () => {
  it('builds 3,200 experiences and tasks, 200 queries each, every slice in both halves', () => {
    const set = buildEvalSet();
    expect(set.experiences).toHaveLength(3200);
    expect(set.tasks).toHaveLength(3200);
    for (const queries of [set.experienceQueries, set.taskQueries]) {
      expect(queries).toHaveLength(200);
      expect(new Set(queries.map((q) => q.target)).size).toBe(200);
      for (const slice of SLICES)
        for (const half of ['tuning', 'held-out'])
          expect(queries.filter((q) => q.slice === slice && q.half === half)).toHaveLength(20);
    }
    // Queries are not copies of their target's goal.
    const goals = new Map(set.experiences.map((e) => [e.id, e.primaryGoalDescription.toLowerCase()]));
    for (const q of set.experienceQueries) expect(goals.get(q.target)).not.toBe(q.text.toLowerCase());
  });

  it('computes hit@1, hit@3 and MRR from ranks', () => {
    expect(metrics([1, 2, 4, null])).toEqual({ queries: 4, hit1: 0.25, hit3: 0.5, mrr: 0.438 });
  });

  it('records a slice through the API and ranks its queries in every mode', async () => {
    const set = smallSet();
    // A query that copies its target's goal must rank it first in every mode.
    const target = set.experiences[7];
    set.experienceQueries.push({
      text: target.primaryGoalDescription,
      slice: 'short',
      half: 'tuning',
      target: target.id,
    });
    const results = await evaluate(set, new HashEmbeddingProvider(384));
    for (const mode of MODES) {
      const rows = results[`experiences.${mode}`];
      expect(rows.all.queries).toBe(6);
      expect(rows.short.queries).toBe(2);
      expect(rows.short.hit1).toBeGreaterThanOrEqual(0.5);
    }
    expect(results['tasks.similarTasks'].all.queries).toBe(5);
  }, 60_000);
});
