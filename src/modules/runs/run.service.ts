import { randomUUID } from 'node:crypto';
import type { Db } from 'mongodb';
import { GraphQLError } from 'graphql';
import { ConflictError, NotFoundError, ValidationError } from '../../errors';
import { Idempotency, deletedSince } from '../shared/idempotency';
import type { TaskLoaders } from '../tasks/task.loaders';
import type { InvalidStoredValue } from '../shared/stored-values';
import { TASKS_COLLECTION } from '../tasks/task.document';
import { TaskRepository, type AppendedAction, type TaskWithAction } from '../tasks/task.repository';
import { taskGoalPattern, toTask, type TaskStatus } from '../tasks/task.type';
import { MAX_ID_LENGTH, requiredText } from '../tasks/task.validation';
import type { ToolService } from '../tools/tool.service';
import type { ActionEnricher } from './run.action-enricher';
import { compressActions, unrenderedCall } from './run.compress-actions';
import type { RecordActionInput } from './run.input';
import { actionsKey, type RunLoaders } from './run.loaders';
import {
  StuckReason,
  toAction,
  type Action,
  type Relevance,
  type RecordActionResult,
  type StuckTask,
} from './run.type';
import { failingCalls, newAction, toolExecutions, truncate } from './run.validation';

export const MAX_ACTIONS_LIMIT = 1000;

/** Actions as a field serves them, and what it reports when their stored list is damaged. */
export interface ServedActions<T> {
  actions: T[];
  damage: InvalidStoredValue | null;
}

function damagedActions(taskId: string, storedField: string | null | undefined): InvalidStoredValue | null {
  return storedField ? { collection: TASKS_COLLECTION, id: taskId, storedField } : null;
}
export const MAX_STUCK_LIMIT = 500;
/** A supplied iteration that became the next one while its append was refused is tried again this often. */
const APPEND_ATTEMPTS = 3;

/**
 * Agent runs (seed 004) on recorded tasks: appending iterations, reading them, deriving attempts, finding stuck
 * runs. Every recorded tool call also counts in tool performance, through the request's `ToolService`.
 */
export class RunService {
  /** Runs live in their task documents (seed 004), which only the tasks repository writes. */
  private readonly repository: TaskRepository;
  private readonly idempotency: Idempotency;

  constructor(
    private readonly db: Db,
    private readonly loaders: { runs: RunLoaders; tasks: TaskLoaders },
    private readonly enricher: ActionEnricher | null,
    private readonly tools: ToolService,
    idempotencyTtlHours: number,
  ) {
    this.repository = new TaskRepository(db);
    this.idempotency = new Idempotency(db, idempotencyTtlHours);
  }

  /**
   * Appends one iteration to a task's actions (one atomic update), counts its tool calls in tool performance
   * (context: the task's context, else its goal pattern) and queues it for enrichment when that is on.
   *
   * With an idempotency key, the append and the tool counts carry the key's write id: a retry, also after a crash
   * between the two, appends nothing more, counts every call once and answers with the first call's action.
   */
  async recordAction(
    taskId: string,
    input: RecordActionInput,
    idempotencyKey?: string | null,
  ): Promise<RecordActionResult> {
    const id = requiredText(taskId, 'taskId', MAX_ID_LENGTH);
    // Checked before the key's hash walks the input, as the other recording mutations do: tool args nested past
    // MAX_JSON_DEPTH are BAD_USER_INPUT, not a stack overflow in the hash.
    newAction(input, new Date());
    return this.idempotency.run({
      key: idempotencyKey,
      operation: 'recordAction',
      input: { taskId: id, input },
      plan: () => ({ writeId: randomUUID(), now: new Date() }),
      perform: async (plan, resumed, done) => {
        const writeId = idempotencyKey == null ? null : plan.writeId;
        const { iteration, action } = newAction(input, new Date(plan.now));
        let task = writeId !== null && resumed ? await this.repository.findAppliedAction(id, writeId) : null;
        if (done && !task) throw deletedSince();
        const appendedNow = !task;
        if (!task) {
          // The tool counts come after the append: a stored tool they would fail on refuses the call before it.
          if (action.tool_calls.length)
            await this.tools.checkRecordable(toolExecutions(action, '', id), 'input.toolCalls');
          task = await this.append(id, iteration, { action, failing: failingCalls(action) }, writeId);
        }
        const {
          actions: [stored],
          ...document
        } = task;
        this.loaders.tasks.taskById.clear(id).prime(id, document);
        this.loaders.runs.actionToolCalls.clear(id);
        this.loaders.runs.actionsPage.clearAll();
        if (stored.tool_calls.length && !done) {
          // Cut to the longest context tool performance accepts (a goal pattern can be longer).
          const context = truncate(document.context ?? taskGoalPattern(document), MAX_ID_LENGTH).text;
          const toolsWriteId = writeId === null ? null : `recordAction:${writeId}`;
          await this.tools
            .recordExecutions(toolExecutions(stored, context, id), 'input.toolCalls', toolsWriteId)
            .catch((error: unknown) => {
              throw countsRefusedAfterAppend(error, id, stored.iteration);
            });
        }
        if (appendedNow) this.enricher?.enqueue({ db: this.db, taskId: id, goal: document.goal, action: stored });
        return { taskId: id, action: toAction(stored, id), task: toTask(document) };
      },
    });
  }

