import { DocumentIds, RowIds } from './document-ids';
import type { SnapshotReader, SnapshotWriter } from './snapshot';
import { keywordTerms, queryTerms } from './tokenize';

/** How texts become terms (see keywordTerms); a snapshot made with another is rebuilt. */
const ANALYZER = 'porter2-stems-without-english-stop-words-tokens-cut-at-64-32768-per-text';
import { TopK } from './top-k';

/** BM25 parameters (the usual Lucene/Elasticsearch defaults). */
export const BM25 = { k1: 1.2, b: 0.75 } as const;

/** One document's keyword score. */
export interface KeywordScore {
  id: string;
  /** Raw BM25 score (> 0). */
  bm25: number;
  /** BM25 normalised to [0, 1] (see {@link KeywordIndex}). */
  score: number;
  /** Index of the text field that contributed most. */
  field: number;
}

export interface KeywordTopOptions {
  /** Only documents whose id passes count (the filter applies before the limit). */
  allowed?: (id: string) => boolean;
  /**
   * Only documents whose number (see DocumentIds) has a 1 here count: `allowed` without looking each id up (a
   * cached search filter, space-filters.ts).
   */
  passing?: Uint8Array;
  /**
   * Skip documents that provably cannot reach the top (default true). False scores every matching document; the
   * result is the same, which the tests check.
   */
  prune?: boolean;
  /**
   * Only documents whose normalised score is at least this count: the walk skips the others as it skips those below
   * the n-th best, so a caller that needs no document below a known score pays for fewer.
   */
  floor?: number;
  /**
   * Called before the walk and every CHECK_EVERY documents walked (each term's list, without pruning): throws to stop
   * the search, e.g. at the request's deadline, which no timer can signal while this synchronous walk holds the thread.
   */
  check?: () => void;
}

/** Documents walked between two calls of {@link KeywordTopOptions.check}. */
const CHECK_EVERY = 4096;

/**
 * The most terms of a query that are scored: its rarest (highest idf, synonyms' scaled by their weight), like Lucene's
 * bound on a query's clauses. Ranking walks every scored term's list for each candidate document, so its cost is
 * terms × documents: on 100k documents, a query of 1,000 / 5,000 common words took 1.6 / 11.8 s; 64 terms take tens
 * of ms and hold a long paragraph's distinct words. The terms left out are the commonest, which add least; they
 * still count in the normaliser, so such a query scores below 1.
 */
export const MAX_SCORED_TERMS = 64;

/** Postings per block of a posting list: log2 of it (see {@link Postings.blockMaxTf}). */
const BLOCK_BITS = 6;
const BLOCK = 1 << BLOCK_BITS;

/**
 * A growable posting list of one term: (row, field, term frequency) triples in increasing row order (rows are
 * appended in order and compaction keeps it), so a row's postings are adjacent and a row can be binary-searched.
 * `df` counts live documents; `maxTf` (largest tf of a document) and `minLength` (shortest document ever listed)
 * bound what the term can add to any document's score, and `blockMaxTf`/`blockMinLength` what it can add to a
 * document listed in one block of {@link BLOCK} postings.
 */
class Postings {
  rows: Int32Array<ArrayBufferLike>;
  fields: Uint8Array<ArrayBufferLike>;
  tfs: Uint16Array<ArrayBufferLike>;
  length = 0;
  df = 0;
  maxTf = 0;
  minLength = Infinity;
  /**
   * Per block (positions b·BLOCK ..), the largest tf and the shortest length of a document with a posting in it,
   * for the first `blocked` postings; extended by `block` when a search needs them. A row never changes (an update is
   * a new row), so what they say of the postings they cover stays true; removed rows only make them loose.
   */
  blockMaxTf = new Int32Array(0);
  blockMinLength = new Float64Array(0);
  blocked = 0;
  /** The arrays are still views into a snapshot (exactly full): see `grownCapacity`. */
  restored = false;

  constructor(capacity = 4) {
    this.rows = new Int32Array(capacity);
    this.fields = new Uint8Array(capacity);
    this.tfs = new Uint16Array(capacity);
  }

  push(row: number, field: number, tf: number): void {
    if (this.length === this.rows.length) {
      const size = grownCapacity(this.length, this.length + 1, this.restored);
      this.restored = false;
      this.rows = grow(this.rows, new Int32Array(size));
      this.fields = grow(this.fields, new Uint8Array(size));
      this.tfs = grow(this.tfs, new Uint16Array(size));
    }
    this.rows[this.length] = row;
    this.fields[this.length] = field;
    this.tfs[this.length] = Math.min(tf, 0xffff);
    this.length++;
  }

