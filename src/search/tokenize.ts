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

/**
 * The words keyword search indexes and matches: the tokens without stop words. A stop word occurs in nearly every
 * text, so it adds almost nothing to a BM25 score, yet a query whose only shared words were stop words walked their
 * whole posting lists (4 ms per space of 100k experiences) since no bound could prune them.
 */
export function keywordTerms(text: string): string[] {
  return tokenize(text).filter((token) => !STOP_WORDS.has(token));
}
