import type { Collection, Db, Document, Filter } from 'mongodb';
import { findDocuments } from '../../db/bson-reader';
import { ConflictError, isDuplicateKeyError } from '../../errors';
import type { SortKey } from '../shared/connection';
import { MAX_APPLIED_WRITES } from '../shared/idempotency';
import { storedDamage } from '../shared/stored-damage';
import { checkScopeId } from '../shared/user-scope';
import { withUnexpired } from '../shared/expiry';
import type { VectorDocuments } from '../shared/reembed-target';
import { vectorDocuments, type VectorLayout } from '../shared/vector-documents';
import type { TaskFilter } from './task.input';
import {
  TASKS_COLLECTION,
  type ActionDocument,
  type FailingCallDocument,
  type RunSummaryDocument,
  type SuccessMetricsDocument,
  type TaskDocument,
  type TaskLearningDocument,
  TaskStatus,
  type ToolCallDocument,
} from './task.document';
import type { UserPlanRuns } from '../plans/plan.document';
import type { ChangeFeed, ChangeFollower } from '../../db/change-follower';
import type { MemoryScope } from '../shared/memory-scope';

/** What forgetting a task needs of it: what it was learned into and the keyed writes it holds, never its vectors. */
export type ForgottenTask = Pick<
  TaskDocument,
  'taskId' | 'goal' | 'goalPattern' | 'context' | 'planId' | 'patternId'
> & {
  learning?: { done?: { tools?: boolean }; result?: { patternId: string | null } } | null;
  applied_actions?: { write_id: string }[];
};

/** The plan patterns a task names: the one it was learned into, the plan it reused, its own. */
const PATTERN_FIELDS = ['learning.result.patternId', 'planId', 'patternId'] as const;

/** The tasks of a forget scope: a user's (tasks record no session, and an agent type rather than an agent). */
function scopeQuery({ kind, value }: MemoryScope): Filter<TaskDocument> | null {
  return kind === 'userId' ? ({ user_id: value } as Filter<TaskDocument>) : null;
}

export type TaskRankingFields = Pick<
  TaskDocument,
  'taskId' | 'goal' | 'goalPattern' | 'createdAt' | 'expires_at' | 'status'
>;

/** The stored fields a task's tool executions are derived from (see `toolUsage`). */
const TOOL_USAGE_FIELDS = [
  'taskId',
  'goal',
  'goalPattern',
  'context',
  'planId',
  'status',
  'steps',
  'successMetrics',
  'createdAt',
  'learning.done',
  'learning.claimedAt',
  'learning.learnedAt',
  'actions.timestamp',
  'actions.tool_calls.name',
  'actions.tool_calls.outcome',
  'actions.tool_calls.execution_time',
  'actions.tool_calls.result',
] as const;

/** A task as `toolUsage` reads it. */
export type ToolUsageTask = Pick<
  TaskDocument,
  'taskId' | 'goal' | 'goalPattern' | 'context' | 'planId' | 'status' | 'steps' | 'successMetrics' | 'createdAt'
> & {
  learning?: Pick<TaskLearningDocument, 'done' | 'claimedAt' | 'learnedAt'>;
  actions?: Array<Pick<ActionDocument, 'timestamp'> & { tool_calls: ToolCallDocument[] }>;
};

/** Reads leave the vectors out unless asked for, and the actions (seed 004: read a page at a time by src/modules/runs). */
const WITHOUT_VECTORS = { projection: { embeddings: 0, actions: 0 } } as const;

/** `filter` restricted to tasks not expired at `now`: an expired task is gone for readers before the TTL deletes it. */
export function unexpired(filter: Document, now: Date): Filter<TaskDocument> {
  return withUnexpired(filter, 'expires_at', now);
}

/** Translates a GraphQL filter into a MongoDB filter (lists and counts). */
export function taskFilterQuery(filter: TaskFilter | null | undefined): Filter<TaskDocument> {
  const query: Document = {};
  if (!filter) return query;
  if (filter.status != null) query.status = filter.status;
  if (filter.agentType != null) query.agentType = filter.agentType;
  if (filter.userId != null) query.user_id = checkScopeId(filter.userId, 'filter.userId');
  if (filter.goalPattern != null) query.goalPattern = filter.goalPattern;
  if (filter.planId != null) query.planId = filter.planId;
  if (filter.patternId != null) query.patternId = filter.patternId;
  if (filter.since != null || filter.until != null) {
    query.createdAt = {
      ...(filter.since != null ? { $gte: filter.since } : {}),
      ...(filter.until != null ? { $lt: filter.until } : {}),
    };
  }
  return query;
}