  /** Block `block`'s largest tf and shortest length (see `blockMaxTf`), covering the list up to its current length. */
  block(block: number, lengths: Float64Array): { maxTf: number; minLength: number } {
    if (this.blocked < this.length) this.extendBlocks(lengths);
    return { maxTf: this.blockMaxTf[block], minLength: this.blockMinLength[block] };
  }

  private extendBlocks(lengths: Float64Array): void {
    const blocks = (this.length + BLOCK - 1) >> BLOCK_BITS;
    if (blocks > this.blockMaxTf.length) {
      const size = Math.max(blocks, this.blockMaxTf.length * 2, 4);
      this.blockMaxTf = grow(this.blockMaxTf, new Int32Array(size));
      this.blockMinLength = grow(this.blockMinLength, new Float64Array(size).fill(Infinity));
    }
    // From the first posting not covered yet: every row listed before it was complete (a write adds all its postings).
    let p = this.blocked;
    while (p < this.length) {
      const row = this.rows[p];
      const first = p;
      let tf = 0;
      while (p < this.length && this.rows[p] === row) tf += this.tfs[p++];
      // A document's postings (one per field) may straddle blocks: each gets the document's whole tf.
      for (let block = first >> BLOCK_BITS; block <= (p - 1) >> BLOCK_BITS; block++) {
        if (tf > this.blockMaxTf[block]) this.blockMaxTf[block] = tf;
        if (lengths[row] < this.blockMinLength[block]) this.blockMinLength[block] = lengths[row];
      }
    }
    this.blocked = this.length;
  }

  /** The first position at or after `from` whose row is ≥ `row` (galloping, then binary search). */
  seek(row: number, from: number): number {
    const { rows, length } = this;
    let low = from;
    let step = 1;
    let high = from;
    while (high < length && rows[high] < row) {
      low = high + 1;
      high += step;
      step *= 2;
    }
    if (high > length) high = length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (rows[middle] < row) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}

/**
 * The capacity to grow an array of `length` items to, to hold at least `needed`: twice as many, except for an array
 * still viewing its snapshot, which gets an eighth more. The first writes after a restore reach many long arrays at
 * once (the posting list of every common term of the documents written): doubling them all took the catch-up of 300
 * writes 80-120 ms and as many MB.
 */
function grownCapacity(length: number, needed: number, restored: boolean): number {
  return Math.max(needed, restored ? length + Math.max(BLOCK, length >> 3) : Math.max(4, length * 2));
}

function grow<T extends Int32Array | Uint8Array | Uint16Array | Float64Array>(
  from: Int32Array | Uint8Array | Uint16Array | Float64Array,
  to: T,
): T {
  to.set(from as never);
  return to;
}

/** A query term present in the index, with what scoring it needs. */
interface QueryTerm {
  list: Postings;
  idf: number;
  /** The most this term can add to one document's score. */
  bound: number;
}

/** A query against the index's current statistics: its terms, rarest (highest idf) first. */
interface Plan {
  terms: QueryTerm[];
  /** Σ idf over the query's own distinct terms (not synonyms), found or not: the normaliser of the [0, 1] score. */
  maxScore: number;
  /** b / avgdl. */
  lengthWeight: number;
}

/**
 * An in-process BM25 inverted index over the text fields of one space, kept current by `upsert`/`remove`.
 *
 * A document is the concatenation of its fields: tf(t, d) sums the term's occurrences over the fields and |d| is
 * the total token count. Terms are {@link keywordTerms}: stems of the tokens without stop words; a query's terms
 * ({@link queryTerms}) add the stems of its words' synonyms, each with its idf scaled by SYNONYM_WEIGHT and left out of
 * the normaliser below. Scoring (k1 = 1.2, b = 0.75):
 *
 *   bm25(q, d) = Σ_{t ∈ distinct terms of q} idf(t) · tf(t,d)·(k1 + 1) / (tf(t,d) + k1·(1 − b + b·|d|/avgdl))
 *   idf(t)     = ln(1 + (N − df(t) + 0.5) / (df(t) + 0.5))        (always > 0)
 *
 * with N the number of documents and avgdl their mean length. The normalised score used for fusion is
 *
 *   score(q, d) = min(1, bm25(q, d) / Σ_{t ∈ distinct terms of q} idf(t))
 *
 * i.e. 1 when d matches every query term at least as strongly as one occurrence in a document of average length
 * does (that document scores exactly Σ idf), and the share of the query's idf mass matched otherwise. It does not
 * depend on the other results, so a threshold means the same for every query. Terms of the query that no document
 * contains still count in the denominator: a query of which only half is found scores about 0.5.
 *
 * The best field of a match is the one that contributed most: each term's contribution is split between the fields
 * in proportion to their share of tf(t, d).
 *
 * Top-k (`top`) walks the posting lists document at a time with max-score pruning (see `maxScore`): documents that
 * provably cannot reach the top k are skipped, and the lists of common terms are only searched for the documents
 * still in the running. Scores are bit-identical to an exhaustive pass, which the tests check; ties rank the
 * document indexed earlier first.
 *
 * Removal is a tombstone: postings of removed rows are skipped and dropped by a compaction once they outnumber the
 * live ones, so updates never rewrite posting lists one by one; each row keeps its term list so `df` stays exact.
 */
export class KeywordIndex {
  private termIds = new Map<string, number>();
  private lists: Postings[] = [];
  private rows: RowIds;
  private lengths: Float64Array = new Float64Array(1024);
  /** 1 for a row that holds a document, 0 for a removed one (its postings are skipped until compaction). */
  private live: Uint8Array = new Uint8Array(1024);
  /** Distinct term ids of each row: rowTerms[rowStart[row] .. rowStart[row] + rowTermCount[row]). */
  private rowStart: Int32Array = new Int32Array(1024);
  private rowTermCount: Int32Array = new Int32Array(1024);
  private rowTerms: Int32Array = new Int32Array(4096);
  private rowTermsLength = 0;
  /** `rowTerms` is still a view into a snapshot (see `grownCapacity`). */
  private rowTermsRestored = false;
  private totalLength = 0;
  private deadRows = 0;
  /** Per-row accumulators, all zero between calls (scoring is synchronous). */
  private scratch = new Float64Array(0);
  /** Per-row verdicts of `allowed` (0 unknown, 1 passes, 2 fails), all zero between calls. */
  private verdicts = new Uint8Array(0);

