import type { Collection, Db, Document, Filter } from 'mongodb';
import { TASKS_COLLECTION, type TaskDocument, type TaskStatus } from '../tasks/task.type';
import type { ActionDocument, FailingCallDocument, RunSummaryDocument, ToolCallDocument } from './run.type';

/** The iteration after the highest stored one (0 for none). `$ifNull` on the path keeps `$max` an array operator. */
const NEXT_ITERATION: Document = { $add: [{ $ifNull: [{ $max: { $ifNull: ['$actions.iteration', []] } }, -1] }, 1] };

/** The stored actions sorted by iteration (actions appended here are in order already; imported ones may not be). */
const SORTED_ACTIONS: Document = { $sortArray: { input: { $ifNull: ['$actions', []] }, sortBy: { iteration: 1 } } };

/** What appending an action adds to the run summary: its failing calls, and whether it reports progress 'stuck'. */
export interface AppendedAction {
  action: Omit<ActionDocument, 'iteration'>;
  failing: Array<Omit<FailingCallDocument, 'streak'>>;
}

/** A task as returned by an append: its fields (no vectors) and the appended action as its only `actions` entry. */
export type TaskWithAction = Omit<TaskDocument, 'embeddings'> & { actions: ActionDocument[] };

/** The tool calls of a task's actions, as `attempts` reads them (no results or reasoning). */
export type CompressionView = Pick<ToolCallDocument, 'name' | 'args' | 'outcome' | 'insights' | 'relevance'>;

/** The enrichment of one action: the fields to fill, by tool-call index. */
export interface ActionEnrichment {
  synthesis?: string;
  toolCalls: Array<Partial<Pick<ToolCallDocument, 'insights' | 'learning' | 'relevance'>>>;
}

/** The only code touching `tasks.actions` and `tasks.run` (seed 004 on seed 002's task documents). */
export class RunRepository {
  readonly collection: Collection<TaskDocument>;

  constructor(db: Db) {
    this.collection = db.collection<TaskDocument>(TASKS_COLLECTION);
  }

