import type { SpaceDefinition } from '../../search/space';
import type { ReembedTarget } from '../shared/reembed-target';
import { EXPERIENCE_FIELDS, EXPERIENCES_COLLECTION, ExperienceField, embeddingKey } from './experience.document';
import { ExperienceRepository } from './experience.repository';

/** The fields `ExperienceFilter` (and `similar`'s self-exclusion) filter on; Atlas needs them declared. */
const FILTER_FIELDS = [
  'experience_id',
  'initiating_agent_id',
  'workflow_id',
  'session_id',
  'user_id',
  'final_outcome',
  'tags',
  'involved_components',
  'timestamp',
  // Validity: a search that asks for current memories (or the store as of a time) filters on them.
  'valid_from',
  'valid_until',
  'superseded_by',
  'ended_reason',
  'expires_at',
] as const;

function space(field: ExperienceField): SpaceDefinition {
  return {
    name: `experiences.${field}`,
    collection: EXPERIENCES_COLLECTION,
    idField: 'experience_id',
    vectorPath: `embeddings.${embeddingKey(field)}`,
    textPaths: [field],
    filterFields: FILTER_FIELDS,
  };
}

/** One search space per embeddable field: its vector, and its text for keyword (BM25) scoring. */
export const EXPERIENCE_SPACES: Readonly<Record<ExperienceField, SpaceDefinition>> = {
  [ExperienceField.PRIMARY_GOAL]: space(ExperienceField.PRIMARY_GOAL),
  [ExperienceField.SUB_TASK]: space(ExperienceField.SUB_TASK),
  [ExperienceField.INPUT_CONTEXT]: space(ExperienceField.INPUT_CONTEXT),
  [ExperienceField.OUTPUT_SUMMARY]: space(ExperienceField.OUTPUT_SUMMARY),
};

/** The fields `reembed(collection: EXPERIENCES)` rewrites. */
export const EXPERIENCES_REEMBED_TARGET: ReembedTarget = {
  name: 'EXPERIENCES',
  collection: EXPERIENCES_COLLECTION,
  idField: 'experience_id',
  fields: EXPERIENCE_FIELDS.map((field) => ({ textPath: field, space: EXPERIENCE_SPACES[field] })),
  documents: (db) => new ExperienceRepository(db).vectorDocuments(EXPERIENCES_REEMBED_TARGET),
};
