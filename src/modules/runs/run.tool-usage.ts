import type { LearningService } from '../tasks/task.learning.service';
import type { TaskRepository } from '../tasks/task.repository';
import { taskGoalPattern } from '../tasks/task.type';
import { MAX_ID_LENGTH } from '../tasks/task.validation';
import type { ToolExecution } from '../tools/tool.aggregation';
import { toolExecutions, truncate } from './run.validation';

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
): Promise<{ executions: ToolExecution[]; lastRun: Date | null }> {
  const found = await tasks.toolUsage(userId, toolName);
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
        .filter((call) => call?.name === toolName)
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
