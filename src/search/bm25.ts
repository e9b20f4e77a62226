import { tokenize } from './tokenize';
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

/**
 * Every document that matched one query, with its parts, ranked on demand by {@link ScoredDocuments.top}. It holds
 * ids rather than rows, so it stays valid while the index changes (e.g. across the awaits of a filtered search).
 */
export class ScoredDocuments {
  constructor(
    readonly ids: readonly string[],
    readonly bm25: Float64Array,
    readonly bestField: Uint8Array,
    /** The normaliser of this query: Σ idf(t) over its distinct terms (0 for a query without terms). */
    readonly maxScore: number,
  ) {}

  get length(): number {
    return this.ids.length;
  }

  /** The `n` best documents, optionally among those `allowed`, best first (ties in a fixed, input-determined order). */
  top(n: number, allowed?: (id: string) => boolean): KeywordScore[] {
    const top = new TopK(n);
    for (let i = 0; i < this.ids.length; i++) {
      if (!allowed || allowed(this.ids[i])) top.offer(i, this.bm25[i]);
    }
    return top.drain().map(({ item }) => ({
      id: this.ids[item],
      bm25: this.bm25[item],
      score: Math.min(1, this.bm25[item] / this.maxScore),
      field: this.bestField[item],
    }));
  }
}

/** A growable posting list: (row, field, term frequency) triples, rows in insertion order. */
class Postings {
  rows = new Int32Array(4);
  fields = new Uint8Array(4);
  tfs = new Uint16Array(4);
  length = 0;

  push(row: number, field: number, tf: number): void {
    if (this.length === this.rows.length) {
      const size = this.length * 2;
      this.rows = grow(this.rows, new Int32Array(size));
      this.fields = grow(this.fields, new Uint8Array(size));
      this.tfs = grow(this.tfs, new Uint16Array(size));
    }
    this.rows[this.length] = row;
    this.fields[this.length] = field;
    this.tfs[this.length] = Math.min(tf, 0xffff);
    this.length++;
  }
}

function grow<T extends Int32Array | Uint8Array | Uint16Array | Float64Array>(from: T, to: T): T {
  to.set(from as never);
  return to;
}

/**
 * An in-process BM25 inverted index over the text fields of one space, kept current by `upsert`/`remove`.
 *
 * A document is the concatenation of its fields: tf(t, d) sums the term's occurrences over the fields and |d| is
 * the total token count. Tokens come from the shared {@link tokenize}. Scoring (k1 = 1.2, b = 0.75):
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
 * Removal is a tombstone: postings of removed rows are skipped and dropped by a compaction once they outnumber the
 * live ones, so updates never rewrite posting lists one by one.
 */
export class KeywordIndex {
  private readonly postings = new Map<string, Postings>();
  private idOfRow: Array<string | undefined> = [];
  private rowOfId = new Map<string, number>();
  private lengths = new Float64Array(1024);
  /** 1 for a row that holds a document, 0 for a removed one (its postings are skipped until compaction). */
  private live = new Uint8Array(1024);
  private totalLength = 0;
  private deadRows = 0;
  private scratch = new Float64Array(0);
  private scratchFields = new Float64Array(0);

  /** `fields` names the text fields (at most 255); a score's `field` is an index into it. */
  constructor(readonly fields: readonly string[]) {
    if (fields.length === 0 || fields.length > 255) throw new Error('A keyword index needs 1 to 255 text fields.');
  }

  /** Number of documents indexed. */
  get size(): number {
    return this.rowOfId.size;
  }

  has(id: string): boolean {
    return this.rowOfId.has(id);
  }

  /** Indexes (or re-indexes) a document's texts, keyed by field name; a document without any token is removed. */
  upsert(id: string, texts: Readonly<Record<string, string>>): void {
    this.remove(id);
    const perField = this.fields.map((field) => countTerms(texts[field] ?? ''));
    const length = perField.reduce((sum, counts) => sum + counts.total, 0);
    if (length === 0) return;
    const row = this.idOfRow.length;
    this.idOfRow.push(id);
    this.rowOfId.set(id, row);
    if (row === this.lengths.length) {
      this.lengths = grow(this.lengths, new Float64Array(row * 2));
      this.live = grow(this.live, new Uint8Array(row * 2));
    }
    this.lengths[row] = length;
    this.live[row] = 1;
    this.totalLength += length;
    perField.forEach(({ counts }, field) => {
      for (const [term, tf] of counts) {
        let list = this.postings.get(term);
        if (!list) this.postings.set(term, (list = new Postings()));
        list.push(row, field, tf);
      }
    });
  }

  /** Removes a document; false when it was not indexed. */
  remove(id: string): boolean {
    const row = this.rowOfId.get(id);
    if (row === undefined) return false;
    this.rowOfId.delete(id);
    this.idOfRow[row] = undefined;
    this.live[row] = 0;
    this.totalLength -= this.lengths[row];
    this.deadRows++;
    if (this.deadRows > 1024 && this.deadRows > this.rowOfId.size) this.compact();
    return true;
  }

