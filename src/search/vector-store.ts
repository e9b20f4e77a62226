import { readFileSync } from 'node:fs';
import os from 'node:os';
import { crc32 } from 'node:zlib';
import { MetricKind, ScalarKind } from 'usearch';
import { DocumentIds, RowIds, grownTo } from './document-ids';
import { HostedGraph } from './graph-host';
import { writeChunks, type FileCheck, type SnapshotReader, type SnapshotWriter } from './snapshot';
import { TopK } from './top-k';

/**
 * HNSW parameters of the in-process index, over distinct vectors (see {@link VectorStore}). The graph holds f16 copies
 * of them (half the f32 size); every candidate it returns is re-scored exactly from the f32 vectors, so quantisation
 * changes which candidates are found, never the scores or the order of what is returned. Measured by
 * bench/ann-sweep.ts (100k experiences, hash embeddings of bench/seed.ts's templated texts, 384-d; 2 cores):
 * - storing each distinct vector once took recall@10 of primary_goal_description (50.7k distinct) from 0.947 (tie-aware
 *   0.988) to 0.985-0.99 (0.99-0.998), and of sub_task_description (8.4k distinct) from 0.83 (0.96) to 0.997 (1.0);
 * - expansion_add 128 (64 before) gains ≈ 0.01 recall for a build of 15 s instead of 9 s on those 50.7k vectors
 *   (70 s instead of 38 s for 100k distinct embedding-like vectors); connectivity 16 loses 0.03;
 * - a beam of 200 (160 before) steadies recall over graph builds (0.975-0.99 at 160) for ≈ 0.1 ms: p50 ≈ 0.7 ms,
 *   exact scan 53 ms;
 * - i8 copies save a quarter of the graph's vectors but lose 0.005-0.01 recall; f32 copies cost twice and found no more.
 */
export const HNSW = {
  connectivity: 24,
  expansionAdd: 128,
  /** Beam width of a search; a search asks for max(this, 2k) candidates, which widens the beam to that count. */
  expansionSearch: 200,
  quantization: ScalarKind.F16,
} as const;

/**
 * A bound on |cosine of the graph's copies (HNSW.quantization: f16) − exact cosine| for unit vectors: f16 rounds each
 * component to 2^-11 relative, so the product of two copies is within Σ|a_i||b_i|·2^-10 ≤ 2^-10 of the exact one
 * (Cauchy–Schwarz), and normalising the copies adds as much again: under 2e-3. The largest seen on the 100k bench
 * spaces was 2e-4.
 */
const GRAPH_COSINE_ERROR = 0.003;

/**
 * A filtered search lists the documents that pass when they are at most this many and scores exactly those; with
 * more, it walks the graph for max(HNSW.expansionSearch, FILTERED_OVERSAMPLING · k / share passing) candidates and
 * keeps those that pass. Measured by bench/search-e2e.ts (100k experiences, hybrid search over 4 spaces, 2 cores):
 * see docs/performance.md.
 */
export const FILTERED_EXACT_MAX = 4000;
/**
 * How many times k / (share of the space passing) a filtered graph walk asks for (see FILTERED_EXACT_MAX): on the
 * benchmark's 100k experiences, 0.75 to 3 all gave recall@10 ≥ 0.997 at 5-50% passing (a walk returns distinct
 * vectors, each expanded to every id holding it, so more ids than asked are tried).
 */
export const FILTERED_OVERSAMPLING = 1.5;

/** Which documents a filtered search may return: `bits[n]` is 1 for the document numbered n (see DocumentIds). */
export interface Passing {
  readonly bits: Uint8Array;
  /** Documents passing (the bits set). */
  readonly count: number;
  /** Their numbers, ascending. */
  numbers(): Int32Array;
}

/** One scored id: its row (see {@link VectorStore.rowOf}) and its cosine similarity to the query. */
export interface ScoredRow {
  row: number;
  score: number;
}

/** Dot product of row `row` of `matrix` (rows of `query.length` floats) with `query`; cosine for unit vectors. */
export function rowDot(matrix: Float32Array, row: number, query: Float32Array): number {
  const dimensions = query.length;
  const offset = row * dimensions;
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let i = 0;
  for (; i + 3 < dimensions; i += 4) {
    s0 += matrix[offset + i] * query[i];
    s1 += matrix[offset + i + 1] * query[i + 1];
    s2 += matrix[offset + i + 2] * query[i + 2];
    s3 += matrix[offset + i + 3] * query[i + 3];
  }
  for (; i < dimensions; i++) s0 += matrix[offset + i] * query[i];
  return s0 + s1 + s2 + s3;
}

