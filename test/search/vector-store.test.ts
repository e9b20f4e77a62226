import { DocumentIds } from '../../src/search/document-ids';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SnapshotReader, SnapshotWriter, readChecked } from '../../src/search/snapshot';
import { VectorStore, exactSearch, rowDot } from '../../src/search/vector-store';
import { embeddingLikeVectors, matrixOf, seededRandom } from '../support/vectors';

const DIMENSIONS = 64;

/** 2,000 vectors: enough that searches go through the HNSW graph (it is skipped when candidates cover half the space). */
async function filledStore(): Promise<{ store: VectorStore; vectors: Float32Array[]; next: () => Float32Array }> {
  const next = embeddingLikeVectors({ dimensions: DIMENSIONS, seed: 7, latent: 16 });
  const vectors = Array.from({ length: 2000 }, next);
  const store = new VectorStore(DIMENSIONS, 16);
  await store.addMany(vectors.map((vector, i) => ({ id: `v${i}`, vector })));
  return { store, vectors, next };
}

const ids = (store: VectorStore, rows: Array<{ row: number }>) => rows.map(({ row }) => store.idOf(row));

describe('exactSearch (the brute-force baseline)', () => {
  it('returns the k rows of highest dot product, best first, as a full sort would', async () => {
    const next = embeddingLikeVectors({ dimensions: 16, seed: 1 });
    const matrix = matrixOf(next, 300, 16);
    const query = next();
    const sorted = Array.from({ length: 300 }, (_, row) => ({ row, score: rowDot(matrix, row, query) })).sort(
      (a, b) => b.score - a.score,
    );
    expect(exactSearch(matrix, query, 7)).toEqual(sorted.slice(0, 7));
    expect(exactSearch(matrix, query, 3, [5, 50, 150, 250]).map(({ row }) => row)).toEqual(
      sorted
        .filter(({ row }) => [5, 50, 150, 250].includes(row))
        .slice(0, 3)
        .map(({ row }) => row),
    );
  });
});

describe('VectorStore', () => {
  it('finds each stored vector as its own nearest neighbour through the graph (cosine 1)', async () => {
    const { store, vectors } = await filledStore();
    for (const i of [0, 999, 1999]) {
      const [best] = await store.approximate(vectors[i], 10);
      expect(store.idOf(best.row)).toBe(`v${i}`);
      expect(best.score).toBeCloseTo(1, 5);
    }
  });

  it('re-scores graph candidates exactly: approximate scores equal exact cosines and come best first', async () => {
    const { store, next } = await filledStore();
    const query = next();
    const approximate = await store.approximate(query, 40);
    const exact = new Map(store.exact(query, 2000).map(({ row, score }) => [row, score]));
    expect(approximate).toHaveLength(40);
    for (const { row, score } of approximate) expect(score).toBeCloseTo(exact.get(row)!, 6);
    expect([...approximate].sort((a, b) => b.score - a.score)).toEqual(approximate);
  });

  it('keeps the graph current on update: the old vector no longer finds the id, the new one does', async () => {
    const { store, vectors, next } = await filledStore();
    const replacement = next();
    store.upsert('v5', replacement);
    expect(store.size).toBe(2000);
    const [best] = await store.approximate(replacement, 10);
    expect(store.idOf(best.row)).toBe('v5');
    const around = ids(store, await store.approximate(vectors[5], 10));
    expect(around).not.toContain('v5');
  });

  it('keeps the graph current on remove and reuses the row for the next insert', async () => {
    const { store, vectors, next } = await filledStore();
    expect(store.remove('v42')).toBe(true);
    expect(store.remove('v42')).toBe(false);
    expect(store.has('v42')).toBe(false);
    expect(ids(store, await store.approximate(vectors[42], 50))).not.toContain('v42');
    expect(ids(store, store.exact(vectors[42], 2000))).not.toContain('v42');

    const fresh = next();
    store.upsert('new', fresh);
    expect(store.rowOf('new')).toBe(42);
    expect(store.idOf((await store.approximate(fresh, 10))[0].row)).toBe('new');
    store.upsert('v42', vectors[42]); // a removed id comes back
    expect(store.idOf((await store.approximate(vectors[42], 10))[0].row)).toBe('v42');
    expect(store.size).toBe(2001);
  });

  it('grows its matrix past the initial capacity without losing vectors', async () => {
    const { store, vectors } = await filledStore(); // initial capacity 16 rows
    expect(store.exact(vectors[1500], 1).map(({ row }) => store.idOf(row))).toEqual(['v1500']);
  });

  it('stores unit vectors (cosine, whatever the scale) and treats a zero vector as none', async () => {
    const store = new VectorStore(3);
    store.upsert('a', Float32Array.of(10, 0, 0));
    store.upsert('b', Float32Array.of(1, 1, 0));
    const [a, b] = store.exact(Float32Array.of(1, 0, 0), 2);
    expect([store.idOf(a.row), a.score]).toEqual(['a', 1]);
    expect(b.score).toBeCloseTo(Math.SQRT1_2, 6);
    store.upsert('a', new Float32Array(3));
    expect(store.has('a')).toBe(false);
  });

  it('rejects a vector of other dimensions', async () => {
    expect(() => new VectorStore(3).upsert('a', new Float32Array(4).fill(1))).toThrow(/4 dimensions .* 3 dimensions/);
  });
});

