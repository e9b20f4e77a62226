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
