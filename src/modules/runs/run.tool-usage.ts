import type { LearningService } from '../tasks/task.learning.service';
import type { TaskRepository, ToolUsageTask } from '../tasks/task.repository';
import type { TaskService } from '../tasks/task.service';
import { taskGoalPattern } from '../tasks/task.type';
import { MAX_ID_LENGTH } from '../tasks/task.validation';
import type { ToolExecution } from '../tools/tool.aggregation';
import { toolExecutions, truncate } from './run.validation';

/** Tool executions derived on read from tasks, and when the latest of them was recorded (null: none). */
export interface DerivedToolExecutions {
  executions: ToolExecution[];
  lastRun: Date | null;
}

/**
 * One user's executions of a tool as tool performance counted them, oldest task first: the calls of their tasks'
 * recorded actions (in the context recordAction gave them) and the plan steps learnFromTask counted from their tasks;
 * with when the latest of them was recorded. What `toolPerformance(userId)` is computed from (see ToolService).
 */
export async function userToolExecutions(
  tasks: TaskRepository,
  learning: LearningService,
  userId: string,
  toolName: string,
): Promise<DerivedToolExecutions> {
  return tasksToolExecutions(await tasks.toolUsage(userId, toolName), learning, toolName);
}

/**
 * The executions of `toolName` (null: of every tool) in the `k` past tasks most similar to `text` (of `userId` when
 * given; at least `minSimilarity` similar), counted as for `userToolExecutions`: what `toolPerformance(similarTo, k)`
 * and recall's tool warnings are computed from.
 */
export async function similarTaskToolExecutions(
  taskService: TaskService,
  tasks: TaskRepository,
  learning: LearningService,
  query: { text: string; k: number; userId?: string; minSimilarity?: number },
  toolName: string | null,
): Promise<DerivedToolExecutions & { taskCount: number }> {
  const similar = await taskService.mostSimilar(query.text, query.k, query.userId, query.minSimilarity);
  const found = await tasks.toolUsageOfTasks(similar.map((task) => task.taskId));
  return { ...(await tasksToolExecutions(found, learning, toolName)), taskCount: found.length };
}

/** The executions of `toolName` (null: every tool) the tasks hold, in their order (see `userToolExecutions`). */
async function tasksToolExecutions(
  found: ToolUsageTask[],
  learning: LearningService,
  toolName: string | null,
): Promise<DerivedToolExecutions> {
  const executions: ToolExecution[] = [];
  let lastRun: Date | null = null;
  const ranAt = (at: unknown) => {
    if (at instanceof Date && (lastRun === null || at > lastRun)) lastRun = at;
  };
  // Every task's step executions at once: their named plans load in one batch.
  const steps = await Promise.all(found.map((task) => learning.countedStepExecutions(task, toolName)));
  found.forEach((task, i) => {
    const context = truncate(task.context ?? taskGoalPattern(task), MAX_ID_LENGTH).text;
    for (const action of Array.isArray(task.actions) ? task.actions : []) {
      const calls = (Array.isArray(action?.tool_calls) ? action.tool_calls : [])
        .filter((call) => typeof call?.name === 'string' && (toolName === null || call.name === toolName))
        .map((call) => ({ ...call, result: typeof call.result === 'string' ? call.result : '' }));
      if (!calls.length) continue;
      executions.push(...toolExecutions({ tool_calls: calls }, context, task.taskId));
      ranAt(action.timestamp);
    }
    executions.push(...steps[i]);
    if (steps[i].length) ranAt(task.learning?.learnedAt ?? task.learning?.claimedAt);
  });
  return { executions, lastRun };
}
