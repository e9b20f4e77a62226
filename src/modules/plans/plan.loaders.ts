import type DataLoader from 'dataloader';
import { createByIdLoader, type LoaderSettings } from '../shared/loaders';
import type { PlanPatternRepository } from './plan.repository';
import type { PlanPatternDocument } from './plan.document';

export interface PlanLoaders {
  /** Plan patterns (without vectors) by patternId; null for an unknown id. */
  planPatternById: DataLoader<string, PlanPatternDocument | null, string>;
}

/** Per-request loaders: every `load` in one tick becomes one `find` with `$in`. */
export function createPlanLoaders(repository: PlanPatternRepository, settings: LoaderSettings): PlanLoaders {
  return {
    planPatternById: createByIdLoader(
      settings,
      (ids) => repository.findByIds(ids),
      (row) => row.patternId,
    ),
  };
}
