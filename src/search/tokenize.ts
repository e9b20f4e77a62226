import stem from 'wink-porter2-stemmer';
import { synonymsOf } from './synonyms';

/**
 * Lower-cases and splits text into word tokens (letters and digits, Unicode-aware). Shared by the keyword
 * scorer and the hash embedder so both see the same words.
 */
export function tokenize(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
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

/**
 * A token's English stem (Snowball's Porter2): "deploying", "deployed" and "deployment" all match "deploy". Tokens
 * with a digit are kept as they are (ids, versions).
 */
export function stemmed(token: string): string {
  let result = stems.get(token);
  if (result === undefined) {
    result = /\d/.test(token) ? token : stem(token);
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
  for (const token of tokenize(text)) if (!STOP_WORDS.has(token)) terms.push(stemmed(token));
  return terms;
}

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

/** A query's distinct terms (see keywordTerms), then the distinct stems of its words' synonyms at `synonymWeight`. */
export function queryTerms(text: string, synonymWeight = SYNONYM_WEIGHT): QueryTerm[] {
  const words = tokenize(text).filter((token) => !STOP_WORDS.has(token));
  const terms = new Map<string, number>();
  for (const word of words) terms.set(stemmed(word), 1);
  for (const word of new Set(words))
    for (const synonym of synonymsOf(word)) {
      const term = stemmed(synonym);
      if (!terms.has(term) && !STOP_WORDS.has(synonym)) terms.set(term, synonymWeight);
    }
  return [...terms].map(([term, weight]) => ({ term, weight }));
}