/** The iteration after the highest stored one (0 for none). `$ifNull` on the path keeps `$max` an array operator. */
const NEXT_ITERATION: Document = { $add: [{ $ifNull: [{ $max: { $ifNull: ['$actions.iteration', []] } }, -1] }, 1] };

/**
 * The list at `path`, or [] when it is missing or not a list: a document written by another tool may hold anything
 * (src/modules/shared/stored-values.ts), and a list operator over a non-list fails the whole read.
 */
function storedList(path: string): Document {
  return { $cond: [{ $isArray: path }, path, []] };
}

/**
 * Where the stored list at `path` (named `name`) is damaged, for a read that serves it cleaned up by `storedList` and
 * without its items that are not documents: `name` when it is not a list (missing or null is no list, not damage),
 * `name.N` for its first item N that is not a document, else null.
 */
function listDamage(path: string, name: string): Document {
  const firstNonDocument = {
    $indexOfArray: [{ $map: { input: path, as: 'item', in: { $eq: [{ $type: '$$item' }, 'object'] } } }, false],
  };
  return {
    $cond: [
      { $isArray: path },
      {
        $let: {
          vars: { at: firstNonDocument },
          in: { $cond: [{ $lt: ['$$at', 0] }, null, { $concat: [`${name}.`, { $toString: '$$at' }] }] },
        },
      },
      { $cond: [{ $in: [{ $type: path }, ['missing', 'null']] }, null, name] },
    ],
  };
}

/** The stored actions sorted by iteration (actions appended here are in order already; imported ones may not be). */
const SORTED_ACTIONS: Document = { $sortArray: { input: storedList('$actions'), sortBy: { iteration: 1 } } };

/** What appending an action adds to the run summary: its failing calls, and whether it reports progress 'stuck'. */
export interface AppendedAction {
  action: Omit<ActionDocument, 'iteration'>;
  failing: Array<Omit<FailingCallDocument, 'streak'>>;
}

/** A task as returned by an append: its fields (no vectors) and the appended action as its only `actions` entry. */
export type TaskWithAction = Omit<TaskDocument, 'embeddings'> & { actions: ActionDocument[] };

/** A task's actions as a read serves them, and where their stored list is damaged (see `listDamage`). */
export interface StoredActions<T> {
  actions: T[];
  damage: string | null;
}

/** The tool calls of a task's actions, as `attempts` reads them (no results or reasoning). */
export type CompressionView = Pick<ToolCallDocument, 'name' | 'args' | 'outcome' | 'insights' | 'relevance'>;

/** An action as `attempts` reads it: its iteration and calls as stored (see `toolCalls`), each a `CompressionView` when it is a document. */
export interface CompressionAction {
  iteration?: unknown;
  tool_calls?: unknown;
}

/** The enrichment of one action: the fields to fill, by tool-call index. */
export interface ActionEnrichment {
  synthesis?: string;
  toolCalls: Array<Partial<Pick<ToolCallDocument, 'insights' | 'learning' | 'relevance'>>>;
}

/** The outcome learnFromTask reports; written with the claim. */
export interface TaskOutcomeUpdate {
  status: TaskStatus;
  successMetrics: SuccessMetricsDocument;
  planId: string | null | undefined;
}

/** The only code touching `tasks`: the tasks themselves, their learning state, and their runs (seed 004). */
export class TaskRepository {
  private readonly collection: Collection<TaskDocument>;

  constructor(private readonly db: Db) {
    this.collection = db.collection<TaskDocument>(TASKS_COLLECTION);
  }

  /** The documents as re-embedding sees them, laid out as the feature's `ReembedTarget` says. */
  vectorDocuments(layout: VectorLayout): VectorDocuments {
    return vectorDocuments(this.collection, layout);
  }

