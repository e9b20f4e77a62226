import type DataLoader from 'dataloader';
import { createByIdLoader, type LoaderSettings } from '../shared/loaders';
import type { TaskRepository } from './task.repository';
import type { TaskDocument } from './task.document';

export interface TaskLoaders {
  /** Tasks (without vectors) by taskId; null for an unknown id. */
  taskById: DataLoader<string, TaskDocument | null, string>;
}

/** Per-request loaders: every `load` in one tick becomes one `find` with `$in`. */
export function createTaskLoaders(repository: TaskRepository, settings: LoaderSettings): TaskLoaders {
  return {
    taskById: createByIdLoader(
      settings,
      (ids) => repository.findByIds(ids),
      (row) => row.taskId,
    ),
  };
}