  /**
   * Appends an action in one atomic update pipeline: its iteration is the next one (when `iteration` is given, the
   * update only matches while that is the next one), and the run summary is advanced from its stored state in the
   * same update. Returns the task with the appended action, or null when nothing matched (unknown task, or the
   * given iteration is not the next one).
   */
  append(taskId: string, iteration: number | null, appended: AppendedAction): Promise<TaskWithAction | null> {
    const { action, failing } = appended;
    const literal = (value: unknown) => ({ $literal: value });
    const previousStreak = (key: string) => ({
      $ifNull: [
        {
          $first: {
            $map: {
              input: { $filter: { input: { $ifNull: ['$run.failing_calls', []] }, as: 'f', cond: { $eq: ['$$f.key', literal(key)] } } },
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
    const filter: Filter<TaskDocument> = iteration === null ? { taskId } : { taskId, $expr: { $eq: [NEXT_ITERATION, iteration] } };
    return this.collection.findOneAndUpdate(
      filter,
      [
        {
          $set: {
            actions: { $concatArrays: [{ $ifNull: ['$actions', []] }, [stored]] },
            run: {
              last_iteration: NEXT_ITERATION,
              last_action_at: literal(action.timestamp),
              stuck_streak: action.progress === 'stuck' ? { $add: [{ $ifNull: ['$run.stuck_streak', 0] }, 1] } : literal(0),
              failing_calls: failing.map(({ key, tool, call }) => ({
                key: literal(key),
                tool: literal(tool),
                call: literal(call),
                streak: { $add: [previousStreak(key), 1] },
              })),
            },
          },
        },
        {
          $set: {
            'run.stuck_iterations': { $max: ['$run.stuck_streak', { $ifNull: [{ $max: '$run.failing_calls.streak' }, 0] }] },
          },
        },
      ],
      { returnDocument: 'after', projection: { embeddings: 0, actions: { $slice: -1 } } },
    ) as Promise<TaskWithAction | null>;
  }

  /** The next iteration of a task; null when there is no such task. */
  async nextIteration(taskId: string): Promise<number | null> {
    const [row] = await this.collection.aggregate<{ next: number }>([{ $match: { taskId } }, { $project: { _id: 0, next: NEXT_ITERATION } }]).toArray();
    return row ? row.next : null;
  }

  /**
   * Up to `limit` actions from iteration `fromIteration` on, of each task in `taskIds`, sorted by iteration. One
   * aggregation; the slicing happens in the database, so a small page never loads a long run.
   */
  actionsPage(taskIds: readonly string[], fromIteration: number, limit: number): Promise<Array<{ taskId: string; actions: ActionDocument[] }>> {
    return this.collection
      .aggregate<{ taskId: string; actions: ActionDocument[] }>([
        { $match: { taskId: { $in: [...taskIds] } } },
        {
          $project: {
            _id: 0,
            taskId: 1,
            actions: {
              $slice: [
                {
                  $sortArray: {
                    input: { $filter: { input: { $ifNull: ['$actions', []] }, as: 'a', cond: { $gte: ['$$a.iteration', fromIteration] } } },
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

  /** The tool calls of each task's actions in iteration order, reduced to what compression reads. One aggregation. */
  toolCalls(taskIds: readonly string[]): Promise<Array<{ taskId: string; actions: Array<{ tool_calls: CompressionView[] }> }>> {
    return this.collection
      .aggregate<{ taskId: string; actions: Array<{ tool_calls: CompressionView[] }> }>([
        { $match: { taskId: { $in: [...taskIds] } } },
        {
          $project: {
            _id: 0,
            taskId: 1,
            actions: {
              $map: {
                input: SORTED_ACTIONS,
                as: 'a',
                in: {
                  tool_calls: {
                    $map: {
                      input: { $ifNull: ['$$a.tool_calls', []] },
                      as: 'c',
                      in: { name: '$$c.name', args: '$$c.args', outcome: '$$c.outcome', insights: '$$c.insights', relevance: '$$c.relevance' },
                    },
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
  findStuck(minIterations: number, status: TaskStatus | null, limit: number): Promise<Array<Omit<TaskDocument, 'embeddings' | 'actions'> & { run: RunSummaryDocument }>> {
    const filter: Filter<TaskDocument> = { 'run.stuck_iterations': { $gte: minIterations }, ...(status !== null ? { status } : {}) };
    return this.collection
      .find(filter, { projection: { embeddings: 0, actions: 0 } })
      .sort({ 'run.stuck_iterations': -1, 'run.last_action_at': -1, taskId: 1 })
      .limit(limit)
      .toArray() as Promise<Array<Omit<TaskDocument, 'embeddings' | 'actions'> & { run: RunSummaryDocument }>>;
  }

  /** Fills compression fields of one stored action (found by iteration). */
  async enrich(taskId: string, iteration: number, enrichment: ActionEnrichment): Promise<void> {
    const set: Document = {};
    if (enrichment.synthesis !== undefined) set['actions.$[a].synthesis'] = enrichment.synthesis;
    enrichment.toolCalls.forEach((fields, i) => {
      for (const [field, value] of Object.entries(fields)) set[`actions.$[a].tool_calls.${i}.${field}`] = value;
    });
    if (!Object.keys(set).length) return;
    await this.collection.updateOne({ taskId }, { $set: set }, { arrayFilters: [{ 'a.iteration': iteration }] });
  }
}

/** stuckTasks reads the run summary through this index. */
export async function ensureRunIndexes(db: Db): Promise<void> {
  await db.collection(TASKS_COLLECTION).createIndexes([
    { key: { 'run.stuck_iterations': -1, 'run.last_action_at': -1 }, name: 'run_stuck_iterations' },
  ]);
}
