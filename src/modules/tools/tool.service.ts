import { randomUUID } from 'node:crypto';
import type { Db } from 'mongodb';
import { ValidationError } from '../../errors';
import { MAX_DURATION_MS } from '../shared/json-input';
import { Idempotency, deletedSince } from '../shared/idempotency';
import {
  storedDate,
  storedFloat,
  storedInt,
  storedObjects,
  storedText,
  storedTextList,
  storedTextOrNull,
  StoredReader,
} from '../shared/stored-values';
import { checkScopeId } from '../shared/user-scope';
import { summarizeExecutions, toolFiguresOf, type ExecutionCounts, type ToolExecution } from './tool.aggregation';
import { recommendations, scopeFigures } from './tool.recommendations';
import { ToolPerformanceRepository } from './tool.repository';
import { TOOL_PERFORMANCE_COLLECTION, type ToolPerformanceDocument } from './tool.document';
import type { ToolPerformance } from './tool.type';

/** At most this many executions per `recordExecutions` call. */
export const MAX_EXECUTIONS_PER_CALL = 1000;
const MAX_NAME_LENGTH = 200;

function checkName(value: string | null | undefined, field: string, required: boolean): string | null {
  const text = value?.trim() ?? '';
  if (!text) {
    if (required) throw new ValidationError(`${field} must not be empty.`, field);
    return null;
  }
  if (text.length > MAX_NAME_LENGTH)
    throw new ValidationError(`${field} must be at most ${MAX_NAME_LENGTH} characters.`, field);
  return text;
}

/** Checks and trims executions; `field` is the input's path for error messages (e.g. `inputs`). */
function checkExecutions(executions: readonly ToolExecution[], field: string): ToolExecution[] {
  if (executions.length > MAX_EXECUTIONS_PER_CALL) {
    throw new ValidationError(`At most ${MAX_EXECUTIONS_PER_CALL} executions per call.`, field);
  }
  return executions.map((execution, index) => {
    const path = `${field}.${index}`;
    const duration = execution.durationMs;
    if (duration != null && !(Number.isFinite(duration) && duration >= 0 && duration <= MAX_DURATION_MS)) {
      throw new ValidationError(
        `durationMs must be a number of milliseconds from 0 to ${MAX_DURATION_MS}.`,
        `${path}.durationMs`,
      );
    }
    return {
      toolName: checkName(execution.toolName, `${path}.toolName`, true)!,
      success: execution.success,
      durationMs: duration ?? null,
      error: execution.error ?? null,
      context: checkName(execution.context, `${path}.context`, false),
      taskId: execution.taskId ?? null,
    };
  });
}

const NO_COUNTS: ExecutionCounts = {
  totalExecutions: 0,
  successCount: 0,
  failureCount: 0,
  timedExecutions: 0,
  totalDuration: 0,
  slowCount: 0,
};

/** The counts of a stored tool or context entry; with `read`, each substitute recorded as `${at}<count>`. */
function storedCounts(stored: Record<string, unknown>, read: StoredReader | null, at: string): ExecutionCounts {
  const count = (name: 'totalExecutions' | 'successCount' | 'failureCount' | 'timedExecutions') => {
    const value = storedInt(stored[name]);
    return read ? read.field(name, `${at}${name}`, value) : value;
  };
  return {
    totalExecutions: count('totalExecutions'),
    successCount: count('successCount'),
    failureCount: count('failureCount'),
    timedExecutions: count('timedExecutions'),
    // Not clamped here: a sum that overflowed to Infinity averages to the largest figure (scopeFigures clamps).
    totalDuration: typeof stored.totalDuration === 'number' ? stored.totalDuration : 0,
    slowCount: storedInt(stored.slowCount),
  };
}

/**
 * A stored tool document in the shape the figures are computed from: each value read through stored-values.ts, so a
 * document another tool wrote with odd values still answers (counts that are no numbers count 0). What the answer
 * for `scope` (the whole tool, or one context) serves as a substitute is recorded on `read`.
 */
