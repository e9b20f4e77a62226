import DataLoader from 'dataloader';
import type { TaskRepository } from './task.repository';
import type { TaskDocument } from './task.type';

export interface TaskLoaders {
  /** Tasks (without vectors) by taskId; null for an unknown id. */
  taskById: DataLoader<string, TaskDocument | null, string>;
}

/** Per-request loaders: every `load` in one tick becomes one `find` with `$in`. */
export function createTaskLoaders(repository: TaskRepository): TaskLoaders {
  return {
    taskById: new DataLoader(async (ids) => {
      const found = new Map((await repository.findByIds(ids)).map((row) => [row.taskId, row]));
      return ids.map((id) => found.get(id) ?? null);
    }),
  };
}
