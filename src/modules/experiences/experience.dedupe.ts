import { createHash } from 'node:crypto';
import { stemmed, tokenize } from '../../search/tokenize';

/**
 * Near-duplicate experiences: what makes two records the same memory. Two experiences of the same agent, user and
 * outcome are the same memory when their goal and sub-task are equal after {@link normalizeForDedupe} (the exact
 * match, found through the stored `dedupe_key`), or when their goals {@link nameTheSameThings}, their primary-goal
 * vectors are at least DEDUPE_THRESHOLD apart by cosine and their sub-tasks match (normalised, or in the same way as
 * the goals): the near match, whose candidates are found through the stored `near_key`.
 */

/**
 * Combining marks kept on one base character. ICU's canonical reordering (inside `String.prototype.normalize`) is an
 * insertion sort over a run of marks, quadratic in the run's length (80k alternating marks: 1.1 s); Unicode's
 * stream-safe text format bounds a run at 30 for the same reason, and no script needs more.
 */
const MAX_MARK_RUN = 30;
/**
 * A run of marks longer than MAX_MARK_RUN, from its 31st on. Besides \p{M}, the four characters whose compatibility
 * decomposition starts with a combining mark (Thai and Lao SARA AM, the halfwidth voiced sound marks).
 */
const LONG_MARK_RUN = new RegExp(
  `([\\p{M}\\u0E33\\u0EB3\\uFF9E\\uFF9F]{${MAX_MARK_RUN}})[\\p{M}\\u0E33\\u0EB3\\uFF9E\\uFF9F]+`,
  'gu',
);
const WHITESPACE_RUN = /\s+/gu;
const EDGE_CHARACTER = /^[\p{P}\s]$/u;

/**
 * The text that decides an exact duplicate: Unicode NFKC (compatibility forms, full-width letters, ligatures), case
 * folded (upper- then lower-case, so `ß` and `SS` and final sigma fold alike), whitespace runs collapsed to one space,
 * and punctuation and whitespace trimmed at both ends ("Find a delayed order." = "find a  DELAYED order"). Linear in
 * the text's length: every step is one pass, and runs of combining marks are cut to MAX_MARK_RUN first so that the
 * normaliser's reordering cannot go quadratic.
 */
export function normalizeForDedupe(text: string): string {
  const folded = text.replace(LONG_MARK_RUN, '$1').normalize('NFKC').toUpperCase().toLowerCase();
  const collapsed = folded.replace(WHITESPACE_RUN, ' ');
  let start = 0;
  let end = collapsed.length;
  while (start < end) {
    const point = collapsed.codePointAt(start)!;
    if (!EDGE_CHARACTER.test(String.fromCodePoint(point))) break;
    start += point > 0xffff ? 2 : 1;
  }
  while (end > start) {
    // A low surrogate ends a pair: test the whole code point.
    const low = collapsed.charCodeAt(end - 1);
    const width = low >= 0xdc00 && low <= 0xdfff && end - 2 >= start ? 2 : 1;
    if (!EDGE_CHARACTER.test(collapsed.slice(end - width, end))) break;
    end -= width;
  }
  return collapsed.slice(start, end);
}

/** What identifies a memory for deduplication, in stored field names; a missing user is null. */
export interface DedupeIdentity {
  initiating_agent_id: string;
  user_id?: string | null;
  final_outcome: string;
  primary_goal_description: string;
  sub_task_description: string;
}

/** The stored fields {@link dedupeKey} reads: a search projecting only some fields adds these to collapse its hits. */
export const DEDUPE_IDENTITY_FIELDS = [
  // The stored identity; the fields it is computed from, for documents written before it was stored.
  'dedupe_key',
  'initiating_agent_id',
  'user_id',
  'final_outcome',
  'primary_goal_description',
  'sub_task_description',
] as const;

/**
 * `dedupe_key`: a hash of the agent, the user (missing = none), the outcome and the normalised goal and sub-task.
 * Equal keys are the same memory; the stored key is indexed, so the exact match costs one indexed read.
 */
export function dedupeKey(identity: DedupeIdentity): string {
  return createHash('sha256')
    .update(
      JSON.stringify([
        identity.initiating_agent_id,
        identity.user_id ?? null,
        identity.final_outcome,
        normalizeForDedupe(identity.primary_goal_description),
        normalizeForDedupe(identity.sub_task_description),
      ]),
    )
    .digest('base64url');
}

/** Words whose presence never changes the task ("Restart the stuck worker" = "Restart stuck worker"). */
const ARTICLES = new Set(['a', 'an', 'the']);

/** The stems of a text's words but its articles, in order. */
function contentStems(text: string): string[] {
  return tokenize(normalizeForDedupe(text))
    .filter((word) => !ARTICLES.has(word))
    .map(stemmed);
}

/**
 * The guard of the near match. A sentence encoder scores "Cancel the subscription of customer C-2001" and "… C-2002"
 * at 0.99, "Find a delayed order" and "Cancel a delayed order" as high as true paraphrases, and "Book a flight for
 * Alice" and "… by Alice" at 0.91, so a cosine alone merges different tasks at every threshold; WordNet synonyms were
 * tried as a guard and merged "Clear the cache" with "Open the cache" (docs/retrieval.md has the figures). So two texts
 * name the same things only when they have the same words in the same order but for articles and inflection
 * ("Upgrade the database to version 7" = "Upgrade database to version 7"). Linear in the texts' lengths.
 */
export function nameTheSameThings(a: string, b: string): boolean {
  return contentSignature(a) === contentSignature(b);
}

/** Two texts' words but for articles, stemmed, in order: equal signatures are what {@link nameTheSameThings} asks. */
export function contentSignature(text: string): string {
  return contentStems(text).join(' ');
}

const tails = new Map<string, Promise<void>>();

/**
 * Runs `work` after every earlier call of this process that holds one of `keys` (the dedupe keys of a recording, with
 * the database's name) has finished, so two identical recordings arriving together count one occurrence instead of
 * storing two copies. All keys are taken at once, in the order of arrival, so that no two calls wait for each other.
 * Other processes writing the same database are not serialised: they may store a copy, which searches collapse.
 */
export async function serialized<T>(keys: readonly string[], work: () => Promise<T>): Promise<T> {
  const unique = [...new Set(keys)];
  if (!unique.length) return work();
  const before = unique.map((key) => tails.get(key));
  let release!: () => void;
  const mine = new Promise<void>((resolve) => (release = resolve));
  for (const key of unique) tails.set(key, mine);
  try {
    await Promise.all(before);
    return await work();
  } finally {
    release();
    for (const key of unique) if (tails.get(key) === mine) tails.delete(key);
  }
}

/**
 * `near_key`: a hash of the agent, the user, the outcome and the goal's {@link contentSignature}. A near match needs an
 * equal one ({@link nameTheSameThings} of the goals), so its candidates are found by this indexed key in the same read
 * as the exact match, before any embedding: no vector search on the write path.
 */
export function nearKey(identity: DedupeIdentity): string {
  return createHash('sha256')
    .update(
      JSON.stringify([
        identity.initiating_agent_id,
        identity.user_id ?? null,
        identity.final_outcome,
        contentSignature(identity.primary_goal_description),
      ]),
    )
    .digest('base64url');
}
