import type { IndexDescription, ObjectId } from 'mongodb';
import type { CollectionIndexes } from '../../db/indexes';
import { EMBEDDING_MODEL_INDEX } from '../shared/reembed-target';
import { expiresAtIndex, retentionIndexName, retentionIndexes } from '../shared/expiry';
import type { EmbeddingModelInfo } from '../../embeddings/model-check';
import type { AgentType } from '../insights/insight.document';
import type { PlanStepDocument } from '../plans/plan.document';

/** The collection of seed 002's TaskSimilarity records (seed 004 adds `actions` to them). */
export const TASKS_COLLECTION = 'tasks';

/** How a task ended; stored as the seed's lowercase strings (the enum's values). */
export enum TaskStatus {
  COMPLETED = 'completed',
  FAILED = 'failed',
  PAUSED = 'paused',
}

export interface SuccessMetricsDocument {
  /** Milliseconds. */
  executionTime: number;
  stepsCompleted: number;
  retries: number;
  userInputsRequired: number;
}

/** What learnFromTask has done for a task: the claim that makes it count once, its finished parts, its answer. */
export interface TaskLearningDocument {
  state: 'applying' | 'learned';
  claimId: string;
  claimedAt: Date;
  /** Parts already applied (a retry after an interrupted claim skips them). */
  done?: { pattern?: boolean; tools?: boolean };
  result?: { patternsLearned: number; insightsStored: number; patternId: string | null };
  learnedAt?: Date;
}

/**
 * A document of `tasks`: seed 002's TaskSimilarity fields (taskId, originalQuery, goal, planId, status,
 * successMetrics, createdAt) plus the goal's template, the plan's steps, the agent, the pattern it was learned into,
 * the vectors of query and goal, and the learning state.
 */
export interface TaskDocument {
  _id?: ObjectId;
  taskId: string;
  originalQuery: string;
  goal: string;
  planId: string | null;
  status: TaskStatus;
  successMetrics: SuccessMetricsDocument;
  createdAt: Date;
  goalPattern: string;
  steps: PlanStepDocument[];
  agentType: AgentType | null;
  context: string | null;
  /** The end user the task is about (issue 41 scopes; snake_case as the contract fixes it). */
  user_id?: string | null;
  patternId: string | null;
  embeddings?: { originalQuery_embedding?: number[]; goal_embedding?: number[] } | null;
  embedding_model?: EmbeddingModelInfo | null;
  learning?: TaskLearningDocument | null;
  /** Seed 004: the run's iterations (served by src/modules/runs); left out of task reads, which page them separately. */
  actions?: ActionDocument[];
  /** The run summary stuckTasks reads, kept by the update that appends an action. */
  run?: RunSummaryDocument;
  /** When the TTL index deletes it (recordTask's expiresAt or ttlSeconds); absent: kept. */
  expires_at?: Date | null;
}

// Seed 004's run of a task, stored in the task document (`actions`, and Hindsight's `run` summary); src/modules/runs
// serves it. Its enums' values are the stored strings.

/** Reasoning mode of an iteration; stored as the seed's 'fast' | 'deep'. */
export enum ActionMode {
  FAST = 'fast',
  DEEP = 'deep',
}

/** Seed 004's ToolOutcome; stored as its lower-case values. */
export enum ToolOutcome {
  SUCCESS = 'success',
  FAILURE = 'failure',
  ERROR = 'error',
  TIMEOUT = 'timeout',
}

/** Trajectory of an iteration (phase 2); stored as 'advancing' | 'stuck' | 'regressing', '' when not assessed. */
export enum ActionProgress {
  ADVANCING = 'advancing',
  STUCK = 'stuck',
  REGRESSING = 'regressing',
}

/** Goal relevance of a tool call (phase 2); stored as 'high' | 'medium' | 'low', '' when not rated. */
export enum Relevance {
  HIGH = 'high',
  MEDIUM = 'medium',
  LOW = 'low',
}

/** A stored tool call (seed 004 `tool_calls[]`, plus `result_truncated`). */
export interface ToolCallDocument {
  name: string;
  args: Record<string, unknown>;
  /** Cut to RESULT_MAX_LENGTH characters on write. */
  result: string;
  result_truncated: boolean;
  outcome: ToolOutcome;
  /** Milliseconds; null when not reported. */
  execution_time: number | null;
  insights: string;
  learning: string;
  relevance: Relevance | '';
}

/** A stored iteration (seed 004 `actions[]`). */
export interface ActionDocument {
  iteration: number;
  timestamp: Date;
  mode: ActionMode;
  thinking: string;
  planning: string;
  reflection: string;
  approach: string;
  tool_calls: ToolCallDocument[];
  synthesis: string;
  progress: ActionProgress | '';
  hypothesis: { belief: string; test: string };
}

/** A failing call repeated by the latest iterations (`key`: hash of tool name and canonical arguments). */
export interface FailingCallDocument {
  key: string;
  tool: string;
  /** Phase-1 line of its latest occurrence. */
  call: string;
  /** Consecutive latest iterations that had it failing. */
  streak: number;
}

/**
 * Hindsight's addition to a task with actions (`tasks.run`), kept by the same atomic update that appends an action,
 * so that stuckTasks is one indexed query.
 */
export interface RunSummaryDocument {
  last_iteration: number;
  last_action_at: Date;
  /** Consecutive latest iterations reporting progress 'stuck'. */
  stuck_streak: number;
  /** The failing calls of the latest iteration, each with its streak. */
  failing_calls: FailingCallDocument[];
  /** max(stuck_streak, longest failing-call streak). */
  stuck_iterations: number;
  /** The keyed recordAction calls applied, latest last (at most MAX_APPLIED_WRITES): a retried one is not appended. */
  applied_actions?: { write_id: string; iteration: number }[];
}

/**
 * Seed 002: status, createdAt (originalQuery and goal get no text index: the embedded engine has no $text, so
 * keyword relevance comes from the search subsystem's BM25), plus the unique taskId and the goal-template lookups;
 * and the run summary, through which stuckTasks reads. (user_id, createdAt) serves one user's lists and searches,
 * (user_id, patternId) a user's plan figures (successfulPlans(userId)). TTL indexes: each record's `expires_at`, and
 * RETENTION_TASKS on `createdAt`.
 */
export const TASK_INDEXES: CollectionIndexes = {
  collection: TASKS_COLLECTION,
  conditional: [retentionIndexName('createdAt')],
  indexes: (config): IndexDescription[] => [
    { key: { taskId: 1 }, name: 'taskId_unique', unique: true },
    { key: { status: 1, createdAt: -1 }, name: 'status_createdAt' },
    { key: { createdAt: -1, taskId: -1 }, name: 'createdAt_taskId' },
    { key: { goalPattern: 1, createdAt: -1 }, name: 'goalPattern_createdAt' },
    { key: { planId: 1 }, name: 'planId' },
    { key: { patternId: 1 }, name: 'patternId' },
    { key: { user_id: 1, createdAt: -1 }, name: 'user_id_createdAt' },
    { key: { user_id: 1, patternId: 1 }, name: 'user_id_patternId' },
    { key: { 'run.stuck_iterations': -1, 'run.last_action_at': -1 }, name: 'run_stuck_iterations' },
    EMBEDDING_MODEL_INDEX,
    expiresAtIndex('expires_at'),
    ...retentionIndexes('createdAt', config.retentionTasks),
  ],
};
