import type { ReembedTarget } from '../admin/reembed.target';
import { EXPERIENCE_FIELDS, EXPERIENCES_COLLECTION, embeddingKey, type ExperienceField } from './experience.type';

/** One search space per embeddable field: its vector, and its text for keyword (BM25) scoring. */
export function experienceSpaceName(field: ExperienceField): string {
  return `experiences.${field}`;
}

export function experienceVectorPath(field: ExperienceField): string {
  return `embeddings.${embeddingKey(field)}`;
}

/** The fields `reembed(collection: EXPERIENCES)` rewrites. */
export const EXPERIENCES_REEMBED_TARGET: ReembedTarget = {
  collection: EXPERIENCES_COLLECTION,
  idField: 'experience_id',
  fields: EXPERIENCE_FIELDS.map((field) => ({
    textPath: field,
    vectorPath: experienceVectorPath(field),
    space: experienceSpaceName(field),
  })),
};