  /**
   * Inserts a task; a taskId that exists already is CONFLICT, unless that task has expired (gone for readers, not yet
   * deleted by the TTL monitor): it is deleted now and the new one takes its id.
   */
  async insert(document: TaskDocument): Promise<void> {
    try {
      await this.collection.insertOne(document);
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      const expired = await this.collection.deleteOne({ taskId: document.taskId, expires_at: { $lte: new Date() } });
      if (expired.deletedCount === 1) return this.insert(document);
      throw new ConflictError(`A task with taskId ${JSON.stringify(document.taskId)} already exists.`, {
        taskId: document.taskId,
      });
    }
  }

  /** Tasks by id, without vectors, in no particular order; expired ones are left out (as if deleted). */
  findByIds(ids: readonly string[], now = new Date()): Promise<TaskDocument[]> {
    return this.collection.find(unexpired({ taskId: { $in: [...ids] } }, now), WITHOUT_VECTORS).toArray();
  }

  /** Tasks by id, restricted to `filter`, without their vectors and actions. */
  findCandidates(ids: readonly string[], filter: Filter<TaskDocument>): Promise<TaskDocument[]> {
    return this.findWithin(ids, filter, { actions: 0, embeddings: 0 });
  }

  /**
   * What ranking a candidate reads (id, goal, its template, creation time), for these ids within `filter`, and its
   * expiry, so that the search drops expired candidates without a filter of its own.
   */
  findRankingFields(ids: readonly string[], filter: Filter<TaskDocument>): Promise<TaskRankingFields[]> {
    return this.findWithin(ids, filter, {
      _id: 0,
      taskId: 1,
      goal: 1,
      goalPattern: 1,
      createdAt: 1,
      expires_at: 1,
      status: 1,
    });
  }

  private findWithin<T>(ids: readonly string[], filter: Filter<TaskDocument>, projection: Document): Promise<T[]> {
    return findDocuments<T>(
      this.db,
      TASKS_COLLECTION,
      { $and: [{ taskId: { $in: [...ids] } }, filter] },
      { projection },
    );
  }

  /** The distinct goal templates starting with one of `prefixes` (an indexed range). */
  async goalPatternsByPrefix(prefixes: RegExp[]): Promise<string[]> {
    if (!prefixes.length) return [];
    return this.collection.distinct('goalPattern', { goalPattern: { $in: prefixes } });
  }

  /** Ids of the newest `limit` tasks with one of `patterns` as goal template, within `filter`. */
  async idsByGoalPatterns(patterns: string[], filter: Filter<TaskDocument>, limit: number): Promise<string[]> {
    if (!patterns.length) return [];
    const rows = await this.collection
      .find({ $and: [{ goalPattern: { $in: patterns } }, filter] }, { projection: { _id: 0, taskId: 1 } })
      .sort({ createdAt: -1 })
      .limit(limit)
      .toArray();
    return rows.map((row) => row.taskId);
  }

  /** One keyset page (rows after `after`, in `sort` order), without vectors. */
  findPage(
    filter: Filter<TaskDocument>,
    after: Document | null,
    sort: SortKey[],
    limit: number,
  ): Promise<TaskDocument[]> {
    const query = after ? { $and: [filter, after] } : filter;
    return this.collection
      .find(query as Filter<TaskDocument>, WITHOUT_VECTORS)
      .sort(sort.map((key) => [key.field, key.direction] as [string, 1 | -1]))
      .limit(limit)
      .toArray();
  }

  count(filter: Filter<TaskDocument>): Promise<number> {
    return this.collection.countDocuments(filter);
  }

  /**
   * Claims a task for learning in one atomic update — never learned, or a claim older than `leaseMs` (an interrupted
   * learnFromTask) — and records the outcome. Returns the task (with its goal vector), or null when it is not
   * claimable (unknown, learned, or being learned).
   */
  claimLearning(
    taskId: string,
    outcome: TaskOutcomeUpdate,
    claimId: string,
    now: Date,
    leaseMs: number,
  ): Promise<TaskDocument | null> {
    const set: Document = {
      status: outcome.status,
      successMetrics: outcome.successMetrics,
      'learning.state': 'applying',
      'learning.claimId': claimId,
      'learning.claimedAt': now,
    };
    if (outcome.planId != null) set.planId = outcome.planId;
    return this.collection.findOneAndUpdate(
      unexpired(
        {
          taskId,
          $or: [
            { 'learning.state': { $exists: false } },
            { 'learning.state': 'applying', 'learning.claimedAt': { $lt: new Date(now.getTime() - leaseMs) } },
          ],
        },
        now,
      ),
      { $set: set },
      { returnDocument: 'after', projection: { 'embeddings.originalQuery_embedding': 0, actions: 0 } },
    );
  }

