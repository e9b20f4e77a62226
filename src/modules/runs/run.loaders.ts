import type DataLoader from 'dataloader';
import { createByIdLoader, createLoader, type LoaderSettings } from '../shared/loaders';
import type { ActionDocument } from '../tasks/task.document';
import type { CompressionAction, StoredActions, TaskRepository } from '../tasks/task.repository';

export interface RunLoaders {
  /**
   * A page of a task's actions by `actionsKey(taskId, fromIteration, limit)`; null for an unknown task. Loads of one
   * tick with the same page become one aggregation.
   */
  actionsPage: DataLoader<string, StoredActions<ActionDocument> | null, string>;
  /** The tool calls of a task's actions (what `attempts` reads), by taskId; null for an unknown task. */
  actionToolCalls: DataLoader<string, StoredActions<CompressionAction> | null, string>;
}

/** The cache key of a page of actions. */
export function actionsKey(taskId: string, fromIteration: number, limit: number): string {
  return JSON.stringify([taskId, fromIteration, limit]);
}

export function createRunLoaders(repository: TaskRepository, settings: LoaderSettings): RunLoaders {
  return {
    actionsPage: createLoader(settings, async (keys) => {
      // One aggregation per distinct page (fromIteration, limit) asked for in this tick.
      const pages = new Map<string, { fromIteration: number; limit: number; taskIds: string[] }>();
      for (const key of keys) {
        const [taskId, fromIteration, limit] = JSON.parse(key) as [string, number, number];
        const page = `${fromIteration}:${limit}`;
        if (!pages.has(page)) pages.set(page, { fromIteration, limit, taskIds: [] });
        pages.get(page)!.taskIds.push(taskId);
      }
      const found = new Map<string, StoredActions<ActionDocument>>();
      await Promise.all(
        [...pages.values()].map(async ({ fromIteration, limit, taskIds }) => {
          for (const row of await repository.actionsPage(taskIds, fromIteration, limit)) {
            found.set(actionsKey(row.taskId, fromIteration, limit), row);
          }
        }),
      );
      return keys.map((key) => found.get(key) ?? null);
    }),
    actionToolCalls: createByIdLoader(
      settings,
      (ids) => repository.toolCalls(ids),
      (row) => row.taskId,
    ),
  };
}
