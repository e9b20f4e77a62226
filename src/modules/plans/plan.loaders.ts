import DataLoader from 'dataloader';
import type { PlanPatternRepository } from './plan.repository';
import type { PlanPatternDocument } from './plan.type';

export interface PlanLoaders {
  /** Plan patterns (without vectors) by patternId; null for an unknown id. */
  planPatternById: DataLoader<string, PlanPatternDocument | null, string>;
}

/** Per-request loaders: every `load` in one tick becomes one `find` with `$in`. */
export function createPlanLoaders(repository: PlanPatternRepository): PlanLoaders {
  return {
    planPatternById: new DataLoader(async (ids) => {
      const found = new Map((await repository.findByIds(ids)).map((row) => [row.patternId, row]));
      return ids.map((id) => found.get(id) ?? null);
    }),
  };
}
