/**
 * Goal patterns (seed 002, "Goal Pattern Matching"): a goal such as "Create a shipment for facility HAN" becomes
 * the template `create_*_for_facility_*`, so that runs of the same kind of task share one pattern.
 *
 * Rules, applied left to right to the words of the goal (deterministic, no model):
 * 1. Quoted text ("…", '…', `…`, “…”, ‘…’) is a name → `*`.
 * 2. Identifiers → `*`: words containing a digit (`12345`, `R-17`, `690b…`, `2024-05-01`), words with `@ / : . _`
 *    between letters (emails, URLs, paths, dotted names), ALL-CAPS codes of two or more letters (`HAN`, `SFO`),
 *    words with an upper-case letter after the first (`iPhone`, `ObjectId`), and number words (`one` … `twelve`).
 * 3. Names → `*`: capitalised words that do not start the goal (`Berlin`, `Maria`, `A` in "warehouse A"), unless
 *    the goal is written in Title Case (then capitals carry no information).
 * 4. An indefinite noun phrase — `a`/`an`/`some`/`another` and the words up to the next connecting word — is the
 *    item the run works on, which varies between runs like an identifier → `*` ("a shipment", "an invoice").
 * 5. Filler words are dropped: `the`, `please`, `all`, `every`, `each`, `this`, `that`, `these`, `those` and
 *    possessives (`my`, `our`, `your`, `their`, `his`, `her`, `its`).
 * 6. Every other word (verbs, nouns, adjectives, prepositions) is kept, lower-cased. Adjacent `*` merge into one and
 *    the tokens are joined with `_`.
 */

const WILDCARD = '*';

const CONNECTING_WORDS = new Set([
  'about',
  'across',
  'after',
  'against',
  'and',
  'as',
  'at',
  'before',
  'between',
  'but',
  'by',
  'called',
  'during',
  'for',
  'from',
  'if',
  'in',
  'into',
  'like',
  'named',
  'of',
  'on',
  'onto',
  'or',
  'over',
  'per',
  'than',
  'then',
  'through',
  'to',
  'under',
  'until',
  'using',
  'via',
  'vs',
  'when',
  'where',
  'with',
  'within',
  'without',
]);
const AUXILIARY_VERBS = new Set([
  'am',
  'are',
  'be',
  'been',
  'can',
  'could',
  'had',
  'has',
  'have',
  'is',
  'may',
  'might',
  'must',
  'need',
  'needs',
  'should',
  'was',
  'were',
  'will',
  'would',
]);
const INDEFINITE_DETERMINERS = new Set(['a', 'an', 'some', 'another']);
const FILLER_WORDS = new Set([
  'the',
  'please',
  'all',
  'every',
  'each',
  'this',
  'that',
  'these',
  'those',
  'my',
  'our',
  'your',
  'their',
  'his',
  'her',
  'its',
]);
const NUMBER_WORDS = new Set([
  'zero',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
]);

/** Each opening quote with its closing one; `'` also opens, where no letter or digit is next to it. */
const QUOTES = new Map([
  ['"', '"'],
  ['“', '”'],
  ['‘', '’'],
  ['`', '`'],
]);
// A placeholder for quoted text (a private-use character, which no goal contains).
const QUOTE_MARK = '\uE000';
const LETTER_OR_DIGIT = /^[\p{L}\p{N}]$/u;

/** True when the code point ending just before `index` (`before`) or starting at it is a letter or digit. */
function letterOrDigitAt(text: string, index: number, before: boolean): boolean {
  if (index < 0 || index >= text.length) return false;
  const code = text.charCodeAt(index);
  let point: number | undefined;
  if (before && code >= 0xdc00 && code <= 0xdfff && index > 0) point = text.codePointAt(index - 1);
  else point = text.codePointAt(index);
  return point !== undefined && LETTER_OR_DIGIT.test(String.fromCodePoint(point));
}

/**
 * `goal` with each quoted text ("…", “…”, ‘…’, `…`, and '…' not inside a word) replaced by QUOTE_MARK: what
 * `/"[^"]*"|“[^”]*”|‘[^’]*’|`[^`]*`|(?<![\p{L}\p{N}])'[^']+'(?![\p{L}\p{N}])/gu` replaces, in one pass. The pattern
 * took quadratic time on unclosed quotes (each one scanned to the end: 20,000 “ took 2.5 s); here the next closing
 * quote of each kind is found once and reused until passed.
 */