  /**
   * `fields` names the text fields (at most 255); a score's `field` is an index into it. `documents`: the numbering of
   * the collection's ids, shared with the other structures of its spaces.
   */
  constructor(
    readonly fields: readonly string[],
    documents = new DocumentIds(),
  ) {
    if (fields.length === 0 || fields.length > 255) throw new Error('A keyword index needs 1 to 255 text fields.');
    this.rows = new RowIds(documents);
  }

  /** Number of documents indexed. */
  get size(): number {
    return this.rows.size;
  }

  has(id: string): boolean {
    return this.rows.has(id);
  }

  /** Indexes (or re-indexes) a document's texts, keyed by field name; a document without any token is removed. */
  upsert(id: string, texts: Readonly<Record<string, string>>): void {
    this.remove(id);
    const perField = this.fields.map((field) => countTerms(texts[field] ?? ''));
    const length = perField.reduce((sum, counts) => sum + counts.total, 0);
    if (length === 0) return;
    const row = this.rows.length;
    this.rows.set(id, row);
    if (row === this.lengths.length) {
      const size = row * 2;
      this.lengths = grow(this.lengths, new Float64Array(size));
      this.live = grow(this.live, new Uint8Array(size));
      this.rowStart = grow(this.rowStart, new Int32Array(size));
      this.rowTermCount = grow(this.rowTermCount, new Int32Array(size));
    }
    this.lengths[row] = length;
    this.live[row] = 1;
    this.totalLength += length;
    // A term's tf over all fields, for df and the score bounds.
    const documentTf = new Map<number, number>();
    perField.forEach(({ counts }, field) => {
      for (const [term, tf] of counts) {
        let termId = this.termIds.get(term);
        if (termId === undefined) {
          termId = this.lists.push(new Postings()) - 1;
          this.termIds.set(term, termId);
        }
        this.lists[termId].push(row, field, tf);
        documentTf.set(termId, (documentTf.get(termId) ?? 0) + tf);
      }
    });
    this.rowStart[row] = this.rowTermsLength;
    this.rowTermCount[row] = documentTf.size;
    if (this.rowTermsLength + documentTf.size > this.rowTerms.length) {
      this.rowTerms = grow(
        this.rowTerms,
        new Int32Array(
          grownCapacity(this.rowTerms.length, this.rowTermsLength + documentTf.size, this.rowTermsRestored),
        ),
      );
      this.rowTermsRestored = false;
    }
    for (const [termId, tf] of documentTf) {
      const list = this.lists[termId];
      list.df++;
      if (tf > list.maxTf) list.maxTf = Math.min(tf, 0xffff * this.fields.length);
      if (length < list.minLength) list.minLength = length;
      this.rowTerms[this.rowTermsLength++] = termId;
    }
  }

