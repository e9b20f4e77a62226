import type { SpaceDefinition } from '../../search/space';
import type { ReembedTarget } from '../admin/reembed.target';
import { TASKS_COLLECTION } from './task.type';

/**
 * Two search spaces over `tasks`: the vector and the text (for BM25) of the original query, and of the goal.
 * Filters of similarTasks (status) are applied inside each space's search, before the limit.
 */
export const TASK_QUERY_SPACE = 'tasks.originalQuery';
export const TASK_GOAL_SPACE = 'tasks.goal';

export const TASK_QUERY_VECTOR_PATH = 'embeddings.originalQuery_embedding';
export const TASK_GOAL_VECTOR_PATH = 'embeddings.goal_embedding';

/** The fields `reembed(collection: TASKS)` rewrites. */
export const TASKS_REEMBED_TARGET: ReembedTarget = {
  collection: TASKS_COLLECTION,
  idField: 'taskId',
  fields: [
    { textPath: 'originalQuery', vectorPath: TASK_QUERY_VECTOR_PATH, space: TASK_QUERY_SPACE },
    { textPath: 'goal', vectorPath: TASK_GOAL_VECTOR_PATH, space: TASK_GOAL_SPACE },
  ],
};

/** The spaces' definitions for the search subsystem (`deps.search.defineSpace`). */
export const TASK_SPACES: SpaceDefinition[] = [
  { name: TASK_QUERY_SPACE, collection: TASKS_COLLECTION, idField: 'taskId', vectorPath: TASK_QUERY_VECTOR_PATH, textPaths: ['originalQuery'], filterFields: ['status'] },
  { name: TASK_GOAL_SPACE, collection: TASKS_COLLECTION, idField: 'taskId', vectorPath: TASK_GOAL_VECTOR_PATH, textPaths: ['goal'], filterFields: ['status'] },
];
