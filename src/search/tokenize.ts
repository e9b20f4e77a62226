import stem from 'wink-porter2-stemmer';
import { synonymsOf } from './synonyms';

/**
 * The longest token analysed as a word, in UTF-16 code units; a longer token is cut to this length and then kept as
 * it is: never stemmed, never looked up in WordNet. The analysis of a token is then bounded whatever the text: the
 * Porter2 stemmer is quadratic in a word's length (5k / 10k / 20k characters: 116 / 481 / 1,882 ms), and its cache
 * and the keyword index would otherwise hold a megabyte-long term per such token.
 *
 * 64 keeps every word (WordNet's longest single-word lemma has 31 letters, 99.99% have at most 23), identifiers, path
 * segments and a SHA-256 in hex (64) whole; tokens over it are base64 payloads, minified JSON, stack traces without
 * spaces, of which a 64-character prefix is as good a key as the whole. A query holding the token, or any prefix of
 * it of 64 characters or more, finds it.
 */
export const MAX_TOKEN_LENGTH = 64;

const WORD_CHAR = /^[\p{L}\p{N}]$/u;
/** Per UTF-16 code unit: 0 not classified yet, 1 a letter or digit, 2 anything else (lone surrogates too). */
const unitClass = new Uint8Array(0x10000);

function isWordUnit(code: number): boolean {
  let known = unitClass[code];
  if (known === 0) {
    known = WORD_CHAR.test(String.fromCharCode(code)) ? 1 : 2;
    unitClass[code] = known;
  }
  return known === 1;
}

/** The token `text[start, end)`, cut to MAX_TOKEN_LENGTH without splitting a surrogate pair. */
function token(text: string, start: number, end: number): string {
  if (end - start <= MAX_TOKEN_LENGTH) return text.slice(start, end);
  let cutAt = start + MAX_TOKEN_LENGTH;
  const last = text.charCodeAt(cutAt - 1);
  if (last >= 0xd800 && last <= 0xdbff) cutAt--;
  return text.slice(start, cutAt);
}

/**
 * Lower-cases and splits text into word tokens (runs of letters and digits, Unicode-aware: what
 * `/[\p{L}\p{N}]+/gu` matches), each cut to MAX_TOKEN_LENGTH (see there). One pass over the text, a table lookup per
 * code unit: linear in its length, and no string longer than MAX_TOKEN_LENGTH is made. The pattern itself failed on a
 * 12 MB multi-byte token (V8's backtracking stack overflowed: "Maximum call stack size exceeded").
 * Shared by the keyword scorer and the hash embedder so both see the same words.
 */
export function tokenize(text: string): string[] {
  const lower = text.toLowerCase();
  const tokens: string[] = [];
  const length = lower.length;
  let start = -1;
  for (let i = 0; i < length; i++) {
    const code = lower.charCodeAt(i);
    let word: boolean;
    let width = 1;
    if (code < 0x80)
      word = (code >= 0x61 && code <= 0x7a) || (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a);
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < length) {
      const next = lower.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        width = 2;
        word = WORD_CHAR.test(lower.slice(i, i + 2));
      } else word = false;
    } else word = isWordUnit(code);
    if (word) {
      if (start === -1) start = i;
    } else if (start !== -1) {
      tokens.push(token(lower, start, i));
      start = -1;
    }
    i += width - 1;
  }
  if (start !== -1) tokens.push(token(lower, start, length));
  return tokens;
}

/** True for a token that tokenize cut, or as long as one: analysed as it is (see MAX_TOKEN_LENGTH). */
export function isLongToken(token: string): boolean {
  return token.length >= MAX_TOKEN_LENGTH - 1;
}

/** Lucene's default English stop words (StandardAnalyzer, EnglishAnalyzer; Atlas Search's `lucene.english`). */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  'a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with'.split(
    ' ',
  ),
);

/** Stems of words seen lately: a text's words repeat across documents, and stemming one costs a few µs. */
const stems = new Map<string, string>();
const STEM_CACHE_SIZE = 50_000;

/** Calls of the Porter2 stemmer, with the longest token it was given (tests assert the bound). */
export const stemmerCalls = { count: 0, longest: 0 };

/**
 * A token's English stem (Snowball's Porter2): "deploying", "deployed" and "deployment" all match "deploy". Tokens
 * with a digit, and long tokens ({@link isLongToken}), are kept as they are (ids, versions, payloads).
 */
export function stemmed(token: string): string {
  if (isLongToken(token)) return token;
  let result = stems.get(token);
  if (result === undefined) {
    if (/\d/.test(token)) result = token;
    else {
      stemmerCalls.count++;
      if (token.length > stemmerCalls.longest) stemmerCalls.longest = token.length;
      result = stem(token);
    }
    if (stems.size >= STEM_CACHE_SIZE) stems.clear();
    stems.set(token, result);
  }
  return result;
}