function storedTool(
  document: ToolPerformanceDocument,
  scope: string | null,
  read: StoredReader,
): ToolPerformanceDocument {
  return {
    ...storedCounts(document as unknown as Record<string, unknown>, scope === null ? read : null, ''),
    toolName: storedText(document.toolName),
    avgDuration: storedFloat(document.avgDuration),
    commonErrors: read
      .field('commonErrors', 'commonErrors', storedObjects<Record<string, unknown>>(document.commonErrors))
      .map((error) => ({
        error: storedText(error.error),
        frequency: storedInt(error.frequency),
        context: storedTextOrNull(error.context),
        lastTaskId: storedTextOrNull(error.lastTaskId),
      })),
    optimalContext: read.field('optimalContext', 'optimalContext', storedTextList(document.optimalContext)),
    lastUpdated: storedDate(document.lastUpdated),
    createdAt: storedDate(document.createdAt),
    contexts: storedObjects<Record<string, unknown>>(document.contexts).map((entry, index) => {
      const context = storedText(entry.context);
      return {
        ...storedCounts(entry, context === scope ? read : null, `contexts.${index}.`),
        context,
        successRate: storedFloat(entry.successRate),
        avgDuration: storedFloat(entry.avgDuration),
      };
    }),
  };
}

/** The `toolPerformance` answer for a stored document (or none yet), for the whole tool or one context. */
export function toToolPerformance(
  toolName: string,
  document: ToolPerformanceDocument | null,
  context: string | null,
): ToolPerformance {
  const read = new StoredReader(TOOL_PERFORMANCE_COLLECTION, toolName);
  document = document && storedTool(document, context, read);
  const contexts = document?.contexts ?? [];
  const allErrors = document?.commonErrors ?? [];
  const counts =
    context === null ? (document ?? NO_COUNTS) : (contexts.find((entry) => entry.context === context) ?? NO_COUNTS);
  const errors = context === null ? allErrors : allErrors.filter((error) => error.context === context);
  const figures = scopeFigures(counts, errors);
  const optimalContext = document?.optimalContext ?? [];
  return read.attach({
    toolName,
    context,
    totalExecutions: figures.totalExecutions,
    successCount: figures.successCount,
    failureCount: figures.failureCount,
    successRate: figures.successRate,
    avgDuration: figures.avgDuration,
    timedExecutions: figures.timedExecutions,
    commonErrors: figures.commonErrors,
    optimalContext,
    recommendations: recommendations({
      toolName,
      context,
      figures,
      contexts,
      overallAvgDuration: document?.avgDuration ?? 0,
      optimalContext,
    }),
    lastUpdated: document?.lastUpdated ?? null,
  });
}

/**
 * One user's executions of a tool, oldest first, and when the latest of them was recorded (null: none). Derived from
 * the user's tasks, which tool performance knows nothing of: the tasks feature provides it (see context.ts).
 */
export type UserToolExecutions = (
  userId: string,
  toolName: string,
) => Promise<{ executions: ToolExecution[]; lastRun: Date | null }>;

/** The default and the largest number of similar tasks `toolPerformance(similarTo)` counts. */
export const DEFAULT_SIMILAR_TASKS = 50;
export const MAX_SIMILAR_TASKS = 1000;

/** What figures on similar tasks are computed over: the past tasks most like `text` (see `SimilarToolExecutions`). */
export interface SimilarTasksQuery {
  text: string;
  k: number;
  /** Only this end user's tasks. */
  userId?: string;
  /** Tasks less similar than this (0–1) are left out (default 0: the k most similar, however similar). */
  minSimilarity?: number;
}

/**
 * The executions of `toolName` (null: of every tool) in the past tasks most similar to a text (their actions' tool
 * calls and the plan steps learnFromTask counted), oldest task first. Provided by the tasks feature (see context.ts).
 */
export type SimilarToolExecutions = (
  query: SimilarTasksQuery,
  toolName: string | null,
) => Promise<{ executions: ToolExecution[]; lastRun: Date | null }>;

/** The optional arguments of `ToolService.performance`. */
export interface PerformanceScope {
  context?: string | null;
  userId?: string | null;
  /** Figures over the `k` (default 50) past tasks most similar to this text. */
  similarTo?: string | null;
  k?: number | null;
}

