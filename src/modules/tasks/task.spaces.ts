import type { SpaceDefinition } from '../../search/space';
import type { ReembedTarget } from '../shared/reembed-target';
import { TASKS_COLLECTION } from './task.document';
import { TaskRepository } from './task.repository';

/**
 * Two search spaces over `tasks`: the vector and the text (for BM25) of the original query, and of the goal.
 * similarTasks filters on status and user inside each space's search, before the limit, and on the expiry when
 * dropping the expired hits left a page short.
 */
export const TASK_QUERY_SPACE: SpaceDefinition = {
  name: 'tasks.originalQuery',
  collection: TASKS_COLLECTION,
  idField: 'taskId',
  vectorPath: 'embeddings.originalQuery_embedding',
  textPaths: ['originalQuery'],
  filterFields: ['status', 'user_id', 'expires_at'],
};

export const TASK_GOAL_SPACE: SpaceDefinition = {
  name: 'tasks.goal',
  collection: TASKS_COLLECTION,
  idField: 'taskId',
  vectorPath: 'embeddings.goal_embedding',
  textPaths: ['goal'],
  filterFields: ['status', 'user_id', 'expires_at'],
};

/** The spaces for `deps.search.defineSpace`. */
export const TASK_SPACES: readonly SpaceDefinition[] = [TASK_QUERY_SPACE, TASK_GOAL_SPACE];

/** The fields `reembed(collection: TASKS)` rewrites. */
export const TASKS_REEMBED_TARGET: ReembedTarget = {
  name: 'TASKS',
  collection: TASKS_COLLECTION,
  idField: 'taskId',
  fields: [
    { textPath: 'originalQuery', space: TASK_QUERY_SPACE },
    { textPath: 'goal', space: TASK_GOAL_SPACE },
  ],
  documents: (db) => new TaskRepository(db).vectorDocuments(TASKS_REEMBED_TARGET),
};
