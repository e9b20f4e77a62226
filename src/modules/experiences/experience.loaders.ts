import type DataLoader from 'dataloader';
import { createByIdLoader, createLoader, type LoaderSettings } from '../shared/loaders';
import type { ExperienceRepository } from './experience.repository';
import type { ExperienceDocument } from './experience.document';

export type ExperienceVectors = Pick<ExperienceDocument, 'experience_id' | 'embeddings' | 'embedding_model'>;

export interface ExperienceLoaders {
  /** Experiences (without vectors) by experience_id; null for an unknown id. */
  experienceById: DataLoader<string, ExperienceDocument | null, string>;
  /** Stored vectors and their model by experience_id; null for an unknown id. */
  experienceVectorsById: DataLoader<string, ExperienceVectors | null, string>;
  /** The experiences each experience_id replaced (`superseded_by` it), the earliest ended first. */
  supersededBy: DataLoader<string, ExperienceDocument[], string>;
}

/** Per-request loaders: every `load` in one tick becomes one `find` with `$in`. */
export function createExperienceLoaders(repository: ExperienceRepository, settings: LoaderSettings): ExperienceLoaders {
  const experienceId = (row: ExperienceVectors) => row.experience_id;
  return {
    experienceById: createByIdLoader(settings, (ids) => repository.findByIds(ids), experienceId),
    experienceVectorsById: createByIdLoader(settings, (ids) => repository.findVectorsByIds(ids), experienceId),
    supersededBy: createLoader<string, ExperienceDocument[], string>(settings, async (ids) => {
      const replaced = new Map<string, ExperienceDocument[]>(ids.map((id) => [id, []]));
      for (const document of await repository.findSupersededBy(ids))
        replaced.get(document.superseded_by as string)?.push(document);
      return ids.map((id) => replaced.get(id)!);
    }),
  };
}