describe('VectorStore with identical vectors (stored once, expanded to every id holding them)', () => {
  /** The 2,000 distinct vectors of filledStore plus 300 ids sharing 3 vectors (copies, not the same arrays). */
  async function withDuplicates() {
    const filled = await filledStore();
    const shared = [filled.next(), filled.next(), filled.next()];
    await filled.store.addMany(
      Array.from({ length: 300 }, (_, i) => ({ id: `dup${i % 3}-${i}`, vector: Float32Array.from(shared[i % 3]) })),
    );
    return { ...filled, shared };
  }
  const holders = (store: VectorStore, rows: Array<{ row: number }>, prefix: string) =>
    ids(store, rows).filter((id) => id.startsWith(prefix));

  it('holds each distinct vector once and finds all 100 ids of one through the graph, at the exact score', async () => {
    const { store, shared } = await withDuplicates();
    expect(store.size).toBe(2300);
    expect(store.distinct).toBe(2003);
    const found = await store.approximate(shared[1], 160);
    expect(
      found
        .slice(0, 100)
        .map(({ row }) => store.idOf(row))
        .every((id) => id.startsWith('dup1-')),
    ).toBe(true);
    for (const { score } of found.slice(0, 100)) expect(score).toBeCloseTo(1, 5);
    expect(found.slice(0, 100)).toEqual(store.exact(shared[1], 100));
    expect(found.slice(0, 100).map(({ row }) => row)).toEqual(
      [...found.slice(0, 100).map(({ row }) => row)].sort((a, b) => a - b),
    );
    const row = store.rowOf('dup1-1')!;
    expect(store.score(row, shared[1])).toBeCloseTo(1, 6);
  });

  it('moving or removing one id of a group leaves the others; the last one removed frees the vector from the graph', async () => {
    const { store, shared, next } = await withDuplicates();
    const elsewhere = next();
    store.upsert('dup0-0', elsewhere);
    expect(store.remove('dup0-3')).toBe(true);
    expect(holders(store, await store.approximate(shared[0], 160), 'dup0-')).toHaveLength(98);
    expect(store.idOf((await store.approximate(elsewhere, 10))[0].row)).toBe('dup0-0');
    expect(store.distinct).toBe(2004);

    for (let i = 2; i < 300; i += 3) store.remove(`dup2-${i}`);
    expect(store.distinct).toBe(2003);
    expect(holders(store, await store.approximate(shared[2], 160), 'dup2-')).toEqual([]);
    expect(holders(store, store.exact(shared[2], 2300), 'dup2-')).toEqual([]);
    store.upsert('again', Float32Array.from(shared[2])); // the freed group is reused, and found again
    expect(store.distinct).toBe(2004);
    expect(store.idOf((await store.approximate(shared[2], 10))[0].row)).toBe('again');
    // An upsert with the vector an id already holds changes nothing.
    store.upsert('dup1-1', Float32Array.from(shared[1]));
    expect(holders(store, await store.approximate(shared[1], 160), 'dup1-')).toHaveLength(100);
  });

  it('keeps the k best rows of a large group (smallest rows first) when its rows were freed and reused out of order', async () => {
    const { store, shared, next } = await withDuplicates();
    const random = seededRandom(3);
    // Rows freed in a random order and taken again (last freed, first taken) by ids of the groups, and by others.
    for (let round = 0; round < 4; round++) {
      const freed = Array.from({ length: 300 }, (_, i) => `dup${i % 3}-${i}`).filter(() => random() < 0.4);
      for (const id of freed) store.remove(id);
      for (const id of freed) store.upsert(id, random() < 0.8 ? Float32Array.from(shared[Number(id[3])]) : next());
    }
    const byRow = (query: Float32Array, k: number) =>
      Array.from({ length: 2300 }, (_, i) => store.rowOf(i < 2000 ? `v${i}` : `dup${(i - 2000) % 3}-${i - 2000}`)!)
        .map((row) => ({ row, score: store.score(row, query) }))
        .sort((a, b) => b.score - a.score || a.row - b.row)
        .slice(0, k);
    for (const query of [...shared, next()]) {
      for (const k of [1, 10, 50, 99]) {
        const expected = byRow(query, k);
        expect(store.exact(query, k)).toEqual(expected);
        expect(await store.approximate(query, 200, k)).toEqual(expected);
      }
    }
  });

  it('finds the stored vector identical to the query by its hash, even where no graph walk reaches it', async () => {
    const { store, shared } = await withDuplicates();
    // As a graph built by parallel inserts can hold a node that no other links to: here it is not in the graph at all.
    const internals = store as unknown as { graph: { remove(key: bigint): void }; groupOfRow: Int32Array };
    internals.graph.remove(BigInt(internals.groupOfRow[store.rowOf('dup1-1')!]));
    const found = await store.approximate(Float32Array.from(shared[1]), 160, 10);
    expect(holders(store, found, 'dup1-')).toHaveLength(10);
    for (const { score } of found) expect(score).toBeCloseTo(1, 5);
    expect(found).toEqual(store.exact(shared[1], 10));
  });

  it('addMany with an id twice keeps its last vector (a vector first seen in the batch, then left)', async () => {
    const { store, next } = await filledStore();
    const first = next();
    const last = next();
    await store.addMany([
      { id: 'twice', vector: first },
      { id: 'other', vector: next() },
      { id: 'twice', vector: last },
    ]);
    expect(store.size).toBe(2002);
    expect(store.distinct).toBe(2002);
    expect(store.idOf((await store.approximate(last, 10))[0].row)).toBe('twice');
    expect(ids(store, await store.approximate(first, 50))).not.toContain('twice');
  });

  it('keeping the best k rows of the graph candidates (re-scoring stops early) gives the first k of them all', async () => {
    const { store, next, shared } = await withDuplicates();
    const near = (vector: Float32Array) => vector.map((x, i) => (i % 5 === 0 ? x + 0.02 : x));
    const queries = [...shared, ...shared.map(near), ...Array.from({ length: 40 }, next)];
    for (const query of queries) {
      const all = await store.approximate(query, 300);
      for (const keep of [1, 10, 150]) expect(await store.approximate(query, 300, keep)).toEqual(all.slice(0, keep));
      // Half the store or more: scanned exactly, `keep` rows as well.
      expect(await store.approximate(query, 1200, 10)).toEqual(store.exact(query, 10));
    }
  });

  it('keeps recall@10 ≥ 0.98 on a duplicate-heavy set (20k ids, a few vectors held by hundreds of ids)', async () => {
    const next = embeddingLikeVectors({ dimensions: DIMENSIONS, seed: 11, latent: 16 });
    const distinct = Array.from({ length: 4000 }, next);
    const random = seededRandom(5);
    const store = new VectorStore(DIMENSIONS);
    // Vector i held with probability ∝ 1/(i+1): vector 0 by ~2k ids, most by one or none.
    const picks = Array.from({ length: 20_000 }, () =>
      Math.min(distinct.length - 1, Math.floor(Math.exp(random() * Math.log(distinct.length)) - 1)),
    );
    await store.addMany(picks.map((v, i) => ({ id: `d${i}`, vector: distinct[v] })));
    expect(store.distinct).toBeLessThan(4000);
    let found = 0;
    const queries = Array.from({ length: 100 }, (_, q) =>
      q % 2 ? next() : distinct[picks[q * 97]].map((x) => x + 0.05 * (random() - 0.5)),
    );
    for (const query of queries) {
      const truth = new Set(store.exact(query, 10).map(({ row }) => row));
      found += (await store.approximate(query, 160)).slice(0, 10).filter(({ row }) => truth.has(row)).length;
    }
    expect(found / 1000).toBeGreaterThanOrEqual(0.98);
  });

  it('saves and restores exactly: same answers, and the same after further writes', async () => {
    const { store, shared, next } = await withDuplicates();
    store.remove('v7');
    store.remove('dup0-0');
    const dir = mkdtempSync(path.join(os.tmpdir(), 'vector-store-'));
    try {
      const base = path.join(dir, 'space');
      const out = new SnapshotWriter();
      const saved = store.save(base, out);
      const checks = { graph: await saved.graph, vectors: saved.vectors };
      const data = out.write(`${base}.data`);
      const restored = await VectorStore.restore(
        VectorStore.beginRestore(DIMENSIONS, base, checks),
        new SnapshotReader(await readChecked(`${base}.data`, data), out.sections),
        new DocumentIds(),
      );
      const queries = [...shared, next(), next()];
      const answers = (s: VectorStore) =>
        Promise.all(queries.map(async (query) => [await s.approximate(query, 160), s.exact(query, 50)]));
      expect(restored.size).toBe(store.size);
      expect(restored.distinct).toBe(store.distinct);
      expect(await answers(restored)).toEqual(await answers(store));
      const writes = [next(), next()];
      for (const s of [store, restored]) {
        s.upsert('fresh', writes[0]);
        s.upsert('dup1-4', writes[1]);
        s.upsert('dup2-5', Float32Array.from(shared[0]));
        s.remove('v9');
      }
      expect(restored.rowOf('fresh')).toBe(store.rowOf('fresh'));
      // The saved group hashes find the identical vector: dup2-5 joined shared[0]'s group, as in the original.
      expect(restored.distinct).toBe(store.distinct);
      expect(await answers(restored)).toEqual(await answers(store));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
