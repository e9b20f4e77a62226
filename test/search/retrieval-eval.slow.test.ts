import { HashEmbeddingProvider } from '../../src/embeddings/hash.provider';
import { buildEvalSet, type EvalSet } from '../support/retrieval/corpus';
import { MODES, evaluate } from '../support/retrieval/evaluate';

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

describe('retrieval evaluation (npm run eval:retrieval)', () => {
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
    expect(Object.keys(results).filter((key) => key.startsWith('fusion.')).length).toBeGreaterThanOrEqual(3);
    expect(results['tasks.similarTasks'].all.queries).toBe(5);
  }, 120_000);
});