/**
 * Exact (brute-force) search: the `k` rows of `matrix` with the highest dot product with `query`, best first.
 * `rows` limits the scan to those rows (default: rows 0 .. matrix.length / query.length − 1). With unit vectors the
 * score is the cosine. The baseline that the HNSW index is measured against (bench/ann-sweep.ts, the tests).
 */
export function exactSearch(
  matrix: Float32Array,
  query: Float32Array,
  k: number,
  rows?: ArrayLike<number>,
): ScoredRow[] {
  const top = new TopK(k);
  const count = rows ? rows.length : Math.floor(matrix.length / query.length);
  for (let i = 0; i < count; i++) {
    const row = rows ? rows[i] : i;
    const score = rowDot(matrix, row, query);
    if (score > top.threshold) top.offer(row, score);
  }
  return top.drain().map(({ item, score }) => ({ row: item, score }));
}

/** A unit-length copy of `vector`, or null for a zero (or non-finite) vector, which has no direction to compare. */
export function unitVector(vector: Float32Array): Float32Array | null {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i] * vector[i];
  if (!(sum > 0) || !Number.isFinite(sum)) return null;
  const scale = 1 / Math.sqrt(sum);
  const unit = new Float32Array(vector.length);
  for (let i = 0; i < vector.length; i++) unit[i] = vector[i] * scale;
  return unit;
}

/** Rows of the vector matrix per chunk: it grows a chunk at a time, so it is never copied and leaves < 1 chunk unused. */
const CHUNK_ROWS = 1024;

/**
 * The vectors of one space in memory. Identical vectors are stored once, as a group: its unit-length f32 row (for exact
 * scoring) lives in a chunked matrix and is one node of an HNSW graph (usearch) whose keys are the group numbers. An id
 * holds a row (what callers see: `rowOf`, `idOf`, the rows of search results) that points to its group; a search
 * expands each group it finds to all its rows, with the same score. Templated texts embed to many identical vectors
 * (bench/seed.ts: 50k distinct in 100k goals, 5-10k in the other fields), and HNSW degrades on exact duplicates:
 * they crowd each other's neighbour lists and a walk gets stuck among them. A removed row or group is reused by the
 * next insert. Not safe to share between threads (nothing in Node does).
 */
export class VectorStore {
  // Groups: group g is row g % CHUNK_ROWS of chunks[g / CHUNK_ROWS] and key g of the graph.
  private chunks: Float32Array[] = [];
  private groupCount = 0;
  private liveGroups = 0;
  private freeGroups: number[] = [];
  /** Rows in each group; 0 for a free group. */
  private groupSize = new Int32Array(0);
  /**
   * First and last row of each group's doubly linked list of rows (-1: none): O(1) removal however large the group.
   * Rows are kept in increasing order, so a top k offered a group's rows (one score) can stop at the first it refuses.
   */
  private groupHead = new Int32Array(0);
  private groupTail = new Int32Array(0);
  /** CRC-32 of a group's vector bytes → the group(s) with that hash, to find an identical vector on insert. */
  private readonly groupsByHash = new Map<number, number | number[]>();
  /** Groups created by a running addMany, added to the graph in one multi-threaded call at its end. */
  private pending: Set<number> | null = null;

  // Rows: one per id.
  private rows: RowIds;
  private freeRows: number[] = [];
  private groupOfRow: Int32Array;
  private nextInGroup: Int32Array;
  private prevInGroup: Int32Array;

  private readonly graph: HostedGraph;

  // exactPassing's scores of the groups met in its current scan (`scan`): ids sharing a vector cost one product.
  private scan = 0;
  private scoredIn = new Int32Array(0);
  private scoreOf = new Float64Array(0);

  /**
   * `initialCapacity`: ids expected (sizes the per-id tables; the vectors grow by chunks as distinct ones arrive).
   * `documents`: the numbering of the collection's ids, shared with the other structures of its spaces.
   */
  constructor(
    readonly dimensions: number,
    initialCapacity = 1024,
    documents = new DocumentIds(),
    graph = newGraph(dimensions),
  ) {
    this.rows = new RowIds(documents, initialCapacity);
    this.groupOfRow = new Int32Array(initialCapacity);
    this.nextInGroup = new Int32Array(initialCapacity);
    this.prevInGroup = new Int32Array(initialCapacity);
    this.graph = graph;
  }

