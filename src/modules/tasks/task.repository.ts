import type { Collection, Db, Document, Filter } from 'mongodb';
import { findDocuments } from '../../db/bson-reader';
import { ConflictError, isDuplicateKeyError } from '../../errors';
import type { SortKey } from '../shared/connection';
import type { TaskFilter } from './task.input';
import { TASKS_COLLECTION, type SuccessMetricsDocument, type TaskDocument, type TaskLearningDocument, type TaskStatus } from './task.type';

export type TaskRankingFields = Pick<TaskDocument, 'taskId' | 'goal' | 'goalPattern' | 'createdAt'>;

/** Reads leave the vectors out unless asked for, and the actions (seed 004: read a page at a time by src/modules/runs). */
const WITHOUT_VECTORS = { projection: { embeddings: 0, actions: 0 } } as const;

/** Translates a GraphQL filter into a MongoDB filter (lists and counts). */
export function taskFilterQuery(filter: TaskFilter | null | undefined): Filter<TaskDocument> {
  const query: Document = {};
  if (!filter) return query;
  if (filter.status != null) query.status = filter.status;
  if (filter.agentType != null) query.agentType = filter.agentType;
  if (filter.goalPattern != null) query.goalPattern = filter.goalPattern;
  if (filter.planId != null) query.planId = filter.planId;
  if (filter.patternId != null) query.patternId = filter.patternId;
  if (filter.since != null || filter.until != null) {
    query.createdAt = { ...(filter.since != null ? { $gte: filter.since } : {}), ...(filter.until != null ? { $lt: filter.until } : {}) };
  }
  return query;
}

/** The outcome learnFromTask reports; written with the claim. */
export interface TaskOutcomeUpdate {
  status: TaskStatus;
  successMetrics: SuccessMetricsDocument;
  planId: string | null | undefined;
}

/** The only code touching `tasks`. */
export class TaskRepository {
  readonly collection: Collection<TaskDocument>;

  constructor(private readonly db: Db) {
    this.collection = db.collection<TaskDocument>(TASKS_COLLECTION);
  }

  /** Inserts a task; a taskId that exists already is CONFLICT. */
  async insert(document: TaskDocument): Promise<void> {
    try {
      await this.collection.insertOne(document);
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      throw new ConflictError(`A task with taskId ${JSON.stringify(document.taskId)} already exists.`, { taskId: document.taskId });
    }
  }

  /** Tasks by id, without vectors, in no particular order. */
  findByIds(ids: readonly string[]): Promise<TaskDocument[]> {
    return this.collection.find({ taskId: { $in: [...ids] } }, WITHOUT_VECTORS).toArray();
  }

  /** Tasks by id, restricted to `filter`, without their vectors and actions. */
  findCandidates(ids: readonly string[], filter: Filter<TaskDocument>): Promise<TaskDocument[]> {
    return this.findWithin(ids, filter, { actions: 0, embeddings: 0 });
  }

  /** What ranking a candidate reads (id, goal, its template, creation time), for these ids within `filter`. */
  findRankingFields(ids: readonly string[], filter: Filter<TaskDocument>): Promise<TaskRankingFields[]> {
    return this.findWithin(ids, filter, { _id: 0, taskId: 1, goal: 1, goalPattern: 1, createdAt: 1 });
  }

  private findWithin<T>(ids: readonly string[], filter: Filter<TaskDocument>, projection: Document): Promise<T[]> {
    return findDocuments<T>(this.db, TASKS_COLLECTION, { $and: [{ taskId: { $in: [...ids] } }, filter] }, { projection });
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
  findPage(filter: Filter<TaskDocument>, after: Document | null, sort: SortKey[], limit: number): Promise<TaskDocument[]> {
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
  claimLearning(taskId: string, outcome: TaskOutcomeUpdate, claimId: string, now: Date, leaseMs: number): Promise<TaskDocument | null> {
    const set: Document = {
      status: outcome.status,
      successMetrics: outcome.successMetrics,
      'learning.state': 'applying',
      'learning.claimId': claimId,
      'learning.claimedAt': now,
    };
    if (outcome.planId != null) set.planId = outcome.planId;
    return this.collection.findOneAndUpdate(
      {
        taskId,
        $or: [
          { 'learning.state': { $exists: false } },
          { 'learning.state': 'applying', 'learning.claimedAt': { $lt: new Date(now.getTime() - leaseMs) } },
        ],
      },
      { $set: set },
      { returnDocument: 'after', projection: { 'embeddings.originalQuery_embedding': 0, actions: 0 } },
    );
  }

  /** The learning state of a task (null: unknown task). */
  findLearning(taskId: string): Promise<Pick<TaskDocument, 'taskId' | 'learning'> | null> {
    return this.collection.findOne({ taskId }, { projection: { _id: 0, taskId: 1, learning: 1 } });
  }

  /** Marks a part of the learning done, as long as the claim is still ours. */
  async markLearned(taskId: string, claimId: string, part: keyof NonNullable<TaskLearningDocument['done']>): Promise<void> {
    await this.collection.updateOne({ taskId, 'learning.claimId': claimId }, { $set: { [`learning.done.${part}`]: true } });
  }

  /** Closes the claim with the answer that repeated calls return. */
  async finishLearning(taskId: string, claimId: string, result: NonNullable<TaskLearningDocument['result']>, now: Date): Promise<void> {
    await this.collection.updateOne(
      { taskId, 'learning.claimId': claimId },
      { $set: { 'learning.state': 'learned', 'learning.result': result, 'learning.learnedAt': now, patternId: result.patternId } },
    );
  }
}

/**
 * Seed 002: status, createdAt (originalQuery and goal get no text index: the embedded engine has no $text, so
 * keyword relevance comes from the search subsystem's BM25), plus the unique taskId and the goal-template lookups.
 */
export async function ensureTaskIndexes(db: Db): Promise<void> {
  await db.collection(TASKS_COLLECTION).createIndexes([
    { key: { taskId: 1 }, name: 'taskId_unique', unique: true },
    { key: { status: 1, createdAt: -1 }, name: 'status_createdAt' },
    { key: { createdAt: -1, taskId: -1 }, name: 'createdAt_taskId' },
    { key: { goalPattern: 1, createdAt: -1 }, name: 'goalPattern_createdAt' },
    { key: { planId: 1 }, name: 'planId' },
    { key: { patternId: 1 }, name: 'patternId' },
  ]);
}
