import type OpenAI from 'openai';
import type { Db } from 'mongodb';
import type { AppDeps } from '../../app';
import type { Logger } from '../../logger';
import { backoffDelayMs, withRetries, type RetryPolicy } from '../../embeddings/retry';
import { Relevance, type ActionDocument } from '../tasks/task.document';
import { TaskRepository, type ActionEnrichment } from '../tasks/task.repository';
import { MAX_COMPRESSION_LENGTH, MAX_REASONING_LENGTH, truncate } from './run.validation';

const DEFAULT_BASE_URL = 'https://api.openai.com/v1';
/** Jobs waiting beyond this are dropped (logged): enrichment is best effort and must not grow memory without bound. */
const MAX_PENDING = 1000;
/** How much of the thinking goes into the prompt. */
const PROMPT_THINKING_LENGTH = 2000;

const SYSTEM_PROMPT = [
  "You compress one iteration of an AI agent's run into short notes that later prompts use instead of the raw tool results.",
  'Reply with a JSON object only: {"synthesis": string, "tool_calls": [{"insights": string, "learning": string, "relevance": "high" | "medium" | "low"}]},',
  'with exactly one tool_calls entry per tool call, in the given order.',
  'synthesis: one sentence on how this iteration advances the goal.',
  'insights: the key finding of the call that matters for the goal (1-2 sentences).',
  'learning: what the call teaches about the effectiveness of the approach.',
  'relevance: how important the call is to the goal.',
].join(' ');

export interface ActionEnricherOptions {
  apiKey: string;
  /** Any OpenAI-compatible API; default api.openai.com. */
  baseURL?: string;
  /** Chat model (CHAT_MODEL). */
  model: string;
  logger: Logger;
  /** Timeout of one attempt (default 60 s). */
  timeoutMs?: number;
  /** Retries on 408, 429, 5xx, timeouts and network errors (default 2). */
  maxRetries?: number;
  /** First backoff delay (default 1 s; doubles per retry). */
  retryBaseDelayMs?: number;
  /** Longest wait between attempts (default 8 s). */
  retryMaxDelayMs?: number;
}

/** One recorded action to enrich, with what the prompt needs. */
export interface EnrichmentJob {
  db: Db;
  taskId: string;
  goal: string;
  action: ActionDocument;
}

/** True when the action has an empty compression field that enrichment fills (synthesis, or a call's insights, learning, relevance). */
export function needsEnrichment(action: ActionDocument): boolean {
  return (
    action.synthesis === '' ||
    action.tool_calls.some((call) => call.insights === '' || call.learning === '' || call.relevance === '')
  );
}

const RELEVANCES = new Set<string>(Object.values(Relevance));

/**
 * The fields an answer fills: only those empty in the recorded action (what the agent supplied is kept), cut to
 * their limits; a relevance other than high/medium/low is ignored. Throws when the answer is not the JSON object
 * asked for or has another number of tool_calls entries than the action has calls.
 */
export function parseEnrichment(content: string, action: ActionDocument): ActionEnrichment {
  const data: unknown = JSON.parse(content);
  if (data === null || typeof data !== 'object' || Array.isArray(data))
    throw new Error('the answer is not a JSON object');
  const { synthesis, tool_calls: calls } = data as { synthesis?: unknown; tool_calls?: unknown };
  const answers = Array.isArray(calls) ? calls : [];
  if (answers.length !== action.tool_calls.length) {
    throw new Error(`the answer has ${answers.length} tool_calls entries for ${action.tool_calls.length} tool calls`);
  }
  // A field is filled only when it is empty in the action and the answer has a usable value for it.
  const text = (value: unknown, max: number) =>
    typeof value === 'string' && value.trim() ? truncate(value.trim(), max).text : undefined;
  const enrichment: ActionEnrichment = { toolCalls: [] };
  const summary = action.synthesis === '' ? text(synthesis, MAX_REASONING_LENGTH) : undefined;
  if (summary !== undefined) enrichment.synthesis = summary;
  action.tool_calls.forEach((call, i) => {
    const answer = (answers[i] ?? {}) as { insights?: unknown; learning?: unknown; relevance?: unknown };
    const fields: ActionEnrichment['toolCalls'][number] = {};
    const insights = call.insights === '' ? text(answer.insights, MAX_COMPRESSION_LENGTH) : undefined;
    if (insights !== undefined) fields.insights = insights;
    const learning = call.learning === '' ? text(answer.learning, MAX_COMPRESSION_LENGTH) : undefined;
    if (learning !== undefined) fields.learning = learning;
    const relevance = typeof answer.relevance === 'string' ? answer.relevance.trim().toLowerCase() : '';
    if (call.relevance === '' && RELEVANCES.has(relevance)) fields.relevance = relevance as Relevance;
    enrichment.toolCalls.push(fields);
  });
  return enrichment;
}