  /** Number of vectors held (ids, not distinct vectors). */
  get size(): number {
    return this.rows.size;
  }

  /** Number of distinct vectors held. */
  get distinct(): number {
    return this.liveGroups;
  }

  has(id: string): boolean {
    return this.rows.has(id);
  }

  /** The row of an id, or undefined when it holds no vector. */
  rowOf(id: string): number | undefined {
    return this.rows.rowOf(id);
  }

  idOf(row: number): string {
    return this.rows.idOf(row)!;
  }

  /** Inserts or replaces the vector of `id` (a zero vector removes it: it cannot be compared). */
  upsert(id: string, vector: Float32Array): void {
    this.checkDimensions(vector);
    const unit = unitVector(vector);
    if (unit) this.assign(id, unit);
    else this.remove(id);
  }

  /** Removes the vector of `id`; false when there was none. */
  remove(id: string): boolean {
    const row = this.rows.delete(id);
    if (row === undefined) return false;
    this.unlink(row);
    this.freeRows.push(row);
    return true;
  }

  /**
   * Adds or replaces many vectors at once (a build): the new distinct vectors enter the graph in one multi-threaded call
   * of its worker. The store has them at once; the promise resolves once the graph has them too (a search sent
   * meanwhile waits for them in the worker).
   */
  addMany(entries: ReadonlyArray<{ id: string; vector: Float32Array }>): Promise<void> {
    for (const { vector } of entries) this.checkDimensions(vector);
    this.pending = new Set();
    let added = Promise.resolve();
    try {
      for (const { id, vector } of entries) {
        const unit = unitVector(vector);
        if (unit) this.assign(id, unit);
        else this.remove(id);
      }
    } finally {
      const groups = [...this.pending];
      this.pending = null;
      if (groups.length) {
        const rows = new Float32Array(groups.length * this.dimensions);
        groups.forEach((group, i) => rows.set(this.groupVector(group), i * this.dimensions));
        added = this.graph.addAll(
          BigUint64Array.from(groups, (group) => BigInt(group)),
          rows,
          os.availableParallelism(),
        );
      }
    }
    return added;
  }

  /** The dot product of row `row`'s vector with `query` (the cosine for a unit query). */
  score(row: number, query: Float32Array): number {
    return this.groupScore(this.groupOfRow[row], query);
  }

  /** The score (see `score`) of each id's vector, null for an id without one; ids sharing a vector cost one product. */
  scoresOf(ids: readonly string[], query: Float32Array): Array<number | null> {
    const byGroup = new Map<number, number>();
    return ids.map((id) => {
      const row = this.rows.rowOf(id);
      if (row === undefined) return null;
      const group = this.groupOfRow[row];
      let score = byGroup.get(group);
      if (score === undefined) byGroup.set(group, (score = this.groupScore(group, query)));
      return score;
    });
  }

  /** Exact search over every vector, or over `rows` only; equal scores come in row order. */
  exact(query: Float32Array, k: number, rows?: ArrayLike<number>): ScoredRow[] {
    this.checkDimensions(query);
    const top = new TopK(k);
    if (rows) {
      for (let i = 0; i < rows.length; i++) {
        const score = this.score(rows[i], query);
        if (score >= top.threshold) top.offer(rows[i], score);
      }
    } else {
      this.scanGroups(query, top);
    }
    return top.drain().map(({ item, score }) => ({ row: item, score }));
  }