function replaceQuoted(goal: string): string {
  const nextAt = new Map<string, number>();
  const next = (quote: string, from: number): number => {
    const known = nextAt.get(quote);
    if (known !== undefined && (known === -1 || known >= from)) return known;
    const found = goal.indexOf(quote, from);
    nextAt.set(quote, found);
    return found;
  };
  const parts: string[] = [];
  let copied = 0;
  for (let i = 0; i < goal.length; i++) {
    const char = goal[i];
    const closing = QUOTES.get(char);
    let end = -1;
    if (closing !== undefined) end = next(closing, i + 1);
    else if (char === "'" && !letterOrDigitAt(goal, i - 1, true)) {
      const candidate = next("'", i + 1);
      if (candidate > i + 1 && !letterOrDigitAt(goal, candidate + 1, false)) end = candidate;
    }
    if (end === -1) continue;
    parts.push(goal.slice(copied, i), ` ${QUOTE_MARK} `);
    copied = end + 1;
    i = end;
  }
  if (copied === 0) return goal;
  parts.push(goal.slice(copied));
  return parts.join('');
}
const WORD_CHARACTER = /^[\p{L}\p{N}\uE000]$/u;

/**
 * `word` without the characters at its ends that are not letters, digits or the quote mark. A loop from each end, not
 * `/[^…]+$/`: that pattern retries at every position of an inner run of punctuation or combining marks, quadratic in
 * the run (a goal `a` + 32,000 marks + `b` took 7 s).
 */
function trimEdgePunctuation(word: string): string {
  const characters = Array.from(word);
  let start = 0;
  let end = characters.length;
  while (start < end && !WORD_CHARACTER.test(characters[start])) start++;
  while (end > start && !WORD_CHARACTER.test(characters[end - 1])) end--;
  return start === 0 && end === characters.length ? word : characters.slice(start, end).join('');
}

function isIdentifier(word: string): boolean {
  if (/\p{N}/u.test(word)) return true;
  if (/[\p{L}\p{N}][@/:._][\p{L}\p{N}]/u.test(word)) return true;
  const letters = word.replace(/[^\p{L}]/gu, '');
  if (letters.length >= 2 && letters === letters.toUpperCase() && letters !== letters.toLowerCase()) return true;
  if (/^.+\p{Lu}/u.test(word) && /\p{Ll}/u.test(word)) return true;
  return NUMBER_WORDS.has(word.toLowerCase());
}

const isCapitalised = (word: string): boolean => /^\p{Lu}/u.test(word);

/** Title Case: every word of four or more letters is capitalised. */
function isTitleCase(words: string[]): boolean {
  const long = words.filter((word) => /^\p{L}{4,}$/u.test(word));
  return long.length > 1 && long.every(isCapitalised);
}

/** The tokens of a goal's template (`*` for a slot), per the rules above. */
export function goalPatternTokens(goal: string): string[] {
  const words = replaceQuoted(goal)
    .split(/[\s,;!?()[\]{}]+/)
    .map(trimEdgePunctuation)
    .filter(Boolean);
  const titleCase = isTitleCase(words);
  const tokens: string[] = [];
  let inIndefinitePhrase = false;
  words.forEach((word, index) => {
    const lower = word.toLowerCase();
    const isArticle = INDEFINITE_DETERMINERS.has(lower) && (word === lower || index === 0);
    let token: string | null;
    if (word === QUOTE_MARK || isIdentifier(word)) token = WILDCARD;
    else if (isArticle) {
      inIndefinitePhrase = true;
      token = WILDCARD;
    } else if (CONNECTING_WORDS.has(lower) || AUXILIARY_VERBS.has(lower)) {
      inIndefinitePhrase = false;
      token = lower;
    } else if (inIndefinitePhrase) token = WILDCARD;
    else if (index > 0 && !titleCase && isCapitalised(word)) token = WILDCARD;
    else if (FILLER_WORDS.has(lower)) token = null;
    else token = lower;
    if (token === null || (token === WILDCARD && tokens[tokens.length - 1] === WILDCARD)) return;
    tokens.push(token);
  });
  return tokens;
}