/**
 * Fills the compression fields of recorded actions (insights, learning, relevance, synthesis) with an
 * OpenAI-compatible chat API, in the background: `enqueue` returns at once, jobs run one after the other after the
 * current turn of the event loop, and a failure is logged, never thrown to the caller. The queue is in memory: jobs
 * pending at shutdown are lost (the actions keep their empty fields, as in phase 1).
 */
export class ActionEnricher {
  readonly model: string;
  private readonly options: ActionEnricherOptions;
  private client: Promise<OpenAI> | undefined;
  private readonly retry: RetryPolicy;
  private readonly timeoutMs: number;
  private readonly logger: Logger;
  private pending = 0;
  private tail: Promise<void> = Promise.resolve();

  constructor(options: ActionEnricherOptions) {
    this.model = options.model;
    this.logger = options.logger;
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.options = options;
    this.retry = {
      maxRetries: options.maxRetries ?? 2,
      baseDelayMs: options.retryBaseDelayMs ?? 1000,
      maxDelayMs: options.retryMaxDelayMs ?? 8000,
    };
  }

  /** Queues an action for enrichment unless it has nothing to fill. Never throws. */
  enqueue(job: EnrichmentJob): void {
    if (!needsEnrichment(job.action)) return;
    const where = { taskId: job.taskId, iteration: job.action.iteration };
    if (this.pending >= MAX_PENDING) {
      this.logger.warn('action enrichment skipped: queue full', { ...where, pending: this.pending });
      return;
    }
    this.pending++;
    this.tail = this.tail
      .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
      .then(() => this.enrich(job))
      .catch((error: unknown) =>
        this.logger.warn('action enrichment failed', {
          ...where,
          error: error instanceof Error ? error.message : String(error),
        }),
      )
      .finally(() => this.pending--);
  }

  /** Resolves when every job queued so far has finished (tests, shutdown). */
  whenIdle(): Promise<void> {
    return this.tail;
  }

  private async enrich(job: EnrichmentJob): Promise<void> {
    const { action } = job;
    const content = await this.complete(
      JSON.stringify({
        goal: job.goal,
        approach: action.approach,
        thinking: truncate(action.thinking, PROMPT_THINKING_LENGTH).text,
        tool_calls: action.tool_calls.map((call) => ({
          name: call.name,
          args: call.args,
          outcome: call.outcome,
          result: call.result,
        })),
      }),
    );
    await new TaskRepository(job.db).enrichAction(job.taskId, action.iteration, parseEnrichment(content, action));
    this.logger.debug('action enriched', { taskId: job.taskId, iteration: action.iteration });
  }

  /** The client, made on the first job: every importer of the context would otherwise pay `openai`'s load time. */
  private chatClient(): Promise<OpenAI> {
    const { apiKey, baseURL } = this.options;
    // Client retries off: the policy of `complete` is the only one (as for embeddings).
    this.client ??= import('openai').then(
      ({ default: OpenAI }) => new OpenAI({ apiKey, baseURL: baseURL ?? DEFAULT_BASE_URL, maxRetries: 0 }),
    );
    return this.client;
  }

  /** One chat completion in JSON mode (with retries); its content. */
  private async complete(user: string): Promise<string> {
    const [client, { isTransient, retryAfterMs }] = await Promise.all([
      this.chatClient(),
      import('../../embeddings/openai.provider'),
    ]);
    let timedOut = false;
    const response = await withRetries(
      async () => {
        const signal = AbortSignal.timeout(this.timeoutMs);
        try {
          return await client.chat.completions.create(
            {
              model: this.model,
              messages: [
                { role: 'system', content: SYSTEM_PROMPT },
                { role: 'user', content: user },
              ],
              response_format: { type: 'json_object' },
              temperature: 0,
            },
            { signal },
          );
        } catch (error) {
          timedOut = signal.aborted;
          throw error;
        }
      },
      this.retry,
      (error, retry) =>
        timedOut || isTransient(error) ? (retryAfterMs(error) ?? backoffDelayMs(retry, this.retry)) : null,
    );
    const content = response.choices[0]?.message?.content;
    if (!content) throw new Error('the chat completion has no content');
    return content;
  }
}

const enrichers = new WeakMap<AppDeps, ActionEnricher | null>();

/**
 * The enricher of an app (one per AppDeps, created on first use): only when ENRICH_ACTIONS is true and an API key
 * is configured; null otherwise.
 */
export function actionEnricherFor(deps: AppDeps): ActionEnricher | null {
  if (!enrichers.has(deps)) {
    const { enrichActions, openaiApiKey, openaiBaseUrl, chatModel } = deps.config;
    if (enrichActions && !openaiApiKey)
      deps.logger.warn('ENRICH_ACTIONS is true but OPENAI_API_KEY is not set: actions are not enriched');
    enrichers.set(
      deps,
      enrichActions && openaiApiKey
        ? new ActionEnricher({ apiKey: openaiApiKey, baseURL: openaiBaseUrl, model: chatModel, logger: deps.logger })
        : null,
    );
  }
  return enrichers.get(deps)!;
}
