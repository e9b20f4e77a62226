import DataLoader from 'dataloader';
import type { ExperienceRepository } from './experience.repository';
import type { ExperienceDocument } from './experience.type';

export type ExperienceVectors = Pick<ExperienceDocument, 'experience_id' | 'embeddings' | 'embedding_model'>;

export interface ExperienceLoaders {
  /** Experiences (without vectors) by experience_id; null for an unknown id. */
  experienceById: DataLoader<string, ExperienceDocument | null, string>;
  /** Stored vectors and their model by experience_id; null for an unknown id. */
  experienceVectorsById: DataLoader<string, ExperienceVectors | null, string>;
}

/** Returns one row per key, in key order, null for a miss (the DataLoader contract). */
function byKey<T extends { experience_id: string }>(keys: readonly string[], rows: T[]): (T | null)[] {
  const found = new Map(rows.map((row) => [row.experience_id, row]));
  return keys.map((key) => found.get(key) ?? null);
}

/** Per-request loaders: every `load` in one tick becomes one `find` with `$in`. */
export function createExperienceLoaders(repository: ExperienceRepository): ExperienceLoaders {
  return {
    experienceById: new DataLoader(async (ids) => byKey(ids, await repository.findByIds(ids))),
    experienceVectorsById: new DataLoader(async (ids) => byKey(ids, await repository.findVectorsByIds(ids))),
  };
}
