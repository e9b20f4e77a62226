import { RECALL_PARTS, RecallPart, type RecallItem, type RecallResult } from './recall.type';
import { countTokens } from './recall.tokens';

/** A memory a part collector offers: its Markdown line and how relevant it is. */
export interface RecallCandidate {
  kind: RecallPart;
  id: string;
  /** 0–1. */
  score: number;
  why: string;
  /** One Markdown list line (no line break): see `bullet`. */
  text: string;
}

/** The heading of each part's section. */
export const SECTION_TITLES: Record<RecallPart, string> = {
  [RecallPart.EXPERIENCES]: 'Past experiences',
  [RecallPart.INSIGHTS]: 'Insights',
  [RecallPart.PLANS]: 'Plans that worked',
  [RecallPart.TOOL_WARNINGS]: 'Tool warnings',
  [RecallPart.MESSAGES]: 'Past messages',
};

const heading = (part: RecallPart) => `## ${SECTION_TITLES[part]}`;

const roundScore = (score: number) => (Number.isFinite(score) ? Math.round(score * 1e4) / 1e4 : 0);

/** Best first; equal scores in part order, then by id (binary order): the same candidates always rank the same. */
function byScore(a: RecallCandidate, b: RecallCandidate): number {
  return (
    b.score - a.score ||
    RECALL_PARTS.indexOf(a.kind) - RECALL_PARTS.indexOf(b.kind) ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
}

/**
 * The text of the chosen items: a section per part (in RECALL_PARTS order) with a heading and the items' lines, best
 * first; sections apart by a blank line.
 */
export function renderRecall(chosen: readonly RecallCandidate[]): { text: string; ordered: RecallCandidate[] } {
  const ordered: RecallCandidate[] = [];
  const sections: string[] = [];
  for (const part of RECALL_PARTS) {
    const items = chosen.filter((item) => item.kind === part).sort(byScore);
    if (!items.length) continue;
    ordered.push(...items);
    sections.push([heading(part), ...items.map((item) => item.text)].join('\n'));
  }
  return { text: sections.join('\n\n'), ordered };
}

/**
 * Chooses candidates within `budget` tokens and renders them. Each part first gets its best candidate that fits (so
 * no part with something relevant is crowded out by another's many items; parts visited in the order of their best
 * candidates), then the rest compete by score alone, each taken when its line (and its section's heading, for a
 * section's first item) still fits. Costs are summed per line; the rendered text is then counted whole, and while it
 * is over the budget (merged whitespace tokens can make the sum differ), the lowest-scored item leaves. So `tokens` ≤
 * `budget` always.
 */
export function composeRecall(
  candidates: readonly RecallCandidate[],
  budget: number,
  count: (text: string) => number = countTokens,
): RecallResult {
  // Scores kept to 4 decimals: a part whose score drifts with time (a plan's recency) keeps its order and text.
  const sorted = candidates.map((candidate) => ({ ...candidate, score: roundScore(candidate.score) })).sort(byScore);
  const lineTokens = new Map<RecallCandidate, number>();
  const lineCost = (candidate: RecallCandidate) => {
    let tokens = lineTokens.get(candidate);
    if (tokens === undefined) lineTokens.set(candidate, (tokens = count(candidate.text)));
    return tokens;
  };
  // A section's heading with the blank line before it; an item's line with its line break.
  const headingCost = new Map(RECALL_PARTS.map((part) => [part, count(`\n\n${heading(part)}`)]));
  const lineBreak = count('\n');
  const opened = new Set<RecallPart>();
  const chosen = new Set<RecallCandidate>();
  let used = 0;
  const take = (candidate: RecallCandidate): boolean => {
    const cost = lineCost(candidate) + lineBreak + (opened.has(candidate.kind) ? 0 : headingCost.get(candidate.kind)!);
    if (used + cost > budget) return false;
    used += cost;
    opened.add(candidate.kind);
    chosen.add(candidate);
    return true;
  };
  // The fair round visits the parts best first (by their best candidate), so a tight budget goes to the most relevant.
  const visited = new Set<RecallPart>();
  for (const best of sorted) {
    if (visited.has(best.kind)) continue;
    visited.add(best.kind);
    for (const candidate of sorted) if (candidate.kind === best.kind && take(candidate)) break;
  }
  for (const candidate of sorted) if (!chosen.has(candidate)) take(candidate);

  let kept = sorted.filter((candidate) => chosen.has(candidate));
  let rendered = renderRecall(kept);
  let tokens = count(rendered.text);
  while (tokens > budget) {
    kept = kept.slice(0, -1);
    rendered = renderRecall(kept);
    tokens = count(rendered.text);
  }
  const items: RecallItem[] = rendered.ordered.map((item) => ({
    kind: item.kind,
    id: item.id,
    score: item.score,
    why: item.why,
    text: item.text,
    tokens: lineCost(item),
  }));
  return { text: rendered.text, items, tokens, budget };
}

/** Longest text of one field in a line, in characters: a long memory is cut, so one item never takes the budget. */
export const MAX_FIELD_CHARS = 400;
/**
 * Longest word (run without whitespace) kept whole, in characters: longer ones (URLs, hashes, base64) are cut. The
 * tokenizer's byte-pair merging is quadratic in a word's length (a 4,000-letter word took 2.6 s to count), so this
 * keeps counting linear in the text's length.
 */
export const MAX_WORD_CHARS = 48;

const LONG_WORD = new RegExp(`\\S{${MAX_WORD_CHARS + 1},}`, 'g');

/** The first `length` UTF-16 units of `text`, one fewer when that would split a surrogate pair. */
export function head(text: string, length: number): string {
  return text.slice(0, /[\uD800-\uDBFF]/.test(text[length - 1] ?? '') ? length - 1 : length);
}

/** `text` cut to at most `max` UTF-16 units ending in an ellipsis. */
function cut(text: string, max: number): string {
  return text.length <= max ? text : `${head(text, max - 1)}…`;
}

/**
 * A stored text as it goes into a line: whitespace (line breaks included) collapsed, so stored text can never start
 * a heading or a list item of its own; words cut at MAX_WORD_CHARS and the whole at `max` characters (ellipses mark
 * the cuts).
 */
export function inline(text: string | null | undefined, max = MAX_FIELD_CHARS): string {
  const flat = (text ?? '').replace(/\s+/g, ' ').trim();
  const words = flat.length > max * 2 ? `${head(flat, max * 2)}…` : flat;
  return cut(
    words.replace(LONG_WORD, (word) => cut(word, MAX_WORD_CHARS)),
    max,
  );
}

/** A Markdown list line of the non-empty parts, joined by `sep`. */
export function bullet(parts: ReadonlyArray<string | null | undefined | false>, sep = ' '): string {
  return `- ${parts.filter((part): part is string => !!part).join(sep)}`;
}
