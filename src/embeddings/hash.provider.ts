import { normalize, type EmbeddingProvider } from './provider';
import { tokenize } from '../search/tokenize';

/** FNV-1a, 32 bit: fast, deterministic, good enough spread for feature hashing. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/**
 * A deterministic lexical embedder (feature hashing of words and word bigrams, signed to cancel collisions).
 * No model, no network: for tests and tiny deployments. Texts sharing words get similar vectors; paraphrases
 * with other words do not, which is what the `local` and `openai` providers are for.
 */
export class HashEmbeddingProvider implements EmbeddingProvider {
  readonly id = 'hash';
  readonly model: string;

  constructor(readonly dimensions = 384) {
    this.model = `feature-hash-v1-${dimensions}`;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((text) => this.embedOne(text));
  }

  private embedOne(text: string): Float32Array {
    const vector = new Float32Array(this.dimensions);
    const words = tokenize(text);
    const add = (feature: string, weight: number) => {
      const hash = fnv1a(feature);
      vector[hash % this.dimensions] += hash & 0x80000000 ? -weight : weight;
    };
    for (let i = 0; i < words.length; i++) {
      add(words[i], 1);
      if (i + 1 < words.length) add(`${words[i]} ${words[i + 1]}`, 0.5);
    }
    return normalize(vector);
  }
}
