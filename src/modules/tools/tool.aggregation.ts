import type { Document } from 'mongodb';
import { mergeCountedEntries, plus, ratio, topEntries } from './tool.running-totals';

/**
 * Tool performance is kept as running aggregates, one document per tool, changed by one atomic update pipeline per
 * tool and batch (counts are added to the stored counts and averages recomputed from them inside the update, never
 * read-modify-write), so concurrent writers give exact totals and `toolPerformance` is one indexed read.
 */

/** One call of a tool, as the executor reports it. */
export interface ToolExecution {
  toolName: string;
  success: boolean;
  /** Wall time in milliseconds; null when not measured (counted, but left out of the average). */
  durationMs?: number | null;
  /** The error of a failed call (kept verbatim, whitespace collapsed, cut at `MAX_ERROR_LENGTH`). */
  error?: string | null;
  /** Where it ran, e.g. `facility_management`; null for none. */
  context?: string | null;
  taskId?: string | null;
}

/** A call at or above this duration counts as slow. */
export const SLOW_RUN_MS = 5000;
/** A context qualifies for `optimalContext` with at least this many runs… */
export const OPTIMAL_CONTEXT_MIN_RUNS = 5;
/** …and at least this success rate. */
export const OPTIMAL_CONTEXT_MIN_SUCCESS_RATE = 0.8;
/** `optimalContext` lists at most this many contexts, best first. */
export const OPTIMAL_CONTEXT_LIMIT = 5;
/** Kept error entries (error × context), most frequent first; rarer ones are dropped. */
export const MAX_ERROR_ENTRIES = 50;
/** Kept context entries, most used first. */
export const MAX_CONTEXT_ENTRIES = 100;
export const MAX_ERROR_LENGTH = 500;

/** The counters kept per tool and per context. */
export interface ExecutionCounts {
  totalExecutions: number;
  successCount: number;
  failureCount: number;
  /** Runs with a measured duration (the denominator of the average). */
  timedExecutions: number;
  totalDuration: number;
  slowCount: number;
}

export interface ContextStats extends ExecutionCounts {
  context: string;
  /** successCount / totalExecutions, recomputed by every update. */
  successRate: number;
  /** totalDuration / timedExecutions (0 when none), recomputed by every update. */
  avgDuration: number;
}

export interface ErrorStats {
  error: string;
  frequency: number;
  context: string | null;
  /** The task of the latest run that hit this error, when reported. */
  lastTaskId?: string | null;
}

/** What one batch adds to one tool's document. */
export interface ToolDelta {
  toolName: string;
  counts: ExecutionCounts;
  contexts: Map<string, ExecutionCounts>;
  errors: Map<string, { error: string; context: string | null; frequency: number; lastTaskId: string | null }>;
}

const zeroCounts = (): ExecutionCounts => ({
  totalExecutions: 0,
  successCount: 0,
  failureCount: 0,
  timedExecutions: 0,
  totalDuration: 0,
  slowCount: 0,
});

function addExecution(counts: ExecutionCounts, execution: ToolExecution): void {
  counts.totalExecutions++;
  if (execution.success) counts.successCount++;
  else counts.failureCount++;
  if (execution.durationMs !== null && execution.durationMs !== undefined) {
    counts.timedExecutions++;
    counts.totalDuration += execution.durationMs;
    if (execution.durationMs >= SLOW_RUN_MS) counts.slowCount++;
  }
}

/** Normalises an error message for grouping: whitespace collapsed, trimmed, cut at MAX_ERROR_LENGTH; null if empty. */
export function normalizeError(error: string | null | undefined): string | null {
  const text = error?.replace(/\s+/g, ' ').trim();
  return text ? text.slice(0, MAX_ERROR_LENGTH) : null;
}

/** Groups executions by tool (first-seen order) and sums what each adds. Failed calls without an error count as `unknown error`. */
export function summarizeExecutions(executions: readonly ToolExecution[]): ToolDelta[] {
  const deltas = new Map<string, ToolDelta>();
  for (const execution of executions) {
    let delta = deltas.get(execution.toolName);
    if (!delta) {
      delta = { toolName: execution.toolName, counts: zeroCounts(), contexts: new Map(), errors: new Map() };
      deltas.set(execution.toolName, delta);
    }
    addExecution(delta.counts, execution);
    const context = execution.context ?? null;
    if (context !== null) {
      if (!delta.contexts.has(context)) delta.contexts.set(context, zeroCounts());
      addExecution(delta.contexts.get(context)!, execution);
    }
    if (!execution.success) {
      const error = normalizeError(execution.error) ?? 'unknown error';
      const key = JSON.stringify([error, context]);
      const entry = delta.errors.get(key) ?? { error, context, frequency: 0, lastTaskId: null };
      entry.frequency++;
      entry.lastTaskId = execution.taskId ?? entry.lastTaskId;
      delta.errors.set(key, entry);
    }
  }
  return [...deltas.values()];
}

const COUNT_FIELDS = Object.keys(zeroCounts()) as (keyof ExecutionCounts)[];

const negatedCounts = (counts: ExecutionCounts): ExecutionCounts =>
  Object.fromEntries(COUNT_FIELDS.map((field) => [field, -counts[field]])) as unknown as ExecutionCounts;

/** The delta that takes `delta` back out of a tool's totals (a batch undone after another tool's update failed). */
export function negatedDelta(delta: ToolDelta): ToolDelta {
  return {
    toolName: delta.toolName,
    counts: negatedCounts(delta.counts),
    contexts: new Map([...delta.contexts].map(([context, counts]) => [context, negatedCounts(counts)])),
    errors: new Map(
      [...delta.errors].map(([key, entry]) => [key, { ...entry, frequency: -entry.frequency, lastTaskId: null }]),
    ),
  };
}

