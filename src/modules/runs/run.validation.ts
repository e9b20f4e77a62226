import { createHash } from 'node:crypto';
import { ValidationError } from '../../errors';
import type { ToolExecution } from '../tools/tool.aggregation';
import { requiredText } from '../tasks/task.validation';
import { MAX_DURATION_MS, checkJsonInput } from '../shared/json-input';
import { toolCallLine } from './run.compress-actions';
import type { RecordActionInput } from './run.input';
import { ActionMode, ToolOutcome, type ActionDocument, type ToolCallDocument } from '../tasks/task.document';

/** Tool results are cut to this many characters on write (seed 004: "truncated to ~1000 chars"). */
export const RESULT_MAX_LENGTH = 1000;
export const MAX_TOOL_CALLS = 100;
/** Reasoning fields (thinking, planning, reflection, approach, synthesis, hypothesis). */
export const MAX_REASONING_LENGTH = 20_000;
/** insights and learning of a call. */
export const MAX_COMPRESSION_LENGTH = 2000;
/** The arguments of a call, as JSON. */
export const MAX_ARGS_LENGTH = 20_000;
const MAX_TOOL_NAME_LENGTH = 200;

function bounded(value: string, field: string, max: number): string {
  if (value.length > max) throw new ValidationError(`${field} must be at most ${max} characters.`, field);
  return value;
}

/**
 * `text` cut to `max` code points; whether it was cut. Reads at most `max` code points (not the whole text: a 12 MB
 * result took 190 ms as an array of its characters).
 */
export function truncate(text: string, max: number): { text: string; truncated: boolean } {
  if (text.length <= max) return { text, truncated: false };
  let end = 0;
  for (let points = 0; points < max && end < text.length; points++) {
    const code = text.charCodeAt(end);
    const next = text.charCodeAt(end + 1);
    end += code >= 0xd800 && code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff ? 2 : 1;
  }
  return end < text.length ? { text: text.slice(0, end), truncated: true } : { text, truncated: false };
}

/** A new action from the input, checked; its iteration is the supplied one or null (to be allocated). */
export function newAction(
  input: RecordActionInput,
  now: Date,
): { iteration: number | null; action: Omit<ActionDocument, 'iteration'> } {
  if (input.iteration != null && (!Number.isInteger(input.iteration) || input.iteration < 0)) {
    throw new ValidationError('iteration must be an integer ≥ 0.', 'input.iteration');
  }
  if (input.mode === ActionMode.FAST) {
    // Phase 1 rule: planning and reflection belong to DEEP mode.
    for (const field of ['planning', 'reflection'] as const) {
      if (input[field] !== '') throw new ValidationError(`${field} must be empty in FAST mode.`, `input.${field}`);
    }
  }
  if (input.toolCalls.length > MAX_TOOL_CALLS) {
    throw new ValidationError(`At most ${MAX_TOOL_CALLS} tool calls per iteration.`, 'input.toolCalls');
  }
  const text = (field: 'thinking' | 'planning' | 'reflection' | 'approach' | 'synthesis') =>
    bounded(input[field], `input.${field}`, MAX_REASONING_LENGTH);
  return {
    iteration: input.iteration ?? null,
    action: {
      timestamp: input.timestamp ?? now,
      mode: input.mode,
      thinking: text('thinking'),
      planning: text('planning'),
      reflection: text('reflection'),
      approach: text('approach'),
      tool_calls: input.toolCalls.map((call, i): ToolCallDocument => {
        const path = `input.toolCalls.${i}`;
        const args = call.args ?? {};
        checkJsonInput(args, `${path}.args`);
        if (JSON.stringify(args).length > MAX_ARGS_LENGTH) {
          throw new ValidationError(`args must be at most ${MAX_ARGS_LENGTH} characters as JSON.`, `${path}.args`);
        }
        const duration = call.executionTimeMs;
        if (duration != null && !(Number.isFinite(duration) && duration >= 0 && duration <= MAX_DURATION_MS)) {
          throw new ValidationError(
            `executionTimeMs must be a number of milliseconds from 0 to ${MAX_DURATION_MS}.`,
            `${path}.executionTimeMs`,
          );
        }
        const result = truncate(call.result, RESULT_MAX_LENGTH);
        return {
          name: requiredText(call.name, `${path}.name`, MAX_TOOL_NAME_LENGTH),
          args,
          result: result.text,
          result_truncated: result.truncated,
          outcome: call.outcome,
          execution_time: duration ?? null,
          insights: bounded(call.insights, `${path}.insights`, MAX_COMPRESSION_LENGTH),
          learning: bounded(call.learning, `${path}.learning`, MAX_COMPRESSION_LENGTH),
          relevance: call.relevance ?? '',
        };
      }),
      synthesis: text('synthesis'),
      progress: input.progress ?? '',
      hypothesis: {
        belief: bounded(input.hypothesis?.belief ?? '', 'input.hypothesis.belief', MAX_REASONING_LENGTH),
        test: bounded(input.hypothesis?.test ?? '', 'input.hypothesis.test', MAX_REASONING_LENGTH),
      },
    },
  };
}

/** JSON with object keys sorted at every depth: the same arguments in another order give the same text. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, inner]) => `${JSON.stringify(key)}:${canonicalJson(inner)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Identifies "the same call": tool name and arguments (in any key order). */
export function callKey(call: Pick<ToolCallDocument, 'name' | 'args'>): string {
  return createHash('sha256')
    .update(canonicalJson([call.name, call.args]))
    .digest('hex')
    .slice(0, 32);
}

/** The distinct failing calls (outcome other than success) of an action, first occurrence each. */
export function failingCalls(
  action: Pick<ActionDocument, 'tool_calls'>,
): Array<{ key: string; tool: string; call: string }> {
  const seen = new Map<string, { key: string; tool: string; call: string }>();
  for (const call of action.tool_calls) {
    if (call.outcome === ToolOutcome.SUCCESS) continue;
    const key = callKey(call);
    if (!seen.has(key)) seen.set(key, { key, tool: call.name, call: toolCallLine(call) });
  }
  return [...seen.values()];
}

/**
 * The tool-performance executions of an action's calls: SUCCESS counts as a success; FAILURE, ERROR and TIMEOUT as
 * failures whose error is `<outcome>: <result>` (or the outcome alone for an empty result), so the outcome shows in
 * the error statistics; the duration is execution_time.
 */
export function toolExecutions(
  action: Pick<ActionDocument, 'tool_calls'>,
  context: string,
  taskId: string,
): ToolExecution[] {
  return action.tool_calls.map((call) => {
    const success = call.outcome === ToolOutcome.SUCCESS;
    const detail = call.result.trim();
    return {
      toolName: call.name,
      success,
      durationMs: call.execution_time,
      error: success ? null : detail ? `${call.outcome}: ${detail}` : call.outcome,
      context,
      taskId,
    };
  });
}
