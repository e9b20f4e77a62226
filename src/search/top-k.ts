/**
 * Keeps the `k` highest-scoring items seen so far (a bounded min-heap): O(n log k) selection without sorting
 * everything. At the boundary an equal score does not displace an item already kept, and `drain` orders ties by
 * the smaller item, so a scan in item order gives deterministic results.
 */
export class TopK {
  private readonly items: number[] = [];
  private readonly scores: number[] = [];

  constructor(readonly k: number) {}

  get size(): number {
    return this.items.length;
  }

  /** The lowest score kept, or -Infinity while fewer than `k` items are kept: anything not above it is rejected. */
  get threshold(): number {
    return this.items.length < this.k ? -Infinity : this.scores[0];
  }

  offer(item: number, score: number): void {
    if (this.k <= 0 || Number.isNaN(score)) return;
    if (this.items.length < this.k) {
      this.items.push(item);
      this.scores.push(score);
      this.siftUp(this.items.length - 1);
    } else if (score > this.scores[0]) {
      this.items[0] = item;
      this.scores[0] = score;
      this.siftDown(0);
    }
  }

  /** The kept items, best first (equal scores: smaller item first); empties the heap. */
  drain(): Array<{ item: number; score: number }> {
    const result = this.items.map((item, i) => ({ item, score: this.scores[i] }));
    this.items.length = 0;
    this.scores.length = 0;
    return result.sort((a, b) => b.score - a.score || a.item - b.item);
  }

  private siftUp(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.scores[parent] <= this.scores[i]) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private siftDown(i: number): void {
    const n = this.items.length;
    while (true) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < n && this.scores[left] < this.scores[smallest]) smallest = left;
      if (right < n && this.scores[right] < this.scores[smallest]) smallest = right;
      if (smallest === i) return;
      this.swap(i, smallest);
      i = smallest;
    }
  }

  private swap(a: number, b: number): void {
    [this.items[a], this.items[b]] = [this.items[b], this.items[a]];
    [this.scores[a], this.scores[b]] = [this.scores[b], this.scores[a]];
  }
}