  /**
   * Exact search over the rows of the documents that pass (see {@link Passing}); equal scores come in row order. Each
   * distinct vector is scored once however many passing ids hold it.
   */
  exactPassing(query: Float32Array, k: number, passing: Passing): ScoredRow[] {
    this.checkDimensions(query);
    const top = new TopK(k);
    const { bits } = passing;
    if (passing.count < this.liveGroups) {
      // Fewer passing ids than distinct vectors: walk the passing ids, scoring each group once.
      if (this.scoredIn.length < this.groupCount) {
        this.scoredIn = new Int32Array(this.groupCount + CHUNK_ROWS);
        this.scoreOf = new Float64Array(this.groupCount + CHUNK_ROWS);
      }
      const stamp = ++this.scan;
      const numbers = passing.numbers();
      for (let i = 0; i < numbers.length; i++) {
        const row = this.rows.rowAt(numbers[i]);
        if (row < 0) continue;
        const group = this.groupOfRow[row];
        let score: number;
        if (this.scoredIn[group] === stamp) score = this.scoreOf[group];
        else {
          score = this.scoreOf[group] = this.groupScore(group, query);
          this.scoredIn[group] = stamp;
        }
        if (score >= top.threshold) top.offer(row, score);
      }
    } else {
      this.scanGroups(query, top, bits);
    }
    return top.drain().map(({ item, score }) => ({ row: item, score }));
  }

  /**
   * The `k` rows most similar to `query` among the documents that pass (see {@link Passing}), best first. At most
   * `exactMax` passing: an exact scan of them (`exactPassing`). More: the graph is asked for enough
   * candidates that about `oversampling` · k of them pass, and for 4 times as many while fewer than k did,
   * down to an exact scan (see `approximate`), so fewer than k rows means no more pass.
   */
  async searchPassing(
    query: Float32Array,
    k: number,
    passing: Passing,
    exactMax = FILTERED_EXACT_MAX,
    oversampling = FILTERED_OVERSAMPLING,
  ): Promise<ScoredRow[]> {
    if (passing.count <= exactMax) return this.exactPassing(query, k, passing);
    const share = Math.min(1, passing.count / Math.max(1, this.size));
    for (let candidates = Math.max(HNSW.expansionSearch, Math.ceil((oversampling * k) / share)); ;) {
      const rows = await this.approximate(query, candidates, k, passing);
      if (rows.length >= k || candidates * 2 >= this.size) return rows;
      candidates *= 4;
    }
  }

  /**
   * Approximate search: the HNSW graph proposes `candidates` distinct vectors, each is re-scored exactly and expanded
   * to the ids holding it (those that pass, with `passing`); the best `keep` rows (default: `candidates`) come first.
   * Scans exactly instead when `candidates` covers half the space (a graph walk gains nothing there) or when the graph
   * found fewer than asked, so a short answer always means the space has no more vectors (that pass).
   */
  async approximate(
    query: Float32Array,
    candidates: number,
    keep = candidates,
    passing?: Passing,
  ): Promise<ScoredRow[]> {
    this.checkDimensions(query);
    keep = Math.min(keep, candidates);
    const exact = () => (passing ? this.exactPassing(query, keep, passing) : this.exact(query, keep));
    if (candidates * 2 >= this.size) return exact();
    const wanted = Math.min(candidates, this.liveGroups);
    const matches = await this.graph.search(query, wanted);
    if (matches.keys.length < wanted) return exact();
    const top = new TopK(keep);
    const bits = passing?.bits;
    // A stored vector identical to the query is found by its hash: a graph built by parallel inserts can hold a node
    // that no other links to, which no walk reaches (seen in 2 of 6 builds of the benchmark's 100k: exact matches
    // of queries missed, the walk's best at cosine 0.3).
    const identical = this.findGroup(query, this.hashOf(query));
    if (identical !== undefined) this.offerGroup(top, identical, this.groupScore(identical, query), bits);
    const { keys, distances } = matches;
    for (let i = 0; i < keys.length; i++) {
      // Candidates come by increasing distance of their f16 copies, whose cosine is within GRAPH_COSINE_ERROR of the
      // exact one: once that bound is below the kept rows' worst score, no later candidate can be kept.
      if (1 - distances[i] + GRAPH_COSINE_ERROR < top.threshold) break;
      const group = Number(keys[i]);
      if (this.groupSize[group] === 0 || group === identical) continue;
      const score = this.groupScore(group, query);
      if (score >= top.threshold) this.offerGroup(top, group, score, bits);
    }
    return top.drain().map(({ item, score }) => ({ row: item, score }));
  }