/** The template of a goal, e.g. "Create a shipment for facility HAN" → `create_*_for_facility_*`. */
export function goalPattern(goal: string): string {
  return goalPatternTokens(goal).join('_');
}

function splitPattern(pattern: string): string[] {
  return pattern ? pattern.split('_') : [];
}

/**
 * True when `specific` is an instance of `general`: each `*` of `general` stands for zero or more of its words.
 * Linear in both lengths: the literal runs between `*`s are matched leftmost in turn (KMP), which finds a match
 * whenever there is one, since a `*` absorbs whatever lies between two runs.
 */
function isInstanceOf(specific: string[], general: string[]): boolean {
  const runs: string[][] = [[]];
  for (const token of general) {
    if (token === WILDCARD) runs.push([]);
    else runs[runs.length - 1].push(token);
  }
  if (runs.length === 1) return specific.length === general.length && sameWords(specific, 0, general);
  const first = runs[0];
  const last = runs[runs.length - 1];
  const end = specific.length - last.length;
  if (end < first.length || !sameWords(specific, 0, first) || !sameWords(specific, end, last)) return false;
  let from = first.length;
  for (let run = 1; run < runs.length - 1; run++) {
    if (!runs[run].length) continue;
    const at = indexOfRun(specific, runs[run], from, end);
    if (at === -1) return false;
    from = at + runs[run].length;
  }
  return true;
}

/** True when `words` appear in `list` from `at` on. */
function sameWords(list: string[], at: number, words: string[]): boolean {
  if (at + words.length > list.length) return false;
  for (let i = 0; i < words.length; i++) if (list[at + i] !== words[i]) return false;
  return true;
}

/** The first index at or after `from` where `run` (not empty) lies wholly in `list` before `end`, or -1 (KMP). */
function indexOfRun(list: string[], run: string[], from: number, end: number): number {
  const fallback = new Int32Array(run.length);
  for (let i = 1, k = 0; i < run.length; i++) {
    while (k > 0 && run[i] !== run[k]) k = fallback[k - 1];
    if (run[i] === run[k]) k++;
    fallback[i] = k;
  }
  for (let i = from, matched = 0; i < end; i++) {
    while (matched > 0 && list[i] !== run[matched]) matched = fallback[matched - 1];
    if (list[i] === run[matched]) matched++;
    if (matched === run.length) return i - run.length + 1;
  }
  return -1;
}

/**
 * True when two templates describe the same kind of goal: one is an instance of the other, each `*` standing for
 * zero or more words ("Create shipment for facility" fits `create_*_for_facility_*`, and so does
 * `create_shipment_for_facility_*`; `create_*_for_customer_*` does not).
 */
export function patternsUnify(a: string, b: string): boolean {
  const left = splitPattern(a);
  const right = splitPattern(b);
  return isInstanceOf(left, right) || isInstanceOf(right, left);
}

/** Dice coefficient of the literal (non-`*`) words of two templates, counted with multiplicity. */
function literalOverlap(a: string, b: string): number {
  const left = splitPattern(a).filter((token) => token !== WILDCARD);
  const right = splitPattern(b).filter((token) => token !== WILDCARD);
  if (!left.length || !right.length) return 0;
  const counts = new Map<string, number>();
  for (const token of left) counts.set(token, (counts.get(token) ?? 0) + 1);
  let shared = 0;
  for (const token of right) {
    const count = counts.get(token) ?? 0;
    if (count > 0) {
      shared++;
      counts.set(token, count - 1);
    }
  }
  return (2 * shared) / (left.length + right.length);
}

/**
 * How well two templates match, in [0, 1]: 1 when they unify (see `patternsUnify`), otherwise half the Dice
 * overlap of their literal words — a template that merely shares words never ties with one that fits.
 */
export function goalPatternScore(a: string, b: string): number {
  if (patternsUnify(a, b)) return 1;
  return literalOverlap(a, b) / 2;
}

/**
 * The stored templates that can unify with `pattern` start with its first word or with `*`: prefixes for an
 * indexed candidate lookup (`^create(_|$)`, `^\*`). Empty when the pattern itself starts with `*` (anything may fit).
 */
export function unifiablePrefixes(pattern: string): RegExp[] {
  const first = splitPattern(pattern)[0];
  if (first === undefined || first === WILDCARD) return [];
  return [new RegExp(`^${first.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(_|$)`), /^\*/];
}