  /**
   * One user's tasks whose actions called `toolName` or whose plan steps learnFromTask counted in tool performance,
   * oldest first, with what their tool executions are derived from: the figures of `toolPerformance(userId)`.
   */
  toolUsage(userId: string, toolName: string): Promise<ToolUsageTask[]> {
    return this.collection
      .find<ToolUsageTask>(
        unexpired(
          { user_id: userId, $or: [{ 'actions.tool_calls.name': toolName }, { 'learning.done.tools': true }] },
          new Date(),
        ),
        {
          projection: {
            _id: 0,
            ...Object.fromEntries(TOOL_USAGE_FIELDS.map((field) => [field, 1])),
          },
        },
      )
      .sort({ createdAt: 1, taskId: 1 })
      .toArray();
  }

  /**
   * The tasks of `taskIds` (those not expired) with what their tool executions are derived from, oldest first, as
   * `toolUsage` reads them: the figures of `toolPerformance(similarTo)` and recall's tool warnings.
   */
  toolUsageOfTasks(taskIds: readonly string[]): Promise<ToolUsageTask[]> {
    if (!taskIds.length) return Promise.resolve([]);
    return this.collection
      .find<ToolUsageTask>(unexpired({ taskId: { $in: [...taskIds] } }, new Date()), {
        projection: { _id: 0, ...Object.fromEntries(TOOL_USAGE_FIELDS.map((field) => [field, 1])) },
      })
      .sort({ createdAt: 1, taskId: 1 })
      .toArray();
  }

  /** Per plan pattern, one user's tasks learned into it (see `UserPlanRuns`). */
  userPlanRuns(userId: string): Promise<UserPlanRuns[]> {
    return this.collection
      .aggregate<UserPlanRuns>([
        { $match: unexpired({ user_id: userId, patternId: { $type: 'string' } }, new Date()) },
        { $sort: { createdAt: 1, taskId: 1 } },
        {
          $group: {
            _id: '$patternId',
            usageCount: { $sum: 1 },
            successCount: { $sum: { $cond: [{ $eq: ['$status', TaskStatus.COMPLETED] }, 1, 0] } },
            totalExecutionTime: { $sum: '$successMetrics.executionTime' },
            lastUsed: { $max: '$createdAt' },
            latestGoal: { $last: '$goal' },
            failures: {
              $push: {
                $cond: [
                  { $eq: ['$status', TaskStatus.FAILED] },
                  { actions: '$steps.action', completed: '$successMetrics.stepsCompleted' },
                  null,
                ],
              },
            },
          },
        },
      ])
      .toArray();
  }

  /** The learning state of a task (null: unknown task). */
  findLearning(taskId: string): Promise<Pick<TaskDocument, 'taskId' | 'learning'> | null> {
    return this.collection.findOne(unexpired({ taskId }, new Date()), {
      projection: { _id: 0, taskId: 1, learning: 1 },
    });
  }

  /** Marks a part of the learning done, as long as the claim is still ours. */
  async markLearned(
    taskId: string,
    claimId: string,
    part: keyof NonNullable<TaskLearningDocument['done']>,
  ): Promise<void> {
    await this.collection.updateOne(
      { taskId, 'learning.claimId': claimId },
      { $set: { [`learning.done.${part}`]: true } },
    );
  }

  /** Closes the claim with the answer that repeated calls return. */
  async finishLearning(
    taskId: string,
    claimId: string,
    result: NonNullable<TaskLearningDocument['result']>,
    now: Date,
  ): Promise<void> {
    await this.collection.updateOne(
      { taskId, 'learning.claimId': claimId },
      {
        $set: {
          'learning.state': 'learned',
          'learning.result': result,
          'learning.learnedAt': now,
          patternId: result.patternId,
        },
      },
    );
  }

  // Seed 004: a task's run (`actions`, and the `run` summary), served by src/modules/runs.

