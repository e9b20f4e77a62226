import type DataLoader from 'dataloader';
import { createByIdLoader, type LoaderSettings } from '../shared/loaders';
import type { ExperienceRepository } from './experience.repository';
import type { ExperienceDocument } from './experience.document';

export type ExperienceVectors = Pick<ExperienceDocument, 'experience_id' | 'embeddings' | 'embedding_model'>;

export interface ExperienceLoaders {
  /** Experiences (without vectors) by experience_id; null for an unknown id. */
  experienceById: DataLoader<string, ExperienceDocument | null, string>;
  /** Stored vectors and their model by experience_id; null for an unknown id. */
  experienceVectorsById: DataLoader<string, ExperienceVectors | null, string>;
}

/** Per-request loaders: every `load` in one tick becomes one `find` with `$in`. */
export function createExperienceLoaders(repository: ExperienceRepository, settings: LoaderSettings): ExperienceLoaders {
  const experienceId = (row: ExperienceVectors) => row.experience_id;
  return {
    experienceById: createByIdLoader(settings, (ids) => repository.findByIds(ids), experienceId),
    experienceVectorsById: createByIdLoader(settings, (ids) => repository.findVectorsByIds(ids), experienceId),
  };
}
