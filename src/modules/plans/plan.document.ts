import type { ObjectId } from 'mongodb';
import type { CollectionIndexes } from '../../db/indexes';
import { EMBEDDING_MODEL_INDEX } from '../shared/reembed-target';
import type { EmbeddingModelInfo } from '../../embeddings/model-check';

/** The collection of seed 002's PlanPattern. */
export const PLAN_PATTERNS_COLLECTION = 'plan_patterns';

export interface PlanStepDocument {
  id: string;
  action: string;
  order: number;
}

/**
 * A document of `plan_patterns`: the seed's fields (patternId, goalPattern, stepSequence, successRate,
 * avgExecutionTime, commonIssues, createdAt, lastUsed, usageCount) plus the counts the rates are computed from, the
 * steps and goal of the first run learned into it, and that goal's vector for semantic matching.
 */
export interface PlanPatternDocument {
  _id?: ObjectId;
  patternId: string;
  goalPattern: string;
  stepSequence: string[];
  successRate: number;
  avgExecutionTime: number;
  commonIssues: string[];
  createdAt: Date;
  lastUsed: Date;
  usageCount: number;
  steps: PlanStepDocument[];
  exampleGoal: string;
  successCount: number;
  failureCount: number;
  totalExecutionTime: number;
  /** Issue counts of failed runs, most frequent first; `commonIssues` lists their texts. */
  issues: Array<{ issue: string; count: number }>;
  embeddings?: { goal_embedding?: number[] } | null;
  embedding_model?: EmbeddingModelInfo | null;
}

/**
 * One user's runs learned into one plan pattern (their tasks' `patternId`), oldest first: what successfulPlans(userId)
 * answers from instead of the pattern's all-user counts.
 */
export interface UserPlanRuns {
  /** The patternId. */
  _id: string;
  usageCount: number;
  successCount: number;
  totalExecutionTime: number;
  lastUsed: Date;
  /** The goal of the user's latest run. */
  latestGoal: string;
  /** Per run: null for a completed one; for a failed one its steps' actions (empty: the pattern's) and steps completed. */
  failures: Array<{ actions?: unknown; completed?: unknown } | null>;
}

/**
 * Seed 002: goalPattern, successRate, usageCount (goalPattern also serves the prefix lookups of pattern matching; a
 * text index is not created: keyword relevance comes from the search subsystem's BM25). patternId is unique.
 */
export const PLAN_INDEXES: CollectionIndexes = {
  collection: PLAN_PATTERNS_COLLECTION,
  indexes: [
    { key: { patternId: 1 }, name: 'patternId_unique', unique: true },
    { key: { goalPattern: 1, usageCount: -1 }, name: 'goalPattern_usageCount' },
    { key: { successRate: -1 }, name: 'successRate' },
    { key: { usageCount: -1 }, name: 'usageCount' },
    { key: { lastUsed: -1, patternId: -1 }, name: 'lastUsed_patternId' },
    EMBEDDING_MODEL_INDEX,
  ],
};