  /** Removes a document; false when it was not indexed. */
  remove(id: string): boolean {
    const row = this.rows.delete(id);
    if (row === undefined) return false;
    this.live[row] = 0;
    this.totalLength -= this.lengths[row];
    for (let i = this.rowStart[row], end = i + this.rowTermCount[row]; i < end; i++) this.lists[this.rowTerms[i]].df--;
    this.deadRows++;
    if (this.deadRows > 1024 && this.deadRows > this.rows.size) this.compact();
    return true;
  }

  /** The `n` best documents for `text`, best first (see the class comment); documents without a query term never count. */
  top(text: string, n: number, options: KeywordTopOptions = {}): KeywordScore[] {
    const plan = this.plan(text);
    if (!plan || n <= 0) return [];
    const rowCount = this.rows.length;
    if (options.allowed && this.verdicts.length < rowCount) this.verdicts = new Uint8Array(rowCount * 2);
    const judged: number[] = [];
    const { passing } = options;
    const passes = (row: number): boolean => {
      if (passing && passing[this.rows.numberAt(row)] !== 1) return false;
      if (!options.allowed) return true;
      let verdict = this.verdicts[row];
      if (verdict === 0) {
        verdict = this.verdicts[row] = options.allowed(this.rows.idOf(row)!) ? 1 : 2;
        judged.push(row);
      }
      return verdict === 1;
    };
    try {
      const top =
        options.prune === false
          ? this.scoreAll(plan, n, passes, options.check)
          : this.maxScore(plan, n, passes, options.check, floorOf(options.floor, plan.maxScore));
      const hits = top.drain().map(({ item: row, score }) => ({
        id: this.rows.idOf(row)!,
        bm25: score,
        score: Math.min(1, score / plan.maxScore),
        field: this.bestField(row, plan),
      }));
      const { floor } = options;
      return floor === undefined ? hits : hits.filter((hit) => hit.score >= floor);
    } finally {
      for (const row of judged) this.verdicts[row] = 0;
    }
  }

  /** Exhaustive: every posting of every term, accumulated per row, then the best n. */
  private scoreAll(plan: Plan, n: number, passes: (row: number) => boolean, check?: () => void): TopK {
    const rowCount = this.rows.length;
    if (this.scratch.length < rowCount) this.scratch = new Float64Array(rowCount * 2);
    const { scratch: scores, live } = this;
    const touched: number[] = [];
    try {
      for (const term of plan.terms) {
        check?.();
        const { rows, tfs, length } = term.list;
        let i = 0;
        while (i < length) {
          const row = rows[i];
          let tf = tfs[i++];
          while (i < length && rows[i] === row) tf += tfs[i++];
          if (live[row] === 0 || !passes(row)) continue;
          if (scores[row] === 0) touched.push(row);
          scores[row] += this.contribution(term, tf, row, plan);
        }
      }
      const top = new TopK(n);
      for (const row of touched) top.offer(row, scores[row]);
      return top;
    } finally {
      for (const row of touched) scores[row] = 0;
    }
  }