  /**
   * Saves the store: the graph (usearch's own format) to `<base>.graph`, the f32 rows of the groups to
   * `<base>.vectors`, the ids of the rows and their groups into `out`. All is taken before it returns, so no write can
   * interleave: the graph's worker writes the graph as it was when asked (`graph` resolves once it is written).
   */
  save(base: string, out: SnapshotWriter): { graph: Promise<FileCheck>; vectors: FileCheck } {
    const graph = this.graph.save(`${base}.graph`).then(() => fileCheck(`${base}.graph`));
    const rows = this.rows.length;
    const groups = this.groupCount;
    const bytes = this.chunks.map(
      (chunk, c) =>
        new Uint8Array(
          chunk.buffer,
          chunk.byteOffset,
          Math.max(0, Math.min(CHUNK_ROWS, groups - c * CHUNK_ROWS)) * this.dimensions * 4,
        ),
    );
    const vectors = writeChunks(`${base}.vectors`, bytes);
    out.ids('vectors.ids', this.rows.ids());
    out.array('vectors.groups', this.groupOfRow.subarray(0, rows));
    // The groups' hashes, so a restore need not hash every vector again (0 for a free group).
    const hashes = new Int32Array(groups);
    for (const [hash, entry] of this.groupsByHash) {
      if (typeof entry === 'number') hashes[entry] = hash;
      else for (const group of entry) hashes[group] = hash;
    }
    out.array('vectors.hashes', hashes);
    out.json('vectors', { rows, groups, freeRows: this.freeRows, freeGroups: this.freeGroups });
    return { graph, vectors };
  }

  /**
   * Starts restoring the store saved by `save` under `base`, before anything else of the snapshot is read: the graph's
   * worker checks and loads the graph file, then reads and checks the vectors file into shared memory, while the API
   * thread reads the snapshot's data file and links the rows (`restore`). The vectors' buffer is allocated here, first:
   * V8 answers a large allocation outside its heap with garbage collections, cheap while the heap is small, tens of
   * milliseconds once a restore's id maps fill it.
   */
  static beginRestore(
    dimensions: number,
    base: string,
    checks: { graph: FileCheck; vectors: FileCheck },
  ): RestoreUnderway {
    const graph = newGraph(dimensions);
    // Exactly the saved chunks, the last one filled up to a whole chunk.
    const matrix = new Float32Array(
      new SharedArrayBuffer(
        Math.ceil(checks.vectors.bytes / (dimensions * 4 * CHUNK_ROWS)) * CHUNK_ROWS * dimensions * 4,
      ),
    );
    const loaded = Promise.all([
      graph.load(`${base}.graph`, checks.graph),
      graph.readChecked(`${base}.vectors`, checks.vectors, new Uint8Array(matrix.buffer)),
    ]);
    // Awaited by `restore`; a caller that fails before calling it must not leave it unhandled.
    loaded.catch(() => undefined);
    return { dimensions, checks, graph, matrix, loaded };
  }

  /**
   * The store saved by `save`, exactly as it was: links the rows from `input` (the snapshot's data file) while the
   * reads begun by `beginRestore` finish. Rejects when a file fails its check or disagrees.
   */
  static async restore(underway: RestoreUnderway, input: SnapshotReader, documents: DocumentIds): Promise<VectorStore> {
    const { dimensions, checks, matrix } = underway;
    const meta = input.json('vectors') as { rows: number; groups?: number; freeRows: number[]; freeGroups: number[] };
    if (!Number.isInteger(meta.groups)) throw new Error('vector snapshot: not stored by distinct vectors');
    const groups = meta.groups!;
    const numbers = input.idNumbers('vectors.ids', documents);
    const groupOfRow = input.int32('vectors.groups');
    const hashes = input.int32('vectors.hashes');
    if (
      numbers.length !== meta.rows ||
      groupOfRow.length !== meta.rows ||
      hashes.length !== groups ||
      checks.vectors.bytes !== groups * dimensions * 4
    ) {
      throw new Error('vector snapshot: rows disagree');
    }
    const capacity = meta.rows + Math.max(1024, meta.rows >> 4);
    const store = new VectorStore(dimensions, capacity, documents, underway.graph);
    store.groupCount = groups;
    store.groupSize = new Int32Array(groups);
    store.groupHead = new Int32Array(groups).fill(-1);
    store.groupTail = new Int32Array(groups).fill(-1);
    store.rows = RowIds.restore(documents, numbers, capacity);
    for (let row = 0; row < numbers.length; row++) {
      if (numbers[row] < 0) continue;
      const group = groupOfRow[row];
      if (!(group >= 0 && group < groups)) throw new Error('vector snapshot: a row has no group');
      store.link(row, group);
    }
    for (let group = 0; group < groups; group++) {
      if (store.groupSize[group] === 0) continue;
      store.liveGroups++;
      store.addHash(hashes[group] >>> 0, group);
    }
    store.freeRows = meta.freeRows;
    store.freeGroups = meta.freeGroups;
    const [graph] = await underway.loaded;
    for (let offset = 0; offset < matrix.length; offset += CHUNK_ROWS * dimensions)
      store.chunks.push(matrix.subarray(offset, offset + CHUNK_ROWS * dimensions));
    if (
      graph.size !== store.liveGroups ||
      store.liveGroups + store.freeGroups.length !== groups ||
      graph.dimensions !== dimensions
    ) {
      throw new Error('vector snapshot: graph disagrees with rows');
    }
    return store;
  }

