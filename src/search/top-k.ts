/**
 * Keeps the `k` best items seen so far (a bounded min-heap): O(n log k) selection without sorting everything.
 * An item is better than another when its score is higher, or equal with a smaller item number, so the kept set
 * and its order do not depend on the order in which items are offered.
 */
export class TopK {
  private readonly items: number[] = [];
  private readonly scores: number[] = [];

  constructor(readonly k: number) {}

  get size(): number {
    return this.items.length;
  }

  /**
   * The lowest score kept, or -Infinity while fewer than `k` items are kept: an item scoring below it is rejected
   * (one scoring exactly it is kept only when its number is smaller than the worst kept item's).
   */
  get threshold(): number {
    return this.items.length < this.k ? -Infinity : this.scores[0];
  }

  /** Keeps the item if it ranks among the best k so far; false when it was refused. */
  offer(item: number, score: number): boolean {
    if (this.k <= 0 || Number.isNaN(score)) return false;
    if (this.items.length < this.k) {
      this.items.push(item);
      this.scores.push(score);
      this.siftUp(this.items.length - 1);
    } else if (score > this.scores[0] || (score === this.scores[0] && item < this.items[0])) {
      this.items[0] = item;
      this.scores[0] = score;
      this.siftDown(0);
    } else return false;
    return true;
  }

  /** The kept items, best first (equal scores: smaller item first); empties the heap. */
  drain(): Array<{ item: number; score: number }> {
    const result = this.items.map((item, i) => ({ item, score: this.scores[i] }));
    this.items.length = 0;
    this.scores.length = 0;
    return result.sort((a, b) => b.score - a.score || a.item - b.item);
  }

  /** True when entry a ranks below entry b (the heap keeps the worst at its root). */
  private worse(a: number, b: number): boolean {
    return this.scores[a] < this.scores[b] || (this.scores[a] === this.scores[b] && this.items[a] > this.items[b]);
  }

  private siftUp(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.worse(i, parent)) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private siftDown(i: number): void {
    const n = this.items.length;
    while (true) {
      const left = 2 * i + 1;
      const right = left + 1;
      let worst = i;
      if (left < n && this.worse(left, worst)) worst = left;
      if (right < n && this.worse(right, worst)) worst = right;
      if (worst === i) return;
      this.swap(i, worst);
      i = worst;
    }
  }

  private swap(a: number, b: number): void {
    const item = this.items[a];
    this.items[a] = this.items[b];
    this.items[b] = item;
    const score = this.scores[a];
    this.scores[a] = this.scores[b];
    this.scores[b] = score;
  }
}