  /**
   * Document at a time with max-score pruning (Turtle & Flood): the posting lists are walked together in row order.
   * Terms are ranked by bound; the lowest-bound terms whose bounds together do not exceed the n-th best score so far
   * are non-essential: a document found in those alone cannot make the top n, so candidates come from the essential
   * lists only, and non-essential lists are only searched (galloping) for candidates that can still make it. A
   * document's score is summed in the plan's term order, so it is the exhaustive pass's, bit for bit; rows come in
   * increasing order, so a later row scoring the n-th best exactly never displaces it (ties rank earlier rows first).
   *
   * Block-max (Ding & Suel; Chakrabarti et al.): the rows up to the first end of an essential list's current block
   * are skipped at once when the bounds of those blocks and the non-essential terms' bounds, summed in plan order,
   * do not exceed the n-th best score. Each bound is the term's contribution for the block's largest tf and shortest
   * length, and float addition is monotonic, so that sum bounds the score of every row in the range exactly: rows
   * that only tie the n-th best are skipped too, as they could not displace it. On templated texts most rows of a
   * common term tie; the per-row walk scored every one of them.
   */
  private maxScore(
    plan: Plan,
    n: number,
    passes: (row: number) => boolean,
    check?: () => void,
    floor = -Infinity,
  ): TopK {
    const { terms } = plan;
    const count = terms.length;
    const byBound = terms.map((_, t) => t).sort((a, b) => terms[a].bound - terms[b].bound);
    // upTo[i]: the most terms byBound[0..i] add together (inflated a hair: float sums must never exceed it).
    const upTo = new Float64Array(count);
    for (let i = 0, sum = 0; i < count; i++) upTo[i] = (sum += terms[byBound[i]].bound) * (1 + 1e-9);
    const position = new Int32Array(count);
    const current = new Float64Array(count);
    for (let t = 0; t < count; t++) current[t] = terms[t].list.length ? terms[t].list.rows[0] : Infinity;
    const parts = new Float64Array(count);
    const { live, lengths } = this;
    const top = new TopK(n);
    // A document that cannot score above the threshold is skipped: the n-th best so far, or the caller's floor.
    let threshold = floor;
    let essential = 0; // byBound[essential..] are essential
    while (essential < count && upTo[essential] <= threshold) essential++;
    const rank = new Int32Array(count);
    byBound.forEach((t, i) => (rank[t] = i));
    // Each term's current block (-1: none yet) and its bound.
    const block = new Int32Array(count).fill(-1);
    const blockBound = new Float64Array(count);
    // Rows up to `keptUpTo` were found not skippable with `keptAt` as the n-th best: no need to ask again for them.
    let keptUpTo = -1;
    let keptAt = -Infinity;
    let walked = 0;
    check?.();
    for (;;) {
      if (check && ++walked % CHECK_EVERY === 0) check();
      let row = Infinity;
      for (let i = essential; i < count; i++) if (current[byBound[i]] < row) row = current[byBound[i]];
      if (row === Infinity) break;
      if (threshold > -Infinity && (row > keptUpTo || threshold !== keptAt)) {
        let last = Infinity;
        for (let i = essential; i < count; i++) {
          const t = byBound[i];
          if (current[t] === Infinity) continue;
          const list = terms[t].list;
          const b = position[t] >> BLOCK_BITS;
          if (block[t] !== b) {
            const { maxTf, minLength } = list.block(b, lengths);
            block[t] = b;
            blockBound[t] = this.contributionOf(terms[t], maxTf, minLength, plan);
          }
          const end = list.rows[Math.min(list.length, (b + 1) << BLOCK_BITS) - 1];
          if (end < last) last = end;
        }
        let bound = 0;
        for (let t = 0; t < count; t++) {
          if (rank[t] < essential) bound += terms[t].bound;
          else if (current[t] <= last) bound += blockBound[t];
        }
        if (bound <= threshold) {
          for (let i = essential; i < count; i++) {
            const t = byBound[i];
            if (current[t] > last) continue;
            const list = terms[t].list;
            const p = (position[t] = list.seek(last + 1, position[t]));
            current[t] = p < list.length ? list.rows[p] : Infinity;
          }
          continue;
        }
        keptUpTo = last;
        keptAt = threshold;
      }
      // Every part is set before the score adds it up: the essential ones here, the others below unless hopeless.
      let partial = 0;
      for (let i = essential; i < count; i++) {
        const t = byBound[i];
        if (current[t] !== row) {
          parts[t] = 0;
          continue;
        }
        const list = terms[t].list;
        let p = position[t];
        let tf = 0;
        while (p < list.length && list.rows[p] === row) tf += list.tfs[p++];
        position[t] = p;
        current[t] = p < list.length ? list.rows[p] : Infinity;
        parts[t] = this.contribution(terms[t], tf, row, plan);
        partial += parts[t];
      }
      if (live[row] === 0 || !passes(row)) continue;
      let hopeless = false;
      for (let i = essential - 1; i >= 0; i--) {
        if ((partial + upTo[i]) * (1 + 1e-9) <= threshold) {
          hopeless = true;
          break;
        }
        const t = byBound[i];
        const list = terms[t].list;
        let p = (position[t] = list.seek(row, position[t]));
        let tf = 0;
        while (p < list.length && list.rows[p] === row) tf += list.tfs[p++];
        parts[t] = tf === 0 ? 0 : this.contribution(terms[t], tf, row, plan);
        partial += parts[t];
      }
      if (hopeless) continue;
      let score = 0;
      for (let t = 0; t < count; t++) score += parts[t];
      top.offer(row, score);
      if (top.size === n && top.threshold > threshold) {
        threshold = top.threshold;
        while (essential < count && upTo[essential] <= threshold) essential++;
      }
    }
    return top;
  }