  /** Points `id` at the group of `unit` (found or created), leaving the group it held. */
  private assign(id: string, unit: Float32Array): void {
    const hash = this.hashOf(unit);
    const found = this.findGroup(unit, hash);
    let row = this.rows.rowOf(id);
    if (row === undefined) row = this.claimRow(id);
    else if (found !== undefined && found === this.groupOfRow[row]) return;
    else this.unlink(row);
    this.link(row, found ?? this.claimGroup(unit, hash));
  }

  private claimRow(id: string): number {
    const row = this.freeRows.pop() ?? this.rows.length;
    if (row >= this.groupOfRow.length) {
      this.groupOfRow = grownTo(this.groupOfRow, row + 1, 0);
      this.nextInGroup = grownTo(this.nextInGroup, row + 1, 0);
      this.prevInGroup = grownTo(this.prevInGroup, row + 1, 0);
    }
    this.rows.set(id, row);
    return row;
  }

  private claimGroup(unit: Float32Array, hash: number): number {
    const group = this.freeGroups.pop() ?? this.groupCount++;
    if (group >= this.chunks.length * CHUNK_ROWS) this.chunks.push(new Float32Array(CHUNK_ROWS * this.dimensions));
    if (group >= this.groupSize.length) {
      this.groupSize = grownTo(this.groupSize, group + 1, 0);
      this.groupHead = grownTo(this.groupHead, group + 1, 0);
      this.groupTail = grownTo(this.groupTail, group + 1, 0);
    }
    this.chunks[Math.floor(group / CHUNK_ROWS)].set(unit, (group % CHUNK_ROWS) * this.dimensions);
    this.groupSize[group] = 0;
    this.groupHead[group] = -1;
    this.groupTail[group] = -1;
    this.liveGroups++;
    this.addHash(hash, group);
    if (this.pending) this.pending.add(group);
    else this.graph.add(BigInt(group), this.groupVector(group));
    return group;
  }

  /** Puts `row` into `group`'s list in order: at the end, O(1), unless a freed row is reused (a walk to its place). */
  private link(row: number, group: number): void {
    let next = -1;
    if (this.groupTail[group] > row) {
      next = this.groupHead[group];
      while (next < row) next = this.nextInGroup[next];
    }
    const previous = next >= 0 ? this.prevInGroup[next] : this.groupTail[group];
    this.groupOfRow[row] = group;
    this.prevInGroup[row] = previous;
    this.nextInGroup[row] = next;
    if (previous >= 0) this.nextInGroup[previous] = row;
    else this.groupHead[group] = row;
    if (next >= 0) this.prevInGroup[next] = row;
    else this.groupTail[group] = row;
    this.groupSize[group]++;
  }

  /** Takes `row` out of its group; the group's last row frees it (and its graph node). */
  private unlink(row: number): void {
    const group = this.groupOfRow[row];
    const previous = this.prevInGroup[row];
    const next = this.nextInGroup[row];
    if (previous >= 0) this.nextInGroup[previous] = next;
    else this.groupHead[group] = next;
    if (next >= 0) this.prevInGroup[next] = previous;
    else this.groupTail[group] = previous;
    this.groupOfRow[row] = -1;
    if (--this.groupSize[group] > 0) return;
    this.deleteHash(group);
    // Zeroed, so that a snapshot holds no vector of a removed document (a free group is skipped by every scan).
    const offset = (group % CHUNK_ROWS) * this.dimensions;
    this.chunks[Math.floor(group / CHUNK_ROWS)].fill(0, offset, offset + this.dimensions);
    if (!this.pending?.delete(group)) this.graph.remove(BigInt(group));
    this.freeGroups.push(group);
    this.liveGroups--;
  }

