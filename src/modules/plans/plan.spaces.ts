import type { SpaceDefinition } from '../../search/space';
import type { ReembedTarget } from '../shared/reembed-target';
import { PLAN_PATTERNS_COLLECTION } from './plan.document';
import { PlanPatternRepository } from './plan.repository';

/** The search space over plan patterns: the vector and text of each pattern's example goal; filtered on successRate. */
export const PLAN_GOAL_SPACE: SpaceDefinition = {
  name: 'plan_patterns.exampleGoal',
  collection: PLAN_PATTERNS_COLLECTION,
  idField: 'patternId',
  vectorPath: 'embeddings.goal_embedding',
  textPaths: ['exampleGoal'],
  filterFields: ['successRate'],
};

/** The spaces for `deps.search.defineSpace`. */
export const PLAN_SPACES: readonly SpaceDefinition[] = [PLAN_GOAL_SPACE];

/** The field `reembed(collection: PLAN_PATTERNS)` rewrites. */
export const PLAN_PATTERNS_REEMBED_TARGET: ReembedTarget = {
  name: 'PLAN_PATTERNS',
  collection: PLAN_PATTERNS_COLLECTION,
  idField: 'patternId',
  fields: [{ textPath: 'exampleGoal', space: PLAN_GOAL_SPACE }],
  documents: (db) => new PlanPatternRepository(db).vectorDocuments(PLAN_PATTERNS_REEMBED_TARGET),
};