/**
 * The update pipeline applying one tool's delta (with upsert): adds the counts, merges per-context counters and
 * error frequencies, then recomputes averages, rates, the kept entries and `optimalContext` from the stored sums.
 */
export function toolUpdatePipeline(delta: ToolDelta, now: Date): Document[] {
  const add: Document = {
    toolName: { $literal: delta.toolName },
    createdAt: { $ifNull: ['$createdAt', now] },
    lastUpdated: now,
  };
  for (const field of COUNT_FIELDS) add[field] = plus(`$${field}`, delta.counts[field]);
  if (delta.contexts.size) {
    add.contexts = mergeCountedEntries(
      'contexts',
      [...delta.contexts].map(([context, counts]) => ({ key: { context }, add: { ...counts } })),
    );
  }
  if (delta.errors.size) {
    add.commonErrors = mergeCountedEntries(
      'commonErrors',
      [...delta.errors.values()].map(({ error, context, frequency, lastTaskId }) => ({
        key: { error, context },
        add: { frequency },
        ...(lastTaskId !== null ? { set: { lastTaskId } } : {}),
      })),
    );
  }
  // Entries counted down to nothing (by a negated delta) are dropped, as if never counted.
  const contextsWithRates = {
    $map: {
      input: {
        $filter: { input: { $ifNull: ['$contexts', []] }, as: 'entry', cond: { $gt: ['$$entry.totalExecutions', 0] } },
      },
      as: 'entry',
      in: {
        $mergeObjects: [
          '$$entry',
          {
            successRate: ratio('$$entry.successCount', '$$entry.totalExecutions'),
            avgDuration: ratio('$$entry.totalDuration', '$$entry.timedExecutions'),
          },
        ],
      },
    },
  };
  return [
    { $set: add },
    {
      $set: {
        avgDuration: ratio('$totalDuration', '$timedExecutions'),
        contexts: topEntries(contextsWithRates, { totalExecutions: -1, context: 1 }, MAX_CONTEXT_ENTRIES),
        commonErrors: topEntries(
          {
            $filter: {
              input: { $ifNull: ['$commonErrors', []] },
              as: 'entry',
              cond: { $gt: ['$$entry.frequency', 0] },
            },
          },
          { frequency: -1, error: 1 },
          MAX_ERROR_ENTRIES,
        ),
      },
    },
    {
      $set: {
        optimalContext: {
          $map: {
            input: topEntries(
              {
                $filter: {
                  input: '$contexts',
                  as: 'entry',
                  cond: {
                    $and: [
                      { $gte: ['$$entry.totalExecutions', OPTIMAL_CONTEXT_MIN_RUNS] },
                      { $gte: ['$$entry.successRate', OPTIMAL_CONTEXT_MIN_SUCCESS_RATE] },
                    ],
                  },
                },
              },
              { successRate: -1, totalExecutions: -1, context: 1 },
              OPTIMAL_CONTEXT_LIMIT,
            ),
            as: 'entry',
            in: '$$entry.context',
          },
        },
      },
    },
  ];
}

const share = (part: number, whole: number): number => (whole > 0 ? part / whole : 0);
/** Binary string order, as `$sortArray` orders the stored entries. */
const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The figures `toolUpdatePipeline` would store for a tool whose only executions are `delta`'s, computed here instead
 * of in the database: for figures derived on read from one user's tasks (see ToolService.performance).
 */
export function toolFiguresOf(delta: ToolDelta, lastUpdated: Date): ToolPerformanceFigures {
  const contexts = [...delta.contexts]
    .map(([context, counts]) => ({
      ...counts,
      context,
      successRate: share(counts.successCount, counts.totalExecutions),
      avgDuration: share(counts.totalDuration, counts.timedExecutions),
    }))
    .sort((a, b) => b.totalExecutions - a.totalExecutions || byText(a.context, b.context))
    .slice(0, MAX_CONTEXT_ENTRIES);
  const optimalContext = contexts
    .filter(
      (entry) =>
        entry.totalExecutions >= OPTIMAL_CONTEXT_MIN_RUNS && entry.successRate >= OPTIMAL_CONTEXT_MIN_SUCCESS_RATE,
    )
    .sort(
      (a, b) => b.successRate - a.successRate || b.totalExecutions - a.totalExecutions || byText(a.context, b.context),
    )
    .slice(0, OPTIMAL_CONTEXT_LIMIT)
    .map((entry) => entry.context);
  const commonErrors = [...delta.errors.values()]
    .sort((a, b) => b.frequency - a.frequency || byText(a.error, b.error))
    .slice(0, MAX_ERROR_ENTRIES);
  return {
    ...delta.counts,
    toolName: delta.toolName,
    avgDuration: share(delta.counts.totalDuration, delta.counts.timedExecutions),
    contexts,
    commonErrors,
    optimalContext,
    lastUpdated,
    createdAt: lastUpdated,
  };
}

/** A tool's stored figures (the fields of a `tool_performance` document that `toolPerformance` serves). */
export interface ToolPerformanceFigures extends ExecutionCounts {
  toolName: string;
  avgDuration: number;
  commonErrors: ErrorStats[];
  optimalContext: string[];
  lastUpdated: Date;
  createdAt: Date;
  contexts?: ContextStats[];
}
