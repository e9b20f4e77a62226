import { UNKNOWN_DOCUMENT } from './fingerprint';

/**
 * The document key (see `documentKey`) of each id of the spaces of one collection, UNKNOWN_DOCUMENT until its
 * document is read back. A restore hands over each snapshot's saved keys as they are: a catch-up needs only a pass
 * over them (`candidates`), so they are merged into one map only when a key is asked for by id (a save).
 */
export class DocumentKeys {
  private saved: Array<{ ids: ReadonlyArray<string | null>; keys: Int32Array }> = [];
  /** Keys set since (read from the documents): they win over saved ones. */
  private known = new Map<string, number>();

  /** A snapshot's ids and their keys (aligned). */
  addSaved(ids: ReadonlyArray<string | null>, keys: Int32Array): void {
    if (ids.length !== keys.length) throw new Error('document keys do not add up');
    this.saved.push({ ids, keys });
  }

  set(id: string, key: number): void {
    this.known.set(id, key);
  }

  get(id: string): number {
    this.merge();
    return this.known.get(id) ?? UNKNOWN_DOCUMENT;
  }

  /**
   * The ids whose document key is in `keys`, or unknown: those a document with one of those keys may have held. Two
   * snapshots may disagree on an id's key (saved at different times): it is a candidate when either matches.
   */
  candidates(keys: ReadonlySet<number>): string[] {
    const found = new Set<string>();
    for (const [id, key] of this.known) if (key === UNKNOWN_DOCUMENT || keys.has(key)) found.add(id);
    for (const { ids, keys: saved } of this.saved) {
      for (let i = 0; i < ids.length; i++) {
        const key = saved[i];
        const id = ids[i];
        if (id !== null && (key === UNKNOWN_DOCUMENT || keys.has(key)) && !this.known.has(id)) found.add(id);
      }
    }
    return [...found];
  }

  /** Keeps only the ids `holds` says a space still has (deleted documents leave the map). */
  prune(holds: (id: string) => boolean): void {
    this.merge();
    for (const id of this.known.keys()) if (!holds(id)) this.known.delete(id);
  }

  private merge(): void {
    if (!this.saved.length) return;
    const merged = new Map<string, number>();
    for (const { ids, keys } of this.saved) {
      ids.forEach((id, i) => {
        if (id === null) return;
        const before = merged.get(id);
        if (before !== keys[i]) merged.set(id, before === undefined ? keys[i] : UNKNOWN_DOCUMENT);
      });
    }
    for (const [id, key] of this.known) merged.set(id, key);
    this.known = merged;
    this.saved = [];
  }
}