/**
 * Tool performance for one request: recording executions and reading a tool's figures. The one way to tool
 * performance: the executor's reports (`record`, `recordMany`), `learnFromTask`'s plan steps and recorded agent runs
 * (`recordExecutions`, through the request's service) all come through here.
 */
export class ToolService {
  private readonly repository: ToolPerformanceRepository;
  private readonly idempotency: Idempotency;

  constructor(
    db: Db,
    idempotencyTtlHours: number,
    private readonly userExecutions: UserToolExecutions | null = null,
    private readonly similarExecutions: SimilarToolExecutions | null = null,
  ) {
    this.repository = new ToolPerformanceRepository(db);
    this.idempotency = new Idempotency(db, idempotencyTtlHours);
  }

  /**
   * Adds tool executions to the tools' running aggregates: one atomic update per distinct tool (concurrent callers
   * give exact totals), so reading a tool's performance is one indexed read. `field` is the input's path for error
   * messages. Returns the updated documents, one per distinct tool in first-seen order.
   *
   * All or nothing: every execution, and every stored tool document an update builds on, is checked before any update,
   * and when one tool's update still fails the tools already counted are counted back (their counts exactly; `lastUpdated` keeps the undone write's time).
   *
   * With a `writeId` (a keyed or otherwise identified write), a tool that already counted this write is not counted
   * again (see `markApplied`), so repeating the call, also after a crash part way, counts every tool once.
   */
  async recordExecutions(
    executions: readonly ToolExecution[],
    field: string,
    writeId: string | null = null,
  ): Promise<ToolPerformanceDocument[]> {
    const deltas = summarizeExecutions(checkExecutions(executions, field));
    // One tool's update is atomic; with several, a damaged one found first spares the others an undo (which would
    // leave their lastUpdated changed).
    if (deltas.length > 1) await this.checkWritable(deltas.map((delta) => delta.toolName));
    const now = new Date();
    const results = await Promise.allSettled(deltas.map((delta) => this.repository.apply(delta, now, writeId)));
    const failure = results.find((result) => result.status === 'rejected');
    if (failure) {
      await Promise.all(
        deltas
          .filter((_, i) => results[i].status === 'fulfilled')
          .map((delta) => this.repository.undo(delta, now, writeId)),
      );
      throw failure.reason;
    }
    return results.map((result) => (result as PromiseFulfilledResult<ToolPerformanceDocument>).value);
  }

  /**
   * Checks executions as `recordExecutions` would, and that every stored tool they count in can take the update
   * (else CONFLICT naming the stored field), without writing: for a caller that writes something else first.
   */
  async checkRecordable(executions: readonly ToolExecution[], field: string): Promise<void> {
    await this.checkWritable(summarizeExecutions(checkExecutions(executions, field)).map((delta) => delta.toolName));
  }

  private async checkWritable(toolNames: string[]): Promise<void> {
    const damage = await this.repository.damage(toolNames);
    if (damage) throw damage;
  }

  /**
   * `recordExecutions` with the caller's idempotency key: the key's plan holds the write id. A retry answers with the
   * tools' current figures (the first answer's, unless other calls counted since) and counts nothing again.
   */
  private recordKeyed(
    operation: string,
    executions: readonly ToolExecution[],
    field: string,
    idempotencyKey: string | null | undefined,
  ): Promise<ToolPerformanceDocument[]> {
    return this.idempotency.run({
      key: idempotencyKey,
      operation,
      input: executions,
      plan: () => ({ writeId: randomUUID() }),
      perform: async (plan, resumed, done) => {
        if (!done) return this.recordExecutions(executions, field, idempotencyKey == null ? null : plan.writeId);
        const names = summarizeExecutions(checkExecutions(executions, field)).map((delta) => delta.toolName);
        const documents = await Promise.all(names.map((name) => this.repository.findByName(name)));
        if (documents.some((document) => document === null)) throw deletedSince();
        return documents as ToolPerformanceDocument[];
      },
    });
  }

  /** Records one execution; returns the tool's figures after it. */
  async record(execution: ToolExecution, idempotencyKey?: string | null): Promise<ToolPerformance> {
    const [document] = await this.recordKeyed('recordToolExecution', [execution], 'input', idempotencyKey);
    return toToolPerformance(document.toolName, document, null);
  }

