import { RequestEndedError } from '../coded-error';

/**
 * The vectors of recent search queries, least recently used evicted first. Agents repeat queries, and embedding one
 * costs at least a round trip to the embedding cache collection; a hit here costs a map lookup. Concurrent requests
 * for the same text share one embedding; a failed one is forgotten.
 */
export class QueryVectorCache {
  private readonly entries = new Map<string, Promise<Float32Array>>();

  constructor(readonly capacity = 1000) {}

  /** The cached vector of `text`, else `embed()`'s (cached). The vector is shared: do not mutate it. */
  get(text: string, embed: () => Promise<Float32Array>): Promise<Float32Array> {
    let entry = this.entries.get(text);
    if (entry) {
      this.entries.delete(text);
      this.entries.set(text, entry);
      // Another request's embedding ends with that request: this one then embeds for itself.
      return entry.catch((error: unknown) => {
        if (error instanceof RequestEndedError) return this.get(text, embed);
        throw error;
      });
    }
    entry = embed();
    this.entries.set(text, entry);
    entry.catch(() => {
      if (this.entries.get(text) === entry) this.entries.delete(text);
    });
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
    return entry;
  }
}