  /** Scores every document that contains a term of `text` (see the class comment for the formulas). */
  score(text: string): ScoredDocuments {
    const terms = [...new Set(tokenize(text))];
    const documents = this.rowOfId.size;
    if (!terms.length || !documents) return new ScoredDocuments([], new Float64Array(0), new Uint8Array(0), 0);
    const avgdl = this.totalLength / documents;
    const fieldCount = this.fields.length;
    // Accumulators indexed by row, reused across queries (scoring is synchronous) and cleared through `touched`.
    const rowCount = this.idOfRow.length;
    if (this.scratch.length < rowCount) {
      this.scratch = new Float64Array(rowCount * 2);
      this.scratchFields = new Float64Array(fieldCount > 1 ? rowCount * 2 * fieldCount : 0);
    }
    const scores = this.scratch;
    const fieldScores = this.scratchFields;
    const { live, lengths } = this;
    const touched: number[] = [];
    const tfPerField = new Float64Array(fieldCount);
    const k1 = BM25.k1;
    const lengthWeight = BM25.b / avgdl;
    let maxScore = 0;
    for (const term of terms) {
      const list = this.postings.get(term);
      const df = list ? this.liveDocumentCount(list) : 0;
      const idf = Math.log(1 + (documents - df + 0.5) / (df + 0.5));
      maxScore += idf;
      if (!list || df === 0) continue;
      const { rows, tfs, fields } = list;
      // A row's postings are adjacent (one upsert writes them together): sum its fields' tf, then score it.
      let i = 0;
      while (i < list.length) {
        const row = rows[i];
        let tf = 0;
        if (fieldCount === 1) tf = tfs[i++];
        else {
          tfPerField.fill(0);
          for (; i < list.length && rows[i] === row; i++) {
            tf += tfs[i];
            tfPerField[fields[i]] += tfs[i];
          }
        }
        if (live[row] === 0) continue;
        const contribution = (idf * tf * (k1 + 1)) / (tf + k1 * (1 - BM25.b + lengthWeight * lengths[row]));
        if (scores[row] === 0) touched.push(row);
        scores[row] += contribution;
        if (fieldCount > 1) for (let f = 0; f < fieldCount; f++) fieldScores[row * fieldCount + f] += (contribution * tfPerField[f]) / tf;
      }
    }
    const ids = new Array<string>(touched.length);
    const bm25 = new Float64Array(touched.length);
    const bestField = new Uint8Array(touched.length);
    for (let i = 0; i < touched.length; i++) {
      const row = touched[i];
      ids[i] = this.idOfRow[row]!;
      bm25[i] = scores[row];
      scores[row] = 0;
      if (fieldCount === 1) continue;
      let best = 0;
      for (let f = 1; f < fieldCount; f++) if (fieldScores[row * fieldCount + f] > fieldScores[row * fieldCount + best]) best = f;
      bestField[i] = best;
      fieldScores.fill(0, row * fieldCount, (row + 1) * fieldCount);
    }
    return new ScoredDocuments(ids, bm25, bestField, maxScore);
  }

  private liveDocumentCount(list: Postings): number {
    const { rows, length } = list;
    const live = this.live;
    let count = 0;
    let previous = -1;
    for (let i = 0; i < length; i++) {
      const row = rows[i];
      if (row !== previous && live[row] === 1) count++;
      previous = row;
    }
    return count;
  }

  /** Drops the postings of removed rows and renumbers the live ones densely. */
  private compact(): void {
    const renumber = new Int32Array(this.idOfRow.length).fill(-1);
    const idOfRow: string[] = [];
    const lengths = new Float64Array(Math.max(1024, this.rowOfId.size * 2));
    const live = new Uint8Array(lengths.length);
    this.idOfRow.forEach((id, row) => {
      if (id === undefined) return;
      renumber[row] = idOfRow.length;
      lengths[idOfRow.length] = this.lengths[row];
      live[idOfRow.length] = 1;
      idOfRow.push(id);
    });
    for (const [term, list] of this.postings) {
      const kept = new Postings();
      for (let i = 0; i < list.length; i++) {
        const row = renumber[list.rows[i]];
        if (row !== -1) kept.push(row, list.fields[i], list.tfs[i]);
      }
      if (kept.length) this.postings.set(term, kept);
      else this.postings.delete(term);
    }
    this.idOfRow = idOfRow;
    this.rowOfId = new Map(idOfRow.map((id, row) => [id, row]));
    this.lengths = lengths;
    this.live = live;
    this.deadRows = 0;
  }
}

function countTerms(text: string): { counts: Map<string, number>; total: number } {
  const counts = new Map<string, number>();
  const tokens = tokenize(text);
  for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
  return { counts, total: tokens.length };
}