  /** Records a batch; returns each affected tool's figures, in first-seen order. */
  async recordMany(executions: readonly ToolExecution[], idempotencyKey?: string | null): Promise<ToolPerformance[]> {
    const documents = await this.recordKeyed('recordToolExecutions', executions, 'inputs', idempotencyKey);
    return documents.map((document) => toToolPerformance(document.toolName, document, null));
  }

  /**
   * A tool's figures (zeros when it never ran), for all its runs or those in `context`; with `userId`, for that user's
   * runs only; with `similarTo`, for its runs in the `k` past tasks most similar to that text (of `userId` when given).
   *
   * The stored aggregate is one document per tool with no trace of whose runs it counts, and keeping per-user counters
   * in it would grow it with every user. So one user's figures are computed on read from what their tasks hold (their
   * actions' tool calls, the plan steps learnFromTask counted), by the same rules as the stored aggregate: they stay
   * exact, and forgetting the user's tasks forgets them too. Figures on similar tasks are computed the same way from
   * the tasks similarTasks ranks first.
   */
  async performance(toolName: string, scope: PerformanceScope = {}): Promise<ToolPerformance> {
    const name = checkName(toolName, 'toolName', true)!;
    const context = checkName(scope.context, 'context', false);
    const user = checkScopeId(scope.userId, 'userId');
    const similar = checkSimilarTo(scope.similarTo, scope.k);
    if (similar) {
      const { executions, lastRun } = await this.similarSource()({ ...similar, userId: user }, name);
      return toToolPerformance(name, figuresOf(executions, lastRun)[0] ?? null, context);
    }
    if (user === undefined) return toToolPerformance(name, await this.repository.findByName(name), context);
    if (!this.userExecutions) throw new Error('ToolService: no source of user executions');
    const { executions, lastRun } = await this.userExecutions(user, name);
    return toToolPerformance(name, figuresOf(executions, lastRun)[0] ?? null, context);
  }

  /**
   * The figures of every tool called in the past tasks most similar to `query.text` (see `SimilarToolExecutions`),
   * by tool name: what recall's tool warnings are chosen from. The query is the caller's, already checked.
   */
  async performanceOnSimilar(query: SimilarTasksQuery): Promise<ToolPerformance[]> {
    const { executions, lastRun } = await this.similarSource()(query, null);
    return figuresOf(executions, lastRun)
      .map((figures) => toToolPerformance(figures.toolName, figures, null))
      .sort((a, b) => (a.toolName < b.toolName ? -1 : a.toolName > b.toolName ? 1 : 0));
  }

  private similarSource(): SimilarToolExecutions {
    if (!this.similarExecutions) throw new Error('ToolService: no source of similar tasks');
    return this.similarExecutions;
  }
}

/** Each tool's figures computed from derived executions (see tool.aggregation.ts), in first-seen order. */
function figuresOf(executions: readonly ToolExecution[], lastRun: Date | null): ToolPerformanceDocument[] {
  return summarizeExecutions(executions).map((delta) => toolFiguresOf(delta, lastRun ?? new Date(0)));
}

/**
 * `similarTo` and `k` checked (BAD_USER_INPUT naming the one at fault): null without `similarTo`. `k` is
 * 1–MAX_SIMILAR_TASKS (default DEFAULT_SIMILAR_TASKS) and only applies with `similarTo`.
 */
export function checkSimilarTo(
  similarTo: string | null | undefined,
  k: number | null | undefined,
): { text: string; k: number } | null {
  if (k != null && !(Number.isInteger(k) && k >= 1 && k <= MAX_SIMILAR_TASKS))
    throw new ValidationError(`k must be an integer from 1 to ${MAX_SIMILAR_TASKS}.`, 'k');
  if (similarTo == null) {
    if (k != null) throw new ValidationError('k applies only with similarTo.', 'k');
    return null;
  }
  const text = similarTo.trim();
  if (!text) throw new ValidationError('similarTo must not be blank.', 'similarTo');
  return { text, k: k ?? DEFAULT_SIMILAR_TASKS };
}
