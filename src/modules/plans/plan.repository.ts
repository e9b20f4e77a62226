import type { Collection, Db, Document, Filter } from 'mongodb';
import type { EmbeddingModelInfo } from '../../embeddings/model-check';
import { isDuplicateKeyError, type ConflictError } from '../../errors';
import { storedDamage, type StoredKind } from '../shared/stored-damage';
import type { SortKey } from '../shared/connection';
import type { VectorDocuments } from '../shared/reembed-target';
import { vectorDocuments, type VectorLayout } from '../shared/vector-documents';
import { mergeCountedEntries, plus, ratio, topEntries } from '../tools/tool.running-totals';
import { PLAN_PATTERNS_COLLECTION, type PlanPatternDocument, type PlanStepDocument } from './plan.document';

/** Issue entries kept per pattern (most frequent first) and how many of them `commonIssues` lists. */
export const MAX_ISSUE_ENTRIES = 50;
export const COMMON_ISSUES_LIMIT = 10;
const UPSERT_ATTEMPTS = 3;
/** The stored fields `learnedRunPipeline` builds on. */
const LEARNED_FIELDS: Record<string, StoredKind> = {
  usageCount: 'number',
  successCount: 'number',
  failureCount: 'number',
  totalExecutionTime: 'number',
  issues: 'list',
};

const WITHOUT_VECTORS = { projection: { embeddings: 0 } } as const;

/** One run, as learnFromTask adds it to its plan pattern. */
export interface LearnedRun {
  patternId: string;
  goalPattern: string;
  steps: PlanStepDocument[];
  /** The run's goal: the pattern's example goal when the run creates it. */
  goal: string;
  /** The goal's vector and its embedder, stored on a new pattern for semantic matching. */
  goalVector: number[];
  model: EmbeddingModelInfo;
  success: boolean;
  executionTime: number;
  /** Issues of a failed run (distinct). */
  issues: string[];
  /** When the run started (lastUsed is the latest of these). */
  at: Date;
}

/**
 * The update pipeline adding one run to its pattern (with upsert): counts added to the stored counts, then
 * successRate and avgExecutionTime recomputed from them inside the same atomic update.
 */
export function learnedRunPipeline(run: LearnedRun, now: Date): Document[] {
  const firstRun: Document = {
    goalPattern: run.goalPattern,
    stepSequence: run.steps.map((step) => step.action),
    steps: run.steps,
    exampleGoal: run.goal,
    embeddings: { goal_embedding: run.goalVector },
    embedding_model: run.model,
  };
  const set: Document = {
    patternId: { $literal: run.patternId },
    createdAt: { $ifNull: ['$createdAt', now] },
    usageCount: plus('$usageCount', 1),
    successCount: plus('$successCount', run.success ? 1 : 0),
    failureCount: plus('$failureCount', run.success ? 0 : 1),
    totalExecutionTime: plus('$totalExecutionTime', run.executionTime),
    lastUsed: { $max: [{ $ifNull: ['$lastUsed', run.at] }, run.at] },
  };
  for (const [field, value] of Object.entries(firstRun)) set[field] = { $ifNull: [`$${field}`, { $literal: value }] };
  if (run.issues.length) {
    set.issues = mergeCountedEntries(
      'issues',
      run.issues.map((issue) => ({ key: { issue }, add: { count: 1 } })),
    );
  }
  return [
    { $set: set },
    {
      $set: {
        successRate: ratio('$successCount', '$usageCount'),
        avgExecutionTime: ratio('$totalExecutionTime', '$usageCount'),
        issues: topEntries('$issues', { count: -1, issue: 1 }, MAX_ISSUE_ENTRIES),
      },
    },
    {
      $set: {
        commonIssues: {
          $map: { input: { $slice: ['$issues', COMMON_ISSUES_LIMIT] }, as: 'entry', in: '$$entry.issue' },
        },
      },
    },
  ];
}

/** The only code touching `plan_patterns`. */
export class PlanPatternRepository {
  private readonly collection: Collection<PlanPatternDocument>;

  constructor(db: Db) {
    this.collection = db.collection<PlanPatternDocument>(PLAN_PATTERNS_COLLECTION);
  }

  /** The documents as re-embedding sees them, laid out as the feature's `ReembedTarget` says. */
  vectorDocuments(layout: VectorLayout): VectorDocuments {
    return vectorDocuments(this.collection, layout);
  }

