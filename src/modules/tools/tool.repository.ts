import type { Collection, Db } from 'mongodb';
import { findDocuments } from '../../db/bson-reader';
import { isDuplicateKeyError, type ConflictError } from '../../errors';
import { markApplied, notApplied, unmarkApplied } from '../shared/idempotency';
import { storedDamage, type StoredKind } from '../shared/stored-damage';
import { negatedDelta, toolUpdatePipeline, type ToolDelta } from './tool.aggregation';
import { TOOL_PERFORMANCE_COLLECTION, type ToolPerformanceDocument } from './tool.document';
import type { ChangeFeed, ChangeFollower } from '../../db/change-follower';

/** The stored fields every update pipeline builds on (tool.aggregation.ts). */
const UPDATED_FIELDS: Record<string, StoredKind> = {
  totalExecutions: 'number',
  successCount: 'number',
  failureCount: 'number',
  timedExecutions: 'number',
  totalDuration: 'number',
  slowCount: 'number',
  commonErrors: 'list',
  contexts: 'list',
  appliedWrites: 'list',
};

/** Attempts of an upsert that lost the insert race to a concurrent upsert of the same tool (E11000). */
const UPSERT_ATTEMPTS = 3;

/** The only code touching `tool_performance`. */
export class ToolPerformanceRepository {
  private readonly collection: Collection<ToolPerformanceDocument>;

  constructor(private readonly db: Db) {
    this.collection = db.collection<ToolPerformanceDocument>(TOOL_PERFORMANCE_COLLECTION);
  }

  /**
   * Adds one tool's delta in one atomic update pipeline (creating the document); returns the document after it. With
   * a `writeId` (a keyed write), a delta already applied under that id is not added again: the document is returned.
   */
  async apply(delta: ToolDelta, now: Date, writeId: string | null = null): Promise<ToolPerformanceDocument> {
    const pipeline = toolUpdatePipeline(delta, now);
    if (writeId !== null) pipeline.push(markApplied(writeId));
    for (let attempt = 1; ; attempt++) {
      try {
        const updated = await this.collection.findOneAndUpdate(
          { toolName: delta.toolName, ...(writeId !== null ? notApplied(writeId) : {}) },
          pipeline,
          { upsert: true, returnDocument: 'after' },
        );
        return updated!;
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw (await this.damage([delta.toolName])) ?? error;
        // The tool exists but the filter missed it: the write was applied before (a retry), so nothing is added.
        if (writeId !== null) {
          const applied = await this.collection.findOne({ toolName: delta.toolName, appliedWrites: writeId });
          if (applied) return applied;
        }
        // Two first writes of a new tool both tried to insert; the loser now finds the document and updates it.
        if (attempt === UPSERT_ATTEMPTS) throw error;
      }
    }
  }

  /**
   * Takes `delta` back out (see `negatedDelta`), with its `writeId` when it had one; a tool left with no executions is
   * removed, as before its first.
   */
  async undo(delta: ToolDelta, now: Date, writeId: string | null = null): Promise<void> {
    const pipeline = toolUpdatePipeline(negatedDelta(delta), now);
    if (writeId !== null) pipeline.push(unmarkApplied(writeId));
    await this.collection.updateOne(
      { toolName: delta.toolName, ...(writeId !== null ? { appliedWrites: writeId } : {}) },
      pipeline,
    );
    await this.collection.deleteOne({ toolName: delta.toolName, totalExecutions: { $lte: 0 } });
  }

  /** Why an update of one of these tools would fail: a stored field it builds on is damaged (CONFLICT); else null. */
  damage(toolNames: readonly string[]): Promise<ConflictError | null> {
    return storedDamage(this.collection, { toolName: { $in: [...toolNames] } }, UPDATED_FIELDS, {
      key: 'toolName',
      name: (toolName) => `tool ${JSON.stringify(toolName)}`,
    });
  }

  /** The documents of the named tools (those that exist), in any order: one read. */
  findByNames(toolNames: readonly string[]): Promise<ToolPerformanceDocument[]> {
    return findDocuments<ToolPerformanceDocument>(this.db, TOOL_PERFORMANCE_COLLECTION, {
      toolName: { $in: [...toolNames] },
    });
  }

  async findByName(toolName: string): Promise<ToolPerformanceDocument | null> {
    const [document] = await findDocuments<ToolPerformanceDocument>(
      this.db,
      TOOL_PERFORMANCE_COLLECTION,
      { toolName },
      { limit: 1 },
    );
    return document ?? null;
  }

  /** This collection's change feed, shared by every subscriber of this database (src/db/change-follower.ts). */
  followChanges(changes: ChangeFollower): Promise<ChangeFeed> {
    return changes.follow(this.db, TOOL_PERFORMANCE_COLLECTION);
  }

  /**
   * Takes out of every tool what forgotten tasks left that can be told apart: errors whose latest run was one of
   * `taskIds`, and the statistics of `contexts` (contexts only those tasks had). Counts stay (aggregates without
   * text). Returns how many tools changed; with `dryRun`, how many would.
   */
  async forgetTaskTraces(taskIds: readonly string[], contexts: readonly string[], dryRun: boolean): Promise<number> {
    if (!taskIds.length && !contexts.length) return 0;
    const tasks = { $literal: [...taskIds] };
    const named = { $literal: [...contexts] };
    const query = {
      $or: [
        { 'commonErrors.lastTaskId': { $in: [...taskIds] } },
        { 'commonErrors.context': { $in: [...contexts] } },
        { 'contexts.context': { $in: [...contexts] } },
        { optimalContext: { $in: [...contexts] } },
      ],
    };
    if (dryRun) return this.collection.countDocuments(query);
    const kept = (path: string, cond: object) => ({
      $cond: [{ $isArray: path }, { $filter: { input: path, cond } }, '$$REMOVE'],
    });
    const result = await this.collection.updateMany(query, [
      {
        $set: {
          commonErrors: kept('$commonErrors', {
            $not: [{ $or: [{ $in: ['$$this.lastTaskId', tasks] }, { $in: ['$$this.context', named] }] }],
          }),
          contexts: kept('$contexts', { $not: [{ $in: ['$$this.context', named] }] }),
          optimalContext: kept('$optimalContext', { $not: [{ $in: ['$$this', named] }] }),
        },
      },
    ]);
    return result.modifiedCount;
  }
}
