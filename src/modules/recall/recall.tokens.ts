import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';

let encoder: Tiktoken | null = null;

/**
 * Counts of recent lines kept: a memory's line is the same in every recall that offers it, and counting one costs about
 * 0.3 µs a character (125 candidate lines, 10–20 ms).
 */
const CACHED_COUNTS = 8192;
/** Longer texts (a whole answer) are counted each time, not cached. */
const MAX_CACHED_CHARS = 4096;
const cache = new Map<string, number>();

/**
 * Tokens of `text` in cl100k_base (the encoding of GPT-4-class models; others differ by a few percent), counted by
 * js-tiktoken. Special-token markers such as `<|endoftext|>` count as the plain text they are. The encoder (about
 * 1 MB of ranks) is built on first use; the counts of the last CACHED_COUNTS short texts are kept (least recently
 * used first out).
 */
export function countTokens(text: string): number {
  if (!text) return 0;
  const cacheable = text.length <= MAX_CACHED_CHARS;
  if (cacheable) {
    const known = cache.get(text);
    if (known !== undefined) {
      cache.delete(text);
      cache.set(text, known);
      return known;
    }
  }
  encoder ??= new Tiktoken(cl100k);
  const count = encoder.encode(text, [], []).length;
  if (cacheable) {
    if (cache.size >= CACHED_COUNTS) cache.delete(cache.keys().next().value!);
    cache.set(text, count);
  }
  return count;
}