  private contribution(term: QueryTerm, tf: number, row: number, plan: Plan): number {
    return this.contributionOf(term, tf, this.lengths[row], plan);
  }

  /** What a term adds to the score of a document of `length` terms where it occurs `tf` times. */
  private contributionOf(term: QueryTerm, tf: number, length: number, plan: Plan): number {
    return (term.idf * tf * (BM25.k1 + 1)) / (tf + BM25.k1 * (1 - BM25.b + plan.lengthWeight * length));
  }

  /**
   * The scores of the given documents for `text` (null for a document not indexed or without a query term), equal
   * to what `top` reports for them: hybrid search completes its candidates' keyword parts with it.
   */
  scoreOf(text: string, ids: readonly string[]): Array<KeywordScore | null> {
    const plan = this.plan(text);
    if (!plan) return ids.map(() => null);
    const rows = ids.map((id) => this.rows.rowOf(id) ?? -1);
    // By increasing row, so that each posting list is searched onwards from the previous row's position.
    const order = rows.flatMap((row, i) => (row >= 0 ? [i] : [])).sort((a, b) => rows[a] - rows[b]);
    const bm25 = new Float64Array(ids.length);
    for (const term of plan.terms) {
      const { list } = term;
      let position = 0;
      for (const i of order) {
        const row = rows[i];
        position = list.seek(row, position);
        let tf = 0;
        for (let p = position; p < list.length && list.rows[p] === row; p++) tf += list.tfs[p];
        if (tf > 0) bm25[i] += this.contribution(term, tf, row, plan);
      }
    }
    return ids.map((id, i) =>
      bm25[i] > 0
        ? { id, bm25: bm25[i], score: Math.min(1, bm25[i] / plan.maxScore), field: this.bestField(rows[i], plan) }
        : null,
    );
  }

  /**
   * Writes the index into a snapshot (see {@link KeywordIndex.restore}). Removed documents' postings and the terms
   * only they had are dropped first (the order of the live rows is kept): no snapshot holds a deleted text's terms.
   */
  save(out: SnapshotWriter): void {
    if (this.deadRows > 0) this.compact();
    const offsets = new Int32Array(this.lists.length + 1);
    this.lists.forEach((list, t) => (offsets[t + 1] = offsets[t] + list.length));
    const total = offsets[this.lists.length];
    const rows = new Int32Array(total);
    const fields = new Uint8Array(total);
    const tfs = new Uint16Array(total);
    const df = new Int32Array(this.lists.length);
    const maxTf = new Int32Array(this.lists.length);
    const minLength = new Float64Array(this.lists.length);
    this.lists.forEach((list, t) => {
      rows.set(list.rows.subarray(0, list.length), offsets[t]);
      fields.set(list.fields.subarray(0, list.length), offsets[t]);
      tfs.set(list.tfs.subarray(0, list.length), offsets[t]);
      df[t] = list.df;
      maxTf[t] = list.maxTf;
      minLength[t] = list.minLength;
    });
    const terms: string[] = new Array(this.lists.length);
    for (const [term, t] of this.termIds) terms[t] = term;
    const rowCount = this.rows.length;
    out.json('keywords', {
      fields: this.fields,
      terms,
      totalLength: this.totalLength,
      deadRows: this.deadRows,
      analyzer: ANALYZER,
    });
    out.ids('keywords.ids', this.rows.ids());
    out.array('keywords.offsets', offsets);
    out.array('keywords.rows', rows);
    out.array('keywords.fields', fields);
    out.array('keywords.tfs', tfs);
    out.array('keywords.df', df);
    out.array('keywords.maxTf', maxTf);
    out.array('keywords.minLength', minLength);
    out.array('keywords.lengths', this.lengths.subarray(0, rowCount));
    out.array('keywords.live', this.live.subarray(0, rowCount));
    out.array('keywords.rowStart', this.rowStart.subarray(0, rowCount));
    out.array('keywords.rowTermCount', this.rowTermCount.subarray(0, rowCount));
    out.array('keywords.rowTerms', this.rowTerms.subarray(0, this.rowTermsLength));
  }