  /** Adds a run to its pattern in one atomic update, creating the pattern; says whether it was created. */
  async learnRun(run: LearnedRun, now: Date): Promise<{ document: PlanPatternDocument; created: boolean }> {
    for (let attempt = 1; ; attempt++) {
      try {
        const result = await this.collection.findOneAndUpdate(
          { patternId: run.patternId },
          learnedRunPipeline(run, now),
          {
            upsert: true,
            returnDocument: 'after',
            includeResultMetadata: true,
            ...WITHOUT_VECTORS,
          },
        );
        return { document: result.value!, created: !result.lastErrorObject?.updatedExisting };
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw (await this.learnDamage(run.patternId)) ?? error;
        // Lost the insert race to a concurrent first run of the same pattern: the retry updates its document.
        if (attempt === UPSERT_ATTEMPTS) throw error;
      }
    }
  }

  /** Why `learnRun` on the pattern would fail: a stored field it builds on is damaged (CONFLICT); else null. */
  learnDamage(patternId: string): Promise<ConflictError | null> {
    return storedDamage(this.collection, { patternId }, LEARNED_FIELDS, `plan pattern ${JSON.stringify(patternId)}`);
  }

  /** Patterns by id, without vectors, in no particular order. */
  findByIds(ids: readonly string[]): Promise<PlanPatternDocument[]> {
    return this.collection.find({ patternId: { $in: [...ids] } }, WITHOUT_VECTORS).toArray();
  }

  /** Patterns by id, restricted to `filter`, without their vectors (what ranking candidates need). */
  findCandidates(ids: readonly string[], filter: Filter<PlanPatternDocument>): Promise<PlanPatternDocument[]> {
    return this.collection.find({ $and: [{ patternId: { $in: [...ids] } }, filter] }, WITHOUT_VECTORS).toArray();
  }

  /** Up to `limit` ids of patterns whose goalPattern starts with one of `prefixes` (an indexed range), within `filter`. */
  async idsByPatternPrefix(prefixes: RegExp[], filter: Filter<PlanPatternDocument>, limit: number): Promise<string[]> {
    if (!prefixes.length) return [];
    const rows = await this.collection
      .find({ $and: [{ goalPattern: { $in: prefixes } }, filter] }, { projection: { _id: 0, patternId: 1 } })
      .sort({ usageCount: -1 })
      .limit(limit)
      .toArray();
    return rows.map((row) => row.patternId);
  }

  /** One keyset page (rows after `after`, in `sort` order), without vectors. */
  findPage(
    filter: Filter<PlanPatternDocument>,
    after: Document | null,
    sort: SortKey[],
    limit: number,
  ): Promise<PlanPatternDocument[]> {
    const query = after ? { $and: [filter, after] } : filter;
    return this.collection
      .find(query as Filter<PlanPatternDocument>, WITHOUT_VECTORS)
      .sort(sort.map((key) => [key.field, key.direction] as [string, 1 | -1]))
      .limit(limit)
      .toArray();
  }

  count(filter: Filter<PlanPatternDocument>): Promise<number> {
    return this.collection.countDocuments(filter);
  }

  /** The example goals and issues of the patterns (what forgetting compares with the forgotten tasks' texts). */
  findExamples(
    ids: readonly string[],
  ): Promise<Array<Pick<PlanPatternDocument, 'patternId' | 'exampleGoal' | 'commonIssues' | 'issues'>>> {
    if (!ids.length) return Promise.resolve([]);
    const projection = { _id: 0, patternId: 1, exampleGoal: 1, commonIssues: 1, issues: 1 };
    return this.collection.find({ patternId: { $in: [...ids] } }, { projection }).toArray();
  }

  /** Deletes the patterns (forgotten tasks were all they were learned from); returns how many. */
  async forgetPatterns(ids: readonly string[]): Promise<number> {
    if (!ids.length) return 0;
    return (await this.collection.deleteMany({ patternId: { $in: [...ids] } })).deletedCount;
  }

  /** Replaces a pattern's example goal and its vector (the goal was a forgotten task's); false when it is gone. */
  async replaceExample(patternId: string, goal: string, vector: number[], model: EmbeddingModelInfo): Promise<boolean> {
    const result = await this.collection.updateOne(
      { patternId },
      { $set: { exampleGoal: goal, 'embeddings.goal_embedding': vector, embedding_model: model } },
    );
    return result.matchedCount === 1;
  }

  /** Takes the issue texts out of the patterns (insights that forgotten runs reported); returns how many changed. */
  async forgetIssues(ids: readonly string[], texts: readonly string[]): Promise<number> {
    if (!ids.length || !texts.length) return 0;
    const result = await this.collection.updateMany(
      {
        patternId: { $in: [...ids] },
        $or: [{ 'issues.issue': { $in: [...texts] } }, { commonIssues: { $in: [...texts] } }],
      },
      { $pull: { issues: { issue: { $in: [...texts] } }, commonIssues: { $in: [...texts] } } },
    );
    return result.modifiedCount;
  }
}