  /**
   * Appends an action in one atomic update pipeline: its iteration is the next one (when `iteration` is given, the
   * update only matches while that is the next one), and the run summary is advanced from its stored state in the
   * same update. Returns the task with the appended action, or null when nothing matched (unknown task, or the
   * given iteration is not the next one, or the keyed write `writeId` is applied already: see `findAppliedAction`).
   */
  appendAction(
    taskId: string,
    iteration: number | null,
    appended: AppendedAction,
    writeId: string | null = null,
  ): Promise<TaskWithAction | null> {
    const { action, failing } = appended;
    const literal = (value: unknown) => ({ $literal: value });
    const previousStreak = (key: string) => ({
      $ifNull: [
        {
          $first: {
            $map: {
              input: {
                $filter: {
                  input: { $ifNull: ['$run.failing_calls', []] },
                  as: 'f',
                  cond: { $eq: ['$$f.key', literal(key)] },
                },
              },
              as: 'f',
              in: '$$f.streak',
            },
          },
        },
        0,
      ],
    });
    const stored: Document = { iteration: NEXT_ITERATION };
    for (const [field, value] of Object.entries(action)) stored[field] = literal(value);
    const filter: Filter<TaskDocument> = unexpired(
      iteration === null ? { taskId } : { taskId, $expr: { $eq: [NEXT_ITERATION, iteration] } },
      new Date(),
    );
    if (writeId !== null) filter['run.applied_actions.write_id'] = { $ne: writeId };
    // Kept aside before `run` is rewritten below, with the iteration this append takes.
    const applied: Document[] =
      writeId === null
        ? []
        : [
            {
              $set: {
                _applied: {
                  $slice: [
                    {
                      $concatArrays: [
                        { $ifNull: ['$run.applied_actions', []] },
                        [{ write_id: literal(writeId), iteration: NEXT_ITERATION }],
                      ],
                    },
                    -MAX_APPLIED_WRITES,
                  ],
                },
              },
            },
          ];
    return this.collection.findOneAndUpdate(
      filter,
      [
        ...applied,
        {
          $set: {
            actions: { $concatArrays: [{ $ifNull: ['$actions', []] }, [stored]] },
            // Field by field, so the run's other fields (the keyed writes applied) are plainly kept: the reader need not
            // know that $set merges an embedded document.
            'run.last_iteration': NEXT_ITERATION,
            'run.last_action_at': literal(action.timestamp),
            'run.stuck_streak':
              action.progress === 'stuck' ? { $add: [{ $ifNull: ['$run.stuck_streak', 0] }, 1] } : literal(0),
            'run.failing_calls': failing.map(({ key, tool, call }) => ({
              key: literal(key),
              tool: literal(tool),
              call: literal(call),
              streak: { $add: [previousStreak(key), 1] },
            })),
          },
        },
        {
          $set: {
            'run.stuck_iterations': {
              $max: ['$run.stuck_streak', { $ifNull: [{ $max: '$run.failing_calls.streak' }, 0] }],
            },
          },
        },
        ...(writeId === null ? [] : [{ $set: { 'run.applied_actions': '$_applied' } }, { $unset: '_applied' }]),
      ],
      { returnDocument: 'after', projection: { embeddings: 0, actions: { $slice: -1 } } },
    ) as Promise<TaskWithAction | null>;
  }

  /** Why an append to the task failed: a stored run field it builds on is damaged (see `storedDamage`); else null. */
  runDamage(taskId: string): Promise<ConflictError | null> {
    return storedDamage(
      this.collection,
      { taskId },
      { actions: 'list', 'run.failing_calls': 'list', 'run.stuck_streak': 'number', 'run.applied_actions': 'list' },
      `task ${JSON.stringify(taskId)}`,
    );
  }

  /** The task and the action the keyed append `writeId` made; null when none is found (or it is gone since). */
  async findAppliedAction(taskId: string, writeId: string): Promise<TaskWithAction | null> {
    const task = await this.collection.findOne(
      unexpired({ taskId, 'run.applied_actions.write_id': writeId }, new Date()),
      { projection: { embeddings: 0 } },
    );
    const iteration = task?.run?.applied_actions?.find((entry) => entry.write_id === writeId)?.iteration;
    const action = task?.actions?.find((candidate) => candidate.iteration === iteration);
    return task && action ? ({ ...task, actions: [action] } as TaskWithAction) : null;
  }

  /** The next iteration of a task; null when there is no such task. */
  async nextIteration(taskId: string): Promise<number | null> {
    const [row] = await this.collection
      .aggregate<{ next: number }>([
        { $match: unexpired({ taskId }, new Date()) },
        { $project: { _id: 0, next: NEXT_ITERATION } },
      ])
      .toArray();
    return row ? row.next : null;
  }