  /**
   * The index saved by `save`, exactly as it was (same rows, so the same order of ties). Throws when the snapshot
   * is inconsistent.
   */
  static restore(input: SnapshotReader, fields: readonly string[], documents: DocumentIds): KeywordIndex {
    const meta = input.json('keywords') as {
      fields: string[];
      terms: string[];
      totalLength: number;
      deadRows: number;
      analyzer?: string;
    };
    const numbers = input.idNumbers('keywords.ids', documents);
    if (JSON.stringify(meta.fields) !== JSON.stringify(fields)) throw new Error('keyword snapshot of other fields');
    if (meta.analyzer !== ANALYZER)
      throw new Error(`keyword snapshot of analyzer ${meta.analyzer ?? 'tokens'}, expected ${ANALYZER}`);
    const index = new KeywordIndex(fields, documents);
    const offsets = input.int32('keywords.offsets');
    const rows = input.int32('keywords.rows');
    const postingFields = input.uint8('keywords.fields');
    const tfs = input.uint16('keywords.tfs');
    const df = input.int32('keywords.df');
    const maxTf = input.int32('keywords.maxTf');
    const minLength = input.float64('keywords.minLength');
    const rowCount = numbers.length;
    const terms = meta.terms.length;
    if (offsets.length !== terms + 1 || df.length !== terms || offsets[terms] !== rows.length)
      throw new Error('keyword snapshot: postings do not add up');
    meta.terms.forEach((term, t) => {
      const list = new Postings(0);
      // Views into the snapshot; a list's first push beyond them copies it out.
      list.rows = rows.subarray(offsets[t], offsets[t + 1]);
      list.fields = postingFields.subarray(offsets[t], offsets[t + 1]);
      list.tfs = tfs.subarray(offsets[t], offsets[t + 1]);
      list.length = list.rows.length;
      list.df = df[t];
      list.maxTf = maxTf[t];
      list.minLength = minLength[t];
      list.restored = true;
      index.lists.push(list);
      index.termIds.set(term, t);
    });
    const capacity = Math.max(1024, rowCount + (rowCount >> 3));
    const copy = <T extends Float64Array | Uint8Array | Int32Array>(
      array: Float64Array | Uint8Array | Int32Array,
      into: T,
    ): T => {
      if (array.length !== rowCount) throw new Error('keyword snapshot: row arrays disagree');
      return grow(array, into);
    };
    index.lengths = copy(input.float64('keywords.lengths'), new Float64Array(capacity));
    index.live = copy(input.uint8('keywords.live'), new Uint8Array(capacity));
    index.rowStart = copy(input.int32('keywords.rowStart'), new Int32Array(capacity));
    index.rowTermCount = copy(input.int32('keywords.rowTermCount'), new Int32Array(capacity));
    index.rowTerms = input.int32('keywords.rowTerms');
    index.rowTermsLength = index.rowTerms.length;
    index.rowTermsRestored = true;
    index.rows = RowIds.restore(documents, numbers, capacity);
    index.totalLength = meta.totalLength;
    index.deadRows = meta.deadRows;
    return index;
  }

  /** The query's terms with their idf and bounds, or null when it has no term or the index no document. */
  private plan(text: string): Plan | null {
    const words = queryTerms(text);
    const documents = this.rows.size;
    if (!words.length || !documents) return null;
    const avgdl = this.totalLength / documents;
    const lengthWeight = BM25.b / avgdl;
    let maxScore = 0;
    const terms: QueryTerm[] = [];
    for (const { term, weight } of words) {
      const termId = this.termIds.get(term);
      const list = termId === undefined ? undefined : this.lists[termId];
      const df = list?.df ?? 0;
      // A synonym's idf is scaled by its weight; the normaliser counts the query's own terms only.
      const idf = weight * Math.log(1 + (documents - df + 0.5) / (df + 0.5));
      if (weight === 1) maxScore += idf;
      if (!list || df === 0) continue;
      const tf = list.maxTf;
      terms.push({
        list,
        idf,
        bound: (idf * tf * (BM25.k1 + 1)) / (tf + BM25.k1 * (1 - BM25.b + lengthWeight * list.minLength)),
      });
    }
    if (!terms.length) return null;
    // Rarest first. By idf rather than by bound: idf depends on the documents only, not on the index's history, so
    // each document's terms are summed in the same order (the same bits) as by an index built afresh. Stable: equal
    // idf keeps the query's order.
    terms.sort((a, b) => b.idf - a.idf);
    if (terms.length > MAX_SCORED_TERMS) terms.length = MAX_SCORED_TERMS;
    return { terms, maxScore, lengthWeight };
  }

