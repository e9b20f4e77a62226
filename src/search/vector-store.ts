import { readFileSync } from 'node:fs';
import os from 'node:os';
import { crc32 } from 'node:zlib';
import { Index, MetricKind, ScalarKind } from 'usearch';
import { readChecked, writeChunks, type FileCheck, type SnapshotReader, type SnapshotWriter } from './snapshot';
import { TopK } from './top-k';

/**
 * HNSW parameters of the in-process index. The graph holds f16 copies of the vectors (half the f32 size); every
 * candidate it returns is re-scored exactly from the f32 vectors, so quantisation changes which candidates are
 * found, never the scores or the order of what is returned. i8 copies (a quarter of the size) were tried: on hash
 * embeddings of templated texts (many near-ties) their coarse distances left recall@10 at 0.93-0.94 however wide the
 * beam, where f16 reaches 0.985 at the same speed (bench/search-e2e.ts, 100k vectors); on embedding-like vectors
 * both reach ≈ 0.99 (test/search/recall.test.ts, bench/search.ts).
 */
export const HNSW = {
  connectivity: 24,
  expansionAdd: 64,
  /** Beam width of a search; a search asks for max(this, 4k) candidates, which widens the beam to that count. */
  expansionSearch: 160,
  quantization: ScalarKind.F16,
} as const;

/** One scored vector: its row in the matrix and its cosine similarity to the query. */
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
 * score is the cosine. This is the baseline that the HNSW index is measured against, and the search used when a
 * filter leaves few candidates.
 */
