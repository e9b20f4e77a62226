import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';

let encoder: Tiktoken | null = null;

/**
 * Tokens of `text` in cl100k_base (the encoding of GPT-4-class models; others differ by a few percent), counted by
 * js-tiktoken. Special-token markers such as `<|endoftext|>` count as the plain text they are. The encoder (about
 * 1 MB of ranks) is built on first use.
 */
export function countTokens(text: string): number {
  if (!text) return 0;
  encoder ??= new Tiktoken(cl100k);
  return encoder.encode(text, [], []).length;
}
