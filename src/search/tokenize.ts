/**
 * Lower-cases and splits text into word tokens (letters and digits, Unicode-aware). Shared by the keyword
 * scorer and the hash embedder so both see the same words.
 */
export function tokenize(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}
