import { storedObjects } from '../shared/stored-values';
import { ToolOutcome } from '../tasks/task.document';

/**
 * Seed 004's `compress_actions`: the `attempts` of a run, derived from its stored actions on every read (never
 * stored). Pure functions over the stored shape (snake_case, lower-case enum strings).
 */

/** What compression reads of a stored tool call. */
export interface CompressibleCall {
  name: string;
  args?: Record<string, unknown> | null;
  outcome: string;
  insights?: string | null;
  relevance?: string | null;
}

/** A stored action as compression reads it: anything may be stored (src/modules/shared/stored-values.ts). */
export interface CompressibleAction {
  iteration?: unknown;
  tool_calls?: unknown;
}

const OUTCOMES: readonly unknown[] = Object.values(ToolOutcome);

/**
 * Where the first stored tool call compression cannot render is, as the `actions` field reports it (run.type.ts):
 * `actions.<iteration>.tool_calls` when the calls are no list or one is no document, `….tool_calls.<index>.name` or
 * `.outcome` when a call has no name or outcome it could show; null when every call renders.
 */
export function unrenderedCall(actions: readonly CompressibleAction[]): string | null {
  for (const action of storedObjects<CompressibleAction>(actions)) {
    if (action.tool_calls == null) continue;
    const at = `actions.${typeof action.iteration === 'number' ? action.iteration : 0}.tool_calls`;
    const calls = storedObjects<CompressibleCall>(action.tool_calls);
    if (!Array.isArray(action.tool_calls) || calls.length !== action.tool_calls.length) return at;
    const index = calls.findIndex((call) => !renders(call));
    if (index >= 0) return `${at}.${index}.${typeof calls[index].name === 'string' ? 'outcome' : 'name'}`;
  }
  return null;
}

function renders(call: CompressibleCall): boolean {
  return typeof call.name === 'string' && OUTCOMES.includes(call.outcome);
}

/** A rendered argument value longer than this is cut (and ends in `…`). */
export const ARG_VALUE_MAX_LENGTH = 40;
/** At most this many arguments are shown; more are summarised as a final `…`. */
export const MAX_SUMMARY_ARGS = 5;

/** Relevance levels from least to most relevant; '' (not rated) ranks below all of them. */
const RELEVANCE_RANK: Record<string, number> = { low: 1, medium: 2, high: 3 };

/** `text` cut to `max` characters (code points, so no surrogate pair is split), `…` appended when cut. */
function cut(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length > max ? chars.slice(0, max).join('') + '…' : text;
}

/** One argument value: strings quoted with whitespace collapsed, scalars as JSON, lists and objects as compact JSON. */
function renderValue(value: unknown): string {
  if (typeof value === 'string') return `'${cut(value.replace(/\s+/g, ' ').trim(), ARG_VALUE_MAX_LENGTH)}'`;
  if (value === undefined) return 'null';
  return cut(JSON.stringify(value) ?? 'null', ARG_VALUE_MAX_LENGTH);
}

/**
 * The args_summary of a call: `key=value` pairs in the order the arguments were given, joined by `, `; string
 * values quoted (`query='python tutorial'`), numbers, booleans and null as JSON (`limit=10`), lists and objects as
 * compact JSON (`ids=[1,2]`); a value is cut at ARG_VALUE_MAX_LENGTH characters (`…`), and after MAX_SUMMARY_ARGS
 * pairs the rest is `…`. No arguments: the empty string.
 */
export function argsSummary(args: Record<string, unknown> | null | undefined): string {
  const entries = Object.entries(args ?? {});
  const shown = entries.slice(0, MAX_SUMMARY_ARGS).map(([key, value]) => `${key}=${renderValue(value)}`);
  if (entries.length > MAX_SUMMARY_ARGS) shown.push('…');
  return shown.join(', ');
}

/** Phase 1: `name(args_summary) → outcome`, e.g. `read_file(path='logs/error.log') → failure`. */
export function toolCallLine(call: CompressibleCall): string {
  return `${call.name}(${argsSummary(call.args)}) → ${call.outcome}`;
}

/** True when a relevance ('high' | 'medium' | 'low' | '') is at least `minimum`; '' never is. */
export function relevanceAtLeast(relevance: string | null | undefined, minimum: 'high' | 'medium' | 'low'): boolean {
  return (RELEVANCE_RANK[relevance ?? ''] ?? 0) >= RELEVANCE_RANK[minimum];
}

/**
 * The attempts of a run: one entry per tool call, in iteration order then call order (`actions` must be sorted by
 * iteration). A call with insights (phase 2) contributes its insights when its relevance is at least `minRelevance`,
 * and nothing otherwise; a call without insights (phase 1, or not yet enriched) contributes its phase-1 line.
 */
export function compressActions(
  actions: readonly CompressibleAction[],
  minRelevance: 'high' | 'medium' | 'low' = 'medium',
): string[] {
  const attempts: string[] = [];
  // Stored actions may hold anything: what cannot be shown is skipped here, and `unrenderedCall` reports it.
  for (const action of storedObjects<CompressibleAction>(actions)) {
    for (const call of storedObjects<CompressibleCall>(action.tool_calls).filter(renders)) {
      const insights = typeof call.insights === 'string' ? call.insights.trim() : '';
      if (!insights) attempts.push(toolCallLine(call));
      else if (relevanceAtLeast(call.relevance, minRelevance)) attempts.push(insights);
    }
  }
  return attempts;
}
