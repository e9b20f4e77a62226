import type { SpaceDefinition } from '../../search/space';
import type { ReembedTarget } from '../admin/reembed.target';
import { EXPERIENCE_FIELDS, EXPERIENCES_COLLECTION, ExperienceField, embeddingKey } from './experience.type';

/** The fields `ExperienceFilter` (and `similar`'s self-exclusion) filter on; Atlas needs them declared. */
const FILTER_FIELDS = [
  'experience_id',
  'initiating_agent_id',
  'workflow_id',
  'session_id',
  'final_outcome',
  'tags',
  'involved_components',
  'timestamp',
] as const;

/** One search space per embeddable field: its vector, and its text for keyword (BM25) scoring. */
export const EXPERIENCE_SPACES: Readonly<Record<ExperienceField, SpaceDefinition>> = Object.fromEntries(
  EXPERIENCE_FIELDS.map((field) => [
    field,
    {
      name: `experiences.${field}`,
      collection: EXPERIENCES_COLLECTION,
      idField: 'experience_id',
      vectorPath: `embeddings.${embeddingKey(field)}`,
      textPaths: [field],
      filterFields: FILTER_FIELDS,
    },
  ]),
) as Record<ExperienceField, SpaceDefinition>;

/** The fields `reembed(collection: EXPERIENCES)` rewrites. */
export const EXPERIENCES_REEMBED_TARGET: ReembedTarget = {
  collection: EXPERIENCES_COLLECTION,
  idField: 'experience_id',
  fields: EXPERIENCE_FIELDS.map((field) => ({
    textPath: field,
    vectorPath: EXPERIENCE_SPACES[field].vectorPath,
    space: EXPERIENCE_SPACES[field].name,
  })),
};
