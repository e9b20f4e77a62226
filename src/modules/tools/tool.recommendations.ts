import { finiteFigure } from '../shared/json-input';
import type { ContextStats, ErrorStats, ExecutionCounts } from './tool.aggregation';
import { SLOW_RUN_MS } from './tool.aggregation';

/**
 * The figures `toolPerformance` reports for one scope (the whole tool, or one context), and the rules that turn
 * them into recommendations. Pure functions over the stored aggregates: nothing here reads history.
 */

/** A rule fires only on a scope (or context) with at least this many runs. */
export const MIN_RUNS = 5;
/** A context failing at least this share of its runs gets a warning. */
export const HIGH_FAILURE_RATE = 0.3;
/** An error causing at least this share of the failures (and at least `DOMINANT_ERROR_MIN_COUNT` of them) dominates. */
export const DOMINANT_ERROR_SHARE = 0.5;
export const DOMINANT_ERROR_MIN_COUNT = 3;
/** Slow runs (≥ SLOW_RUN_MS) making up at least this share of the timed runs get a warning. */
export const SLOW_RUN_SHARE = 0.2;
/** A context whose average duration is at least this multiple of the tool's average is called slow. */
export const SLOW_CONTEXT_FACTOR = 2;

export interface ScopeFigures extends ExecutionCounts {
  successRate: number;
  avgDuration: number;
  /** Errors of the scope with `percentage` = 100 × frequency / failureCount (the share of failures). */
  commonErrors: Array<ErrorStats & { lastTaskId: string | null; percentage: number }>;
}

const rate = (part: number, whole: number): number => (whole > 0 ? part / whole : 0);
const percent = (value: number): string => `${Math.round(value * 100)}%`;
const ms = (value: number): string => `${Math.round(value)} ms`;

/**
 * The figures of one scope: the tool's totals and all its errors, or one context's counters and errors. Written field
 * by field: a spread followed by more properties makes V8 build a new hidden class every time (several per request).
 */
export function scopeFigures(counts: ExecutionCounts, errors: readonly ErrorStats[]): ScopeFigures {
  return {
    totalExecutions: counts.totalExecutions,
    successCount: counts.successCount,
    failureCount: counts.failureCount,
    timedExecutions: counts.timedExecutions,
    totalDuration: finiteFigure(counts.totalDuration),
    slowCount: counts.slowCount,
    successRate: rate(counts.successCount, counts.totalExecutions),
    avgDuration: finiteFigure(rate(counts.totalDuration, counts.timedExecutions)),
    commonErrors: errors.map((error) => ({
      error: error.error,
      frequency: error.frequency,
      context: error.context,
      lastTaskId: error.lastTaskId ?? null,
      percentage: 100 * rate(error.frequency, counts.failureCount),
    })),
  };
}

export interface RecommendationInput {
  toolName: string;
  /** The context asked for, or null for the whole tool. */
  context: string | null;
  figures: ScopeFigures;
  /** Per-context counters of the tool (all of them, whatever the scope). */
  contexts: readonly ContextStats[];
  /** The tool's overall average duration, to compare contexts with. */
  overallAvgDuration: number;
  optimalContext: readonly string[];
}

/**
 * Recommendations, in this order (each rule is independent; thresholds are the constants above):
 * 1. too few runs in the scope (< MIN_RUNS): the figures are not reliable, and no other rule fires;
 * 2. high failure rate: each context of the scope with ≥ MIN_RUNS runs failing ≥ HIGH_FAILURE_RATE of them
 *    (worst first), pointing to the best other context when there is one; for the whole tool without contexts,
 *    the overall rate;
 * 3. dominant error: an error (summed over contexts for the whole tool) causing ≥ DOMINANT_ERROR_SHARE of the
 *    scope's failures, at least DOMINANT_ERROR_MIN_COUNT times;
 * 4. slow runs: ≥ SLOW_RUN_SHARE of the scope's timed runs took SLOW_RUN_MS or more;
 * 5. slow context (whole tool only): a context with ≥ MIN_RUNS timed runs averaging ≥ SLOW_CONTEXT_FACTOR × the
 *    tool's average;
 * 6. best contexts (whole tool only): the tool's `optimalContext`.
 */
export function recommendations(input: RecommendationInput): string[] {
  const { toolName, context, figures, contexts } = input;
  const where = context === null ? '' : ` in context "${context}"`;
  if (figures.totalExecutions < MIN_RUNS) {
    return [
      `Only ${figures.totalExecutions} execution${figures.totalExecutions === 1 ? '' : 's'} of ${toolName}${where} recorded: too few for reliable figures.`,
    ];
  }
  const advice: string[] = [];

  const scoped = context === null ? contexts : contexts.filter((entry) => entry.context === context);
  const failing = scoped
    .filter((entry) => entry.totalExecutions >= MIN_RUNS && 1 - entry.successRate >= HIGH_FAILURE_RATE)
    .sort((a, b) => a.successRate - b.successRate || a.context.localeCompare(b.context));
  for (const entry of failing) {
    const better = input.optimalContext.find((name) => name !== entry.context);
    const bestEntry = better === undefined ? undefined : contexts.find((candidate) => candidate.context === better);
    advice.push(
      `Fails in ${percent(1 - entry.successRate)} of runs in context "${entry.context}" (${entry.failureCount} of ${entry.totalExecutions})` +
        (bestEntry ? `; it does better in "${bestEntry.context}" (${percent(bestEntry.successRate)} success).` : '.'),
    );
  }
  if (context === null && !contexts.length && 1 - figures.successRate >= HIGH_FAILURE_RATE) {
    advice.push(
      `Fails in ${percent(1 - figures.successRate)} of runs (${figures.failureCount} of ${figures.totalExecutions}).`,
    );
  }

  const byError = new Map<string, number>();
  for (const error of figures.commonErrors) byError.set(error.error, (byError.get(error.error) ?? 0) + error.frequency);
  const [dominant] = [...byError]
    .filter(
      ([, count]) => count >= DOMINANT_ERROR_MIN_COUNT && rate(count, figures.failureCount) >= DOMINANT_ERROR_SHARE,
    )
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  if (dominant) {
    const [error, count] = dominant;
    advice.push(
      `"${error}" causes ${percent(rate(count, figures.failureCount))} of failures${where} (${count} of ${figures.failureCount}): guard against it before calling ${toolName}.`,
    );
  }

  if (figures.timedExecutions >= MIN_RUNS && rate(figures.slowCount, figures.timedExecutions) >= SLOW_RUN_SHARE) {
    advice.push(
      `${percent(rate(figures.slowCount, figures.timedExecutions))} of timed runs${where} took ${SLOW_RUN_MS} ms or more (average ${ms(figures.avgDuration)}): allow for it in time budgets.`,
    );
  }

  if (context === null) {
    for (const entry of contexts) {
      if (
        entry.timedExecutions >= MIN_RUNS &&
        input.overallAvgDuration > 0 &&
        entry.avgDuration >= SLOW_CONTEXT_FACTOR * input.overallAvgDuration
      ) {
        advice.push(
          `Slow in context "${entry.context}": average ${ms(entry.avgDuration)} against ${ms(input.overallAvgDuration)} overall.`,
        );
      }
    }
    if (input.optimalContext.length) {
      const described = input.optimalContext.map((name) => {
        const entry = contexts.find((candidate) => candidate.context === name);
        return entry
          ? `"${name}" (${percent(entry.successRate)} success over ${entry.totalExecutions} runs)`
          : `"${name}"`;
      });
      advice.push(`Works best in ${described.join(', ')}.`);
    }
  }
  return advice;
}
