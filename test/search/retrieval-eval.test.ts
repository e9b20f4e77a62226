import { SLICES, buildEvalSet } from '../support/retrieval/corpus';
import { metrics } from '../support/retrieval/evaluate';

describe('retrieval evaluation set', () => {
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
});