  /** The field that contributed most to `row`'s score (each term split by its tf per field; ties: the first field). */
  private bestField(row: number, plan: Plan): number {
    const fieldCount = this.fields.length;
    if (fieldCount === 1) return 0;
    const perField = new Float64Array(fieldCount);
    const tfPerField = new Float64Array(fieldCount);
    for (const { list, idf } of plan.terms) {
      tfPerField.fill(0);
      let tf = 0;
      for (let i = list.seek(row, 0); i < list.length && list.rows[i] === row; i++) {
        tf += list.tfs[i];
        tfPerField[list.fields[i]] += list.tfs[i];
      }
      if (tf === 0) continue;
      const contribution =
        (idf * tf * (BM25.k1 + 1)) / (tf + BM25.k1 * (1 - BM25.b + plan.lengthWeight * this.lengths[row]));
      for (let f = 0; f < fieldCount; f++) perField[f] += (contribution * tfPerField[f]) / tf;
    }
    let best = 0;
    for (let f = 1; f < fieldCount; f++) if (perField[f] > perField[best]) best = f;
    return best;
  }

  /** Drops the postings of removed rows and renumbers the live ones densely (order kept). */
  private compact(): void {
    const renumber = new Int32Array(this.rows.length).fill(-1);
    let liveRows = 0;
    for (let row = 0; row < this.rows.length; row++) if (this.live[row]) renumber[row] = liveRows++;
    const capacity = Math.max(1024, liveRows * 2);
    const lengths = new Float64Array(capacity);
    const live = new Uint8Array(capacity);
    for (let row = 0; row < renumber.length; row++)
      if (renumber[row] !== -1) lengths[renumber[row]] = this.lengths[row];
    live.fill(1, 0, liveRows);
    // Row term lists rebuilt from the kept postings, with the new term ids.
    const rowTerms: number[][] = Array.from({ length: liveRows }, () => []);
    const termIds = new Map<string, number>();
    const lists: Postings[] = [];
    for (const [term, termId] of this.termIds) {
      const list = this.lists[termId];
      const kept = new Postings();
      for (let i = 0; i < list.length; i++) {
        const row = renumber[list.rows[i]];
        if (row === -1) continue;
        kept.push(row, list.fields[i], list.tfs[i]);
      }
      if (!kept.length) continue;
      const id = lists.push(kept) - 1;
      termIds.set(term, id);
      let previous = -1;
      let tf = 0;
      for (let i = 0; i <= kept.length; i++) {
        const row = i < kept.length ? kept.rows[i] : -2;
        if (row !== previous && previous !== -1) {
          kept.df++;
          if (tf > kept.maxTf) kept.maxTf = tf;
          if (lengths[previous] < kept.minLength) kept.minLength = lengths[previous];
          rowTerms[previous].push(id);
          tf = 0;
        }
        if (i < kept.length) tf += kept.tfs[i];
        previous = row;
      }
    }
    this.rowStart = new Int32Array(capacity);
    this.rowTermCount = new Int32Array(capacity);
    this.rowTerms = new Int32Array(
      Math.max(
        4096,
        rowTerms.reduce((sum, terms) => sum + terms.length, 0),
      ),
    );
    this.rowTermsLength = 0;
    rowTerms.forEach((terms, row) => {
      this.rowStart[row] = this.rowTermsLength;
      this.rowTermCount[row] = terms.length;
      for (const termId of terms) this.rowTerms[this.rowTermsLength++] = termId;
    });
    this.termIds = termIds;
    this.lists = lists;
    this.rows.renumber(renumber, liveRows);
    this.lengths = lengths;
    this.live = live;
    this.deadRows = 0;
  }
}

function countTerms(text: string): { counts: Map<string, number>; total: number } {
  const counts = new Map<string, number>();
  const tokens = keywordTerms(text);
  for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
  return { counts, total: tokens.length };
}

/**
 * The raw BM25 threshold of a normalised floor (see KeywordTopOptions.floor), lowered a hair so that the walk never
 * skips a document whose normalised score reaches the floor; -Infinity for none.
 */
function floorOf(floor: number | undefined, maxScore: number): number {
  if (floor === undefined || !(floor > 0)) return -Infinity;
  return Math.min(1, floor) * maxScore * (1 - 1e-9);
}
