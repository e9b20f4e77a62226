import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import type { EmbeddingPrefixes, EmbeddingProvider, InputLimit } from '../../src/embeddings/provider';

/**
 * A provider's vectors kept in a file between runs of the evaluation: the local model embeds ~20 texts a second on a
 * loaded machine, so recording the set's ~7,000 distinct texts once costs minutes and later runs reuse them. The
 * service sees the same id, model, input limit, prefixes and vectors as from the provider itself.
 */
export class FileCachedProvider implements EmbeddingProvider {
  readonly id: string;
  readonly model: string;
  readonly dimensions: number;
  readonly inputLimit?: InputLimit;
  readonly prefixes?: EmbeddingPrefixes;
  private readonly vectors = new Map<string, Float32Array>();
  private readonly file: string;
  private dirty = false;
  private savedAt = performance.now();

  constructor(
    private readonly provider: EmbeddingProvider,
    directory: string,
  ) {
    this.id = provider.id;
    this.model = provider.model;
    this.dimensions = provider.dimensions;
    if (provider.inputLimit) this.inputLimit = provider.inputLimit;
    if (provider.prefixes) this.prefixes = provider.prefixes;
    this.file = path.join(directory, `${provider.id}-${provider.model}-${provider.dimensions}.json`);
    if (existsSync(this.file)) {
      const stored = JSON.parse(readFileSync(this.file, 'utf8')) as Record<string, string>;
      for (const [key, base64] of Object.entries(stored)) {
        const bytes = Buffer.from(base64, 'base64');
        this.vectors.set(key, new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4).slice());
      }
    }
  }

  async embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const keys = texts.map((text) => createHash('sha256').update(text).digest('base64url'));
    const missing = [...new Set(keys.filter((key) => !this.vectors.has(key)))];
    if (missing.length) {
      const byKey = new Map(keys.map((key, i) => [key, texts[i]]));
      const made = await this.provider.embed(
        missing.map((key) => byKey.get(key)!),
        signal,
      );
      missing.forEach((key, i) => this.vectors.set(key, made[i]));
      this.dirty = true;
      // A long first run keeps what it made even if it is stopped.
      if (performance.now() - this.savedAt > 30_000) this.save();
    }
    return keys.map((key) => this.vectors.get(key)!.slice());
  }

  /** Writes the vectors made since the last save. */
  save(): void {
    if (!this.dirty) return;
    mkdirSync(path.dirname(this.file), { recursive: true });
    const stored: Record<string, string> = {};
    for (const [key, vector] of this.vectors)
      stored[key] = Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString('base64');
    writeFileSync(this.file, JSON.stringify(stored));
    this.dirty = false;
    this.savedAt = performance.now();
  }

  async close(): Promise<void> {
    this.save();
    await this.provider.close?.();
  }
}