  /** Appends the action, trying again while a supplied iteration has just become the next one. */
  private async append(
    id: string,
    iteration: number | null,
    appended: AppendedAction,
    writeId: string | null,
  ): Promise<TaskWithAction> {
    for (let attempt = 1; ; attempt++) {
      let task: TaskWithAction | null;
      try {
        task = await this.repository.appendAction(id, iteration, appended, writeId);
      } catch (error) {
        throw (await this.repository.runDamage(id)) ?? error;
      }
      if (task) return task;
      // A concurrent duplicate of this keyed call appended it meanwhile.
      const applied = writeId === null ? null : await this.repository.findAppliedAction(id, writeId);
      if (applied) return applied;
      const refusal = await this.appendRefusal(id, iteration);
      if (refusal || attempt === APPEND_ATTEMPTS)
        throw (
          refusal ??
          new ConflictError(`Iteration ${iteration} of task ${JSON.stringify(id)} is contended; retry.`, {
            taskId: id,
          })
        );
    }
  }

  /**
   * Why an append matched nothing: no such task (NOT_FOUND), the iteration is taken (CONFLICT) or beyond the next
   * one (BAD_USER_INPUT); null when the supplied iteration has just become the next one (worth another try).
   */
  private async appendRefusal(taskId: string, iteration: number | null): Promise<Error | null> {
    const next = await this.repository.nextIteration(taskId);
    if (next === null || iteration === null) {
      return new NotFoundError(`No task with taskId ${JSON.stringify(taskId)}: record it with recordTask first.`, {
        taskId,
      });
    }
    if (iteration < next) {
      return new ConflictError(
        `Iteration ${iteration} of task ${JSON.stringify(taskId)} is taken; the next one is ${next}.`,
        {
          taskId,
          iteration,
          nextIteration: next,
        },
      );
    }
    if (iteration > next) {
      return new ValidationError(
        `Iterations are sequential: the next one of task ${JSON.stringify(taskId)} is ${next}.`,
        'input.iteration',
        {
          nextIteration: next,
        },
      );
    }
    return null;
  }

  /**
   * Up to `limit` iterations of a task from `fromIteration` on, ordered by iteration, and where its stored actions are
   * damaged (items that are not documents are left out).
   */
  async actions(taskId: string, fromIteration: number, limit: number): Promise<ServedActions<Action>> {
    if (!Number.isInteger(fromIteration) || fromIteration < 0)
      throw new ValidationError('fromIteration must be an integer ≥ 0.', 'fromIteration');
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_ACTIONS_LIMIT) {
      throw new ValidationError(`limit must be an integer from 1 to ${MAX_ACTIONS_LIMIT}.`, 'limit');
    }
    const page = await this.loaders.runs.actionsPage.load(actionsKey(taskId, fromIteration, limit));
    return {
      actions: (page?.actions ?? []).map((action) => toAction(action, taskId)),
      damage: damagedActions(taskId, page?.damage),
    };
  }

  /** The attempts of a task (seed 004 compress_actions), derived from its stored actions, and where those are damaged. */
  async attempts(taskId: string, minRelevance: Relevance): Promise<ServedActions<string>> {
    const stored = await this.loaders.runs.actionToolCalls.load(taskId);
    return {
      actions: compressActions(stored?.actions ?? [], minRelevance),
      damage: damagedActions(taskId, stored?.damage ?? unrenderedCall(stored?.actions ?? [])),
    };
  }

  /**
   * Tasks whose latest `minIterations` iterations all report progress STUCK, or all repeat the same failing tool
   * call (same tool, same arguments), most stuck first.
   */
  async stuckTasks(minIterations: number, status: TaskStatus | null | undefined, limit: number): Promise<StuckTask[]> {
    if (!Number.isInteger(minIterations) || minIterations < 1)
      throw new ValidationError('minIterations must be an integer ≥ 1.', 'minIterations');
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_STUCK_LIMIT) {
      throw new ValidationError(`limit must be an integer from 1 to ${MAX_STUCK_LIMIT}.`, 'limit');
    }
    const rows = await this.repository.findStuck(minIterations, status ?? null, limit);
    return rows.map(({ run, ...document }) => {
      this.loaders.tasks.taskById.prime(document.taskId, document);
      const [longest] = [...run.failing_calls].sort((a, b) => b.streak - a.streak);
      const reasons: StuckReason[] = [];
      if (run.stuck_streak >= minIterations) reasons.push(StuckReason.PROGRESS_STUCK);
      if (longest && longest.streak >= minIterations) reasons.push(StuckReason.REPEATED_FAILURE);
      return {
        task: toTask(document),
        reasons,
        stuckIterations: run.stuck_iterations,
        progressStuckIterations: run.stuck_streak,
        repeatedFailure: longest ? { toolName: longest.tool, call: longest.call, iterations: longest.streak } : null,
        lastIteration: run.last_iteration,
        lastActionAt: run.last_action_at,
      };
    });
  }
}

/**
 * The tool counts refused after the action was appended: a tool's stored figures were damaged after recordAction's
 * check of them. The refusal's code would say nothing was written (and free the idempotency key for a new write), so it
 * is answered as what it is: the action is recorded, its calls are not counted, a retry with the same key counts them.
 */
function countsRefusedAfterAppend(error: unknown, taskId: string, iteration: number): unknown {
  if (!(error instanceof GraphQLError) || error.extensions.code !== 'CONFLICT') return error;
  return new GraphQLError(
    `Iteration ${iteration} of task ${JSON.stringify(taskId)} is recorded, but its tool calls are not counted: ` +
      `${error.message} Repair it, then retry with the same idempotencyKey to count them.`,
    { extensions: { ...error.extensions, code: 'STORED_VALUE_INVALID', taskId, iteration, actionRecorded: true } },
  );
}
