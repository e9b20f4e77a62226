/** Largest chunk before it splits: inserts and deletes move at most this many items (a splice of a 100k array costs ~100 µs). */
const MAX_CHUNK = 1024;

/**
 * Items kept in `compare` order, stored as a list of sorted chunks so that an insert or delete moves one chunk's
 * items only. Positions are global: 0 is the first item of the first chunk.
 */
export class SortedList<T> {
  private chunks: T[][] = [];

  /** `sorted` must already be in `compare` order. */
  constructor(
    private readonly compare: (a: T, b: T) => number,
    sorted: T[] = [],
  ) {
    for (let i = 0; i < sorted.length; i += MAX_CHUNK / 2) this.chunks.push(sorted.slice(i, i + MAX_CHUNK / 2));
  }

  get size(): number {
    let size = 0;
    for (const chunk of this.chunks) size += chunk.length;
    return size;
  }

  insert(item: T): void {
    if (!this.chunks.length) {
      this.chunks.push([item]);
      return;
    }
    // The first chunk whose last item is after the new one (or the last chunk), then its first such item.
    const at = Math.min(
      partitionPoint(this.chunks, (chunk) => this.compare(chunk[chunk.length - 1], item) <= 0),
      this.chunks.length - 1,
    );
    const chunk = this.chunks[at];
    chunk.splice(
      partitionPoint(chunk, (other) => this.compare(other, item) <= 0),
      0,
      item,
    );
    if (chunk.length > MAX_CHUNK) this.chunks.splice(at + 1, 0, chunk.splice(MAX_CHUNK / 2));
  }

  /** Removes the item that compares equal to `item`; false when there is none. */
  delete(item: T): boolean {
    const at = partitionPoint(this.chunks, (chunk) => this.compare(chunk[chunk.length - 1], item) < 0);
    const chunk = this.chunks[at];
    if (!chunk) return false;
    const offset = partitionPoint(chunk, (other) => this.compare(other, item) < 0);
    if (offset === chunk.length || this.compare(chunk[offset], item) !== 0) return false;
    chunk.splice(offset, 1);
    if (!chunk.length) this.chunks.splice(at, 1);
    return true;
  }

  /** The position of the first item for which `before` is false (it must hold for a prefix of the items only). */
  partitionPoint(before: (item: T) => boolean): number {
    const at = partitionPoint(this.chunks, (chunk) => before(chunk[chunk.length - 1]));
    let position = 0;
    for (let i = 0; i < at; i++) position += this.chunks[i].length;
    return at === this.chunks.length ? position : position + partitionPoint(this.chunks[at], before);
  }

  /** The items at positions [start, end), backwards when `reverse`. */
  *range(start: number, end: number, reverse: boolean): Generator<T> {
    let count = end - start;
    if (count <= 0) return;
    // Locate the first item to yield: position `start`, or `end - 1` backwards.
    let position = reverse ? end - 1 : start;
    let at = 0;
    while (position >= this.chunks[at].length) position -= this.chunks[at++].length;
    const step = reverse ? -1 : 1;
    for (let offset = position; count > 0; at += step) {
      const chunk = this.chunks[at];
      if (offset < 0) offset = chunk.length - 1;
      for (; offset >= 0 && offset < chunk.length && count > 0; offset += step, count--) yield chunk[offset];
      offset = reverse ? -1 : 0;
    }
  }
}

/** The first position in `items` whose item does not satisfy `before` (which must hold for a prefix of them only). */
function partitionPoint<T>(items: readonly T[], before: (item: T) => boolean): number {
  let low = 0;
  let high = items.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (before(items[mid])) low = mid + 1;
    else high = mid;
  }
  return low;
}