export function exactSearch(matrix: Float32Array, query: Float32Array, k: number, rows?: ArrayLike<number>): ScoredRow[] {
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

/**
 * The vectors of one space in memory: unit-length f32 rows in one contiguous, growable matrix (for exact scoring)
 * and an HNSW graph over them (usearch) whose keys are the row numbers. A string id maps to a row; a removed row is
 * reused by the next insert. Not safe to share between threads (nothing in Node does).
 */
export class VectorStore {
  private matrix: Float32Array;
  private idOfRow: Array<string | null> = [];
  private readonly rowOfId = new Map<string, number>();
  private freeRows: number[] = [];
  private readonly graph: Index;

  constructor(readonly dimensions: number, initialCapacity = 1024) {
    this.matrix = new Float32Array(initialCapacity * dimensions);
    this.graph = new Index({
      dimensions,
      metric: MetricKind.Cos,
      quantization: HNSW.quantization,
      connectivity: HNSW.connectivity,
      expansion_add: HNSW.expansionAdd,
      expansion_search: HNSW.expansionSearch,
      multi: false,
    });
  }

  /** Number of vectors held. */
  get size(): number {
    return this.rowOfId.size;
  }

  has(id: string): boolean {
    return this.rowOfId.has(id);
  }

  /** The row of an id, or undefined when it holds no vector. */
  rowOf(id: string): number | undefined {
    return this.rowOfId.get(id);
  }

  idOf(row: number): string {
    return this.idOfRow[row]!;
  }

  /** Inserts or replaces the vector of `id` (a zero vector removes it: it cannot be compared). */
  upsert(id: string, vector: Float32Array): void {
    this.checkDimensions(vector);
    const unit = unitVector(vector);
    if (!unit) {
      this.remove(id);
      return;
    }
    let row = this.rowOfId.get(id);
    if (row === undefined) row = this.claimRow(id);
    else this.graph.remove(BigInt(row));
    this.matrix.set(unit, row * this.dimensions);
    this.graph.add(BigInt(row), this.rowVector(row), 1);
  }

  /** Removes the vector of `id`; false when there was none. */
  remove(id: string): boolean {
    const row = this.rowOfId.get(id);
    if (row === undefined) return false;
    this.graph.remove(BigInt(row));
    this.rowOfId.delete(id);
    this.idOfRow[row] = null;
    this.freeRows.push(row);
    return true;
  }

  /**
   * Adds many vectors at once (a build): the graph is built with one multi-threaded call. Ids already present
   * are replaced one by one.
   */
  addMany(entries: ReadonlyArray<{ id: string; vector: Float32Array }>): void {
    const fresh: number[] = [];
    for (const { id, vector } of entries) {
      this.checkDimensions(vector);
      const unit = unitVector(vector);
      if (!unit || this.rowOfId.has(id)) {
        if (unit) this.upsert(id, vector);
        else this.remove(id);
        continue;
      }
      const row = this.claimRow(id);
      this.matrix.set(unit, row * this.dimensions);
      fresh.push(row);
    }
    if (!fresh.length) return;
    const keys = BigUint64Array.from(fresh, (row) => BigInt(row));
    const contiguous = fresh.every((row, i) => i === 0 || row === fresh[i - 1] + 1);
    const rows = contiguous
      ? this.matrix.subarray(fresh[0] * this.dimensions, (fresh[fresh.length - 1] + 1) * this.dimensions)
      : gatherRows(this.matrix, fresh, this.dimensions);
    this.graph.add(keys, rows, os.availableParallelism());
  }

  /** The dot product of row `row` with `query` (the cosine for a unit query). */
  score(row: number, query: Float32Array): number {
    return rowDot(this.matrix, row, query);
  }

  /** Exact search over every vector, or over `rows` only. */
  exact(query: Float32Array, k: number, rows?: ArrayLike<number>): ScoredRow[] {
    this.checkDimensions(query);
    return exactSearch(this.matrix, query, k, rows ?? this.liveRows());
  }

  /**
   * Approximate search: the HNSW graph proposes `candidates` rows, each is re-scored exactly, best first. Scans
   * exactly instead when `candidates` covers half the space (a graph walk gains nothing there) or when the graph
   * found fewer than asked, so a short answer always means the space has no more vectors.
   */
  approximate(query: Float32Array, candidates: number): ScoredRow[] {
    this.checkDimensions(query);
    if (candidates * 2 >= this.size) return this.exact(query, candidates);
    const matches = this.graph.search(query, candidates, 1);
    if (matches.keys.length < candidates) return this.exact(query, candidates);
    const top = new TopK(candidates);
    for (const key of matches.keys) {
      const row = Number(key);
      if (this.idOfRow[row] !== null) top.offer(row, rowDot(this.matrix, row, query));
    }
    return top.drain().map(({ item, score }) => ({ row: item, score }));
  }

  /**
   * Saves the store: the graph (usearch's own format) to `<base>.graph`, the f32 rows to `<base>.vectors`, the ids
   * of the rows into `out`. Synchronous, so no write can interleave.
   */
  save(base: string, out: SnapshotWriter): { graph: FileCheck; vectors: FileCheck } {
    this.graph.save(`${base}.graph`);
    const rows = this.idOfRow.length;
    const vectors = writeChunks(`${base}.vectors`, [new Uint8Array(this.matrix.buffer, 0, rows * this.dimensions * 4)]);
    out.ids('vectors.ids', this.idOfRow);
    out.json('vectors', { rows, free: this.freeRows });
    return { graph: fileCheck(`${base}.graph`), vectors };
  }

  /**
   * The store saved by `save` under `base`, exactly as it was: both files are read (in parallel) and checked before
   * usearch reads the graph, since its loader trusts the file. Rejects when a file fails its check or disagrees.
   */
  static async restore(dimensions: number, base: string, checks: { graph: FileCheck; vectors: FileCheck }, input: SnapshotReader): Promise<VectorStore> {
    const meta = input.json('vectors') as { rows: number; free: number[] };
    const ids = input.ids('vectors.ids');
    if (ids.length !== meta.rows || checks.vectors.bytes !== meta.rows * dimensions * 4) throw new Error('vector snapshot: rows disagree');
    // Room for a few more rows, so the first inserts after a start do not copy the matrix.
    const store = new VectorStore(dimensions, meta.rows + Math.max(1024, meta.rows >> 4));
    await Promise.all([
      readChecked(`${base}.graph`, checks.graph),
      readChecked(`${base}.vectors`, checks.vectors, new Uint8Array(store.matrix.buffer)),
    ]);
    store.graph.load(`${base}.graph`);
    store.idOfRow = ids;
    ids.forEach((id, row) => {
      if (id !== null) store.rowOfId.set(id, row);
    });
    store.freeRows = meta.free;
    if (store.graph.size() !== store.rowOfId.size || store.graph.dimensions() !== dimensions) throw new Error('vector snapshot: graph disagrees with rows');
    return store;
  }

  private liveRows(): Int32Array {
    const rows = new Int32Array(this.rowOfId.size);
    let n = 0;
    for (let row = 0; row < this.idOfRow.length; row++) if (this.idOfRow[row] !== null) rows[n++] = row;
    return rows;
  }

  private claimRow(id: string): number {
    const row = this.freeRows.pop() ?? this.idOfRow.length;
    if ((row + 1) * this.dimensions > this.matrix.length) {
      // 1.5× keeps the unused tail (memory the matrix holds but no vector uses) at most a third of the matrix.
      const rows = Math.max(Math.ceil((this.matrix.length / this.dimensions) * 1.5), row + 1);
      const grown = new Float32Array(rows * this.dimensions);
      grown.set(this.matrix);
      this.matrix = grown;
    }
    this.idOfRow[row] = id;
    this.rowOfId.set(id, row);
    return row;
  }

  private rowVector(row: number): Float32Array {
    return this.matrix.subarray(row * this.dimensions, (row + 1) * this.dimensions);
  }

  private checkDimensions(vector: Float32Array): void {
    if (vector.length !== this.dimensions) {
      throw new Error(`Vector of ${vector.length} dimensions given to a search space of ${this.dimensions} dimensions.`);
    }
  }
}

/** Size and CRC-32 of a file written by another library (usearch). */
function fileCheck(path: string): FileCheck {
  const bytes = readFileSync(path);
  return { bytes: bytes.byteLength, crc: crc32(bytes) };
}

function gatherRows(matrix: Float32Array, rows: number[], dimensions: number): Float32Array {
  const gathered = new Float32Array(rows.length * dimensions);
  rows.forEach((row, i) => gathered.set(matrix.subarray(row * dimensions, (row + 1) * dimensions), i * dimensions));
  return gathered;
}