/**
 * The terms keyword search indexes and matches: the stems of the tokens without stop words. A stop word occurs in
 * nearly every text, so it adds almost nothing to a BM25 score, yet a query whose only shared words were stop words
 * walked their whole posting lists (4 ms per space of 100k experiences) since no bound could prune them.
 */
export function keywordTerms(text: string): string[] {
  const terms: string[] = [];
  // Past MAX_TEXT_TERMS distinct tokens, only tokens already seen count (a new one is not even stemmed).
  const seen = new Set<string>();
  for (const token of tokenize(text)) {
    if (STOP_WORDS.has(token)) continue;
    if (!seen.has(token)) {
      if (seen.size >= MAX_TEXT_TERMS) continue;
      seen.add(token);
    }
    terms.push(stemmed(token));
  }
  return terms;
}

/**
 * Distinct tokens of one text that are indexed: prose, even a long document, holds far fewer, while 12 MB of base64 or
 * URLs holds hundreds of thousands, each a new posting list created on the event loop (seconds for such a text).
 * Occurrences of the indexed tokens are all counted.
 */
export const MAX_TEXT_TERMS = 32_768;

/**
 * Distinct words of a query that count (in the order they come): each is stemmed and looked up before the rarest are
 * kept, and a query of tens of thousands of distinct words (a pasted URL or log) would cost that for each. Lucene
 * bounds a query's clauses at 1,024 for the same reason.
 */
export const MAX_QUERY_WORDS = 1024;

/**
 * Weight of a query term that only a synonym brought in, against 1 for the query's own words: a synonym widens recall
 * ("bill" finds "invoice") but may be of another sense, so a document with the words asked for ranks first. On the
 * retrieval set (bench/retrieval/keyword.ts) weights from 0.15 to 0.7 ranked alike; 0 lost the synonym slice.
 */
export const SYNONYM_WEIGHT = 0.3;

export interface QueryTerm {
  term: string;
  /** 1 for the query's own terms, SYNONYM_WEIGHT for synonyms (WordNet) of its words. */
  weight: number;
}

/**
 * Distinct words of a query whose synonyms are added: each costs up to a few WordNet reads from disk, and the synonyms
 * of the 33rd word of a query add little to its ranking. Lucene bounds a query's clauses (1,024) for the same reason.
 */
export const MAX_SYNONYM_WORDS = 32;

/**
 * A query's distinct terms (see keywordTerms) of its first MAX_QUERY_WORDS distinct words, then the distinct stems of
 * the synonyms of its first MAX_SYNONYM_WORDS distinct words (long tokens have none) at `synonymWeight`.
 */
export function queryTerms(text: string, synonymWeight = SYNONYM_WEIGHT): readonly QueryTerm[] {
  const cacheable = text.length <= CACHED_QUERY_LENGTH && synonymWeight === SYNONYM_WEIGHT;
  const cached = cacheable ? recentQueries.get(text) : undefined;
  if (cached) return cached;
  const terms = Object.freeze(termsOfQuery(text, synonymWeight).map((term) => Object.freeze(term)));
  if (cacheable) {
    recentQueries.set(text, terms);
    if (recentQueries.size > CACHED_QUERIES) recentQueries.delete(recentQueries.keys().next().value!);
  }
  return terms;
}

/**
 * The terms of recent queries: a search asks them of every space it ranks and completes (each a BM25 index), and agents
 * ask the same texts again. Frozen, as callers share them.
 */
const recentQueries = new Map<string, readonly QueryTerm[]>();
const CACHED_QUERIES = 256;
/** Longer texts are tokenised each time: holding them would cost more than it saves. */
const CACHED_QUERY_LENGTH = 2000;

function termsOfQuery(text: string, synonymWeight: number): QueryTerm[] {
  const distinct = new Set<string>();
  for (const token of tokenize(text)) {
    if (STOP_WORDS.has(token)) continue;
    distinct.add(token);
    if (distinct.size === MAX_QUERY_WORDS) break;
  }
  const words = [...distinct];
  const terms = new Map<string, number>();
  for (const word of words) terms.set(stemmed(word), 1);
  const expanded = words.filter((word) => !isLongToken(word)).slice(0, MAX_SYNONYM_WORDS);
  for (const word of expanded)
    for (const synonym of synonymsOf(word)) {
      const term = stemmed(synonym);
      if (!terms.has(term) && !STOP_WORDS.has(synonym)) terms.set(term, synonymWeight);
    }
  return [...terms].map(([term, weight]) => ({ term, weight }));
}