  /**
   * Up to `limit` actions from iteration `fromIteration` on, of each task in `taskIds`, sorted by iteration. One
   * aggregation; the slicing happens in the database, so a small page never loads a long run.
   */
  /** Actions of many tasks by iteration, in one aggregate: per task, its actions whose iteration any ref asks for. */
  findActions(
    refs: ReadonlyArray<{ taskId: string; iteration: number }>,
  ): Promise<Array<{ taskId: string; actions: ActionDocument[] }>> {
    return this.collection
      .aggregate<{ taskId: string; actions: ActionDocument[] }>([
        { $match: unexpired({ taskId: { $in: [...new Set(refs.map((ref) => ref.taskId))] } }, new Date()) },
        {
          $project: {
            _id: 0,
            taskId: 1,
            actions: {
              $filter: {
                input: { $ifNull: ['$actions', []] },
                as: 'a',
                cond: { $in: ['$$a.iteration', { $literal: [...new Set(refs.map((ref) => ref.iteration))] }] },
              },
            },
          },
        },
      ])
      .toArray();
  }

  actionsPage(
    taskIds: readonly string[],
    fromIteration: number,
    limit: number,
  ): Promise<Array<{ taskId: string } & StoredActions<ActionDocument>>> {
    return this.collection
      .aggregate<{ taskId: string } & StoredActions<ActionDocument>>([
        { $match: unexpired({ taskId: { $in: [...taskIds] } }, new Date()) },
        {
          $project: {
            _id: 0,
            taskId: 1,
            damage: listDamage('$actions', 'actions'),
            actions: {
              $slice: [
                {
                  $sortArray: {
                    input: {
                      $filter: {
                        input: storedList('$actions'),
                        as: 'a',
                        cond: { $gte: ['$$a.iteration', fromIteration] },
                      },
                    },
                    sortBy: { iteration: 1 },
                  },
                },
                limit,
              ],
            },
          },
        },
      ])
      .toArray();
  }

  /**
   * The tool calls of each task's actions in iteration order, each call reduced to what compression reads (a damaged
   * one kept as stored). One aggregation.
   */
  toolCalls(taskIds: readonly string[]): Promise<Array<{ taskId: string } & StoredActions<CompressionAction>>> {
    return this.collection
      .aggregate<{ taskId: string } & StoredActions<CompressionAction>>([
        { $match: unexpired({ taskId: { $in: [...taskIds] } }, new Date()) },
        {
          $project: {
            _id: 0,
            taskId: 1,
            damage: listDamage('$actions', 'actions'),
            actions: {
              $map: {
                input: SORTED_ACTIONS,
                as: 'a',
                in: {
                  iteration: '$$a.iteration',
                  // What is no list, or no document in the list, is kept as stored: the damage `attempts` reports.
                  tool_calls: {
                    $cond: [
                      { $isArray: '$$a.tool_calls' },
                      {
                        $map: {
                          input: '$$a.tool_calls',
                          as: 'c',
                          in: {
                            $cond: [
                              { $eq: [{ $type: '$$c' }, 'object'] },
                              {
                                name: '$$c.name',
                                args: '$$c.args',
                                outcome: '$$c.outcome',
                                insights: '$$c.insights',
                                relevance: '$$c.relevance',
                              },
                              '$$c',
                            ],
                          },
                        },
                      },
                      '$$a.tool_calls',
                    ],
                  },
                },
              },
            },
          },
        },
      ])
      .toArray();
  }

  /** Tasks whose run summary counts at least `minIterations` stuck iterations, most stuck first (an indexed range). */
  findStuck(
    minIterations: number,
    status: TaskStatus | null,
    limit: number,
  ): Promise<Array<Omit<TaskDocument, 'embeddings' | 'actions'> & { run: RunSummaryDocument }>> {
    const filter = unexpired(
      { 'run.stuck_iterations': { $gte: minIterations }, ...(status !== null ? { status } : {}) },
      new Date(),
    );
    return this.collection
      .find(filter, { projection: { embeddings: 0, actions: 0 } })
      .sort({ 'run.stuck_iterations': -1, 'run.last_action_at': -1, taskId: 1 })
      .limit(limit)
      .toArray() as Promise<Array<Omit<TaskDocument, 'embeddings' | 'actions'> & { run: RunSummaryDocument }>>;
  }