  /** Offers every row of a group, or with `bits` those whose document passes (see {@link Passing}). */
  /**
   * Scores every distinct vector once and offers it for every id holding it (of those `bits` passes, when given).
   */
  private scanGroups(query: Float32Array, top: TopK, bits?: Uint8Array): void {
    for (let c = 0; c < this.chunks.length; c++) {
      const chunk = this.chunks[c];
      const end = Math.min(CHUNK_ROWS, this.groupCount - c * CHUNK_ROWS);
      for (let r = 0; r < end; r++) {
        const group = c * CHUNK_ROWS + r;
        if (this.groupSize[group] === 0) continue;
        const score = rowDot(chunk, r, query);
        if (score >= top.threshold) this.offerGroup(top, group, score, bits);
      }
    }
  }

  private offerGroup(top: TopK, group: number, score: number, bits?: Uint8Array): void {
    for (let row = this.groupHead[group]; row >= 0; row = this.nextInGroup[row]) {
      if (bits && bits[this.rows.numberAt(row)] !== 1) continue;
      // The rows come in increasing order with one score: once one is refused, so is every later one.
      if (!top.offer(row, score)) return;
    }
  }

  private groupScore(group: number, query: Float32Array): number {
    return rowDot(this.chunks[Math.floor(group / CHUNK_ROWS)], group % CHUNK_ROWS, query);
  }

  private groupVector(group: number): Float32Array {
    const offset = (group % CHUNK_ROWS) * this.dimensions;
    return this.chunks[Math.floor(group / CHUNK_ROWS)].subarray(offset, offset + this.dimensions);
  }

  private hashOf(unit: Float32Array): number {
    return crc32(new Uint8Array(unit.buffer, unit.byteOffset, unit.byteLength));
  }

  /** The live group whose vector equals `unit` bit for bit, if any. */
  private findGroup(unit: Float32Array, hash: number): number | undefined {
    const entry = this.groupsByHash.get(hash);
    if (entry === undefined) return undefined;
    const same = (group: number) => {
      const vector = this.groupVector(group);
      for (let i = 0; i < vector.length; i++) if (vector[i] !== unit[i]) return false;
      return true;
    };
    return typeof entry === 'number' ? (same(entry) ? entry : undefined) : entry.find(same);
  }

  private addHash(hash: number, group: number): void {
    const entry = this.groupsByHash.get(hash);
    if (entry === undefined) this.groupsByHash.set(hash, group);
    else if (typeof entry === 'number') this.groupsByHash.set(hash, [entry, group]);
    else entry.push(group);
  }

  private deleteHash(group: number): void {
    const hash = this.hashOf(this.groupVector(group));
    const entry = this.groupsByHash.get(hash);
    if (entry === group || entry === undefined) this.groupsByHash.delete(hash);
    else if (typeof entry !== 'number') {
      const rest = entry.filter((other) => other !== group);
      if (rest.length === 1) this.groupsByHash.set(hash, rest[0]);
      else this.groupsByHash.set(hash, rest);
    }
  }

  private checkDimensions(vector: Float32Array): void {
    if (vector.length !== this.dimensions) {
      throw new Error(
        `Vector of ${vector.length} dimensions given to a search space of ${this.dimensions} dimensions.`,
      );
    }
  }
}

/** A restore begun by `VectorStore.beginRestore`. */
export interface RestoreUnderway {
  dimensions: number;
  checks: { graph: FileCheck; vectors: FileCheck };
  graph: HostedGraph;
  matrix: Float32Array;
  /** The graph's size and dimensions once it and the vectors are loaded. */
  loaded: Promise<[{ size: number; dimensions: number }, void]>;
}

function newGraph(dimensions: number): HostedGraph {
  return new HostedGraph({
    dimensions,
    metric: MetricKind.Cos,
    quantization: HNSW.quantization,
    connectivity: HNSW.connectivity,
    expansion_add: HNSW.expansionAdd,
    expansion_search: HNSW.expansionSearch,
    multi: false,
  });
}

/** Size and CRC-32 of a file written by another library (usearch). */
function fileCheck(path: string): FileCheck {
  const bytes = readFileSync(path);
  return { bytes: bytes.byteLength, crc: crc32(bytes) };
}
