import type { SpaceDefinition } from '../../search/space';
import type { ReembedTarget } from '../admin/reembed.target';
import { PLAN_PATTERNS_COLLECTION } from './plan.type';

/** The search space over plan patterns: the vector and text of each pattern's example goal. */
export const PLAN_GOAL_SPACE = 'plan_patterns.exampleGoal';
export const PLAN_GOAL_VECTOR_PATH = 'embeddings.goal_embedding';

/** The field `reembed(collection: PLAN_PATTERNS)` rewrites. */
export const PLAN_PATTERNS_REEMBED_TARGET: ReembedTarget = {
  collection: PLAN_PATTERNS_COLLECTION,
  idField: 'patternId',
  fields: [{ textPath: 'exampleGoal', vectorPath: PLAN_GOAL_VECTOR_PATH, space: PLAN_GOAL_SPACE }],
};

/** The space's definition for the search subsystem (`deps.search.defineSpace`). */
export const PLAN_SPACES: SpaceDefinition[] = [
  {
    name: PLAN_GOAL_SPACE,
    collection: PLAN_PATTERNS_COLLECTION,
    idField: 'patternId',
    vectorPath: PLAN_GOAL_VECTOR_PATH,
    textPaths: ['exampleGoal'],
    filterFields: ['successRate'],
  },
];