  /** Fills compression fields of one stored action (found by iteration). */
  async enrichAction(taskId: string, iteration: number, enrichment: ActionEnrichment): Promise<void> {
    const set: Document = {};
    if (enrichment.synthesis !== undefined) set['actions.$[a].synthesis'] = enrichment.synthesis;
    enrichment.toolCalls.forEach((fields, i) => {
      for (const [field, value] of Object.entries(fields)) set[`actions.$[a].tool_calls.${i}.${field}`] = value;
    });
    if (!Object.keys(set).length) return;
    await this.collection.updateOne({ taskId }, { $set: set }, { arrayFilters: [{ 'a.iteration': iteration }] });
  }

  /** This collection's change feed, shared by every subscriber of this database (src/db/change-follower.ts). */
  followChanges(changes: ChangeFollower): Promise<ChangeFeed> {
    return changes.follow(this.db, TASKS_COLLECTION);
  }

  /** The tasks of a forget scope, as forgetting needs them. */
  findByScope(scope: MemoryScope): Promise<ForgottenTask[]> {
    const query = scopeQuery(scope);
    if (!query) return Promise.resolve([]);
    const projection = {
      _id: 0,
      taskId: 1,
      goal: 1,
      goalPattern: 1,
      context: 1,
      planId: 1,
      patternId: 1,
      'learning.done': 1,
      'learning.result.patternId': 1,
      'applied_actions.write_id': 1,
    };
    return this.collection.find<ForgottenTask>(query, { projection }).toArray();
  }

  /** Deletes the tasks of a forget scope (one deleteMany); returns how many. */
  async forgetScope(scope: MemoryScope): Promise<number> {
    const query = scopeQuery(scope);
    return query ? (await this.collection.deleteMany(query)).deletedCount : 0;
  }

  /**
   * For each of `patternIds` that a task outside `except` names, one such task (the example a shared pattern keeps when
   * a forgotten task's goal was its example): its goal, with its stored goal vector and model when it has them.
   */
  async patternUsers(patternIds: readonly string[], except: readonly string[]): Promise<Map<string, TaskDocument>> {
    if (!patternIds.length) return new Map();
    const ids = [...patternIds];
    const rows = await this.collection
      .aggregate<{ _id: string; taskId: string }>([
        { $match: { $or: PATTERN_FIELDS.map((field) => ({ [field]: { $in: ids } })), taskId: { $nin: [...except] } } },
        { $project: { _id: 0, taskId: 1, names: PATTERN_FIELDS.map((field) => `$${field}`) } },
        { $unwind: '$names' },
        { $match: { names: { $in: ids } } },
        { $group: { _id: '$names', taskId: { $first: '$taskId' } } },
      ])
      .toArray();
    const tasks = await this.collection
      .find(
        { taskId: { $in: rows.map((row) => row.taskId) } },
        { projection: { taskId: 1, goal: 1, embeddings: 1, embedding_model: 1 } },
      )
      .toArray();
    const byId = new Map(tasks.map((task) => [task.taskId, task]));
    return new Map(rows.flatMap((row) => (byId.has(row.taskId) ? [[row._id, byId.get(row.taskId)!]] : [])));
  }

  /** Which of `contexts` a task outside `except` has as its context or goal pattern (tool statistics are kept by them). */
  async contextsInUse(contexts: readonly string[], except: readonly string[]): Promise<Set<string>> {
    if (!contexts.length) return new Set();
    const outside = { taskId: { $nin: [...except] } };
    const [byContext, byPattern] = await Promise.all([
      this.collection.distinct('context', { context: { $in: [...contexts] }, ...outside }),
      this.collection.distinct('goalPattern', { goalPattern: { $in: [...contexts] }, ...outside }),
    ]);
    return new Set([...byContext, ...byPattern].filter((value): value is string => typeof value === 'string'));
  }

  /** The iterations recorded on the task's run so far. */
  async actionIterations(taskId: string): Promise<number[]> {
    const task = await this.collection.findOne(unexpired({ taskId }, new Date()), {
      projection: { 'actions.iteration': 1 },
    });
    return Array.isArray(task?.actions) ? task.actions.map((action) => action.iteration) : [];
  }
}
