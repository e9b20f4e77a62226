import { VectorStore, exactSearch, rowDot } from '../../src/search/vector-store';
import { embeddingLikeVectors, matrixOf } from './support/vectors';

const DIMENSIONS = 64;

/** 2,000 vectors: enough that searches go through the HNSW graph (it is skipped when candidates cover half the space). */
function filledStore(): { store: VectorStore; vectors: Float32Array[]; next: () => Float32Array } {
  const next = embeddingLikeVectors({ dimensions: DIMENSIONS, seed: 7, latent: 16 });
  const vectors = Array.from({ length: 2000 }, next);
  const store = new VectorStore(DIMENSIONS, 16);
  store.addMany(vectors.map((vector, i) => ({ id: `v${i}`, vector })));
  return { store, vectors, next };
}

const ids = (store: VectorStore, rows: Array<{ row: number }>) => rows.map(({ row }) => store.idOf(row));

describe('exactSearch (the brute-force baseline)', () => {
  it('returns the k rows of highest dot product, best first, as a full sort would', () => {
    const next = embeddingLikeVectors({ dimensions: 16, seed: 1 });
    const matrix = matrixOf(next, 300, 16);
    const query = next();
    const sorted = Array.from({ length: 300 }, (_, row) => ({ row, score: rowDot(matrix, row, query) })).sort((a, b) => b.score - a.score);
    expect(exactSearch(matrix, query, 7)).toEqual(sorted.slice(0, 7));
    expect(exactSearch(matrix, query, 3, [5, 50, 150, 250]).map(({ row }) => row)).toEqual(
      sorted.filter(({ row }) => [5, 50, 150, 250].includes(row)).slice(0, 3).map(({ row }) => row),
    );
  });
});

describe('VectorStore', () => {
  it('finds each stored vector as its own nearest neighbour through the graph (cosine 1)', () => {
    const { store, vectors } = filledStore();
    for (const i of [0, 999, 1999]) {
      const [best] = store.approximate(vectors[i], 10);
      expect(store.idOf(best.row)).toBe(`v${i}`);
      expect(best.score).toBeCloseTo(1, 5);
    }
  });

  it('re-scores graph candidates exactly: approximate scores equal exact cosines and come best first', () => {
    const { store, next } = filledStore();
    const query = next();
    const approximate = store.approximate(query, 40);
    const exact = new Map(store.exact(query, 2000).map(({ row, score }) => [row, score]));
    expect(approximate).toHaveLength(40);
    for (const { row, score } of approximate) expect(score).toBeCloseTo(exact.get(row)!, 6);
    expect([...approximate].sort((a, b) => b.score - a.score)).toEqual(approximate);
  });

  it('keeps the graph current on update: the old vector no longer finds the id, the new one does', () => {
    const { store, vectors, next } = filledStore();
    const replacement = next();
    store.upsert('v5', replacement);
    expect(store.size).toBe(2000);
    const [best] = store.approximate(replacement, 10);
    expect(store.idOf(best.row)).toBe('v5');
    const around = ids(store, store.approximate(vectors[5], 10));
    expect(around).not.toContain('v5');
  });

  it('keeps the graph current on remove and reuses the row for the next insert', () => {
    const { store, vectors, next } = filledStore();
    expect(store.remove('v42')).toBe(true);
    expect(store.remove('v42')).toBe(false);
    expect(store.has('v42')).toBe(false);
    expect(ids(store, store.approximate(vectors[42], 50))).not.toContain('v42');
    expect(ids(store, store.exact(vectors[42], 2000))).not.toContain('v42');

    const fresh = next();
    store.upsert('new', fresh);
    expect(store.rowOf('new')).toBe(42);
    expect(store.idOf(store.approximate(fresh, 10)[0].row)).toBe('new');
    store.upsert('v42', vectors[42]); // a removed id comes back
    expect(store.idOf(store.approximate(vectors[42], 10)[0].row)).toBe('v42');
    expect(store.size).toBe(2001);
  });

  it('grows its matrix past the initial capacity without losing vectors', () => {
    const { store, vectors } = filledStore(); // initial capacity 16 rows
    expect(store.exact(vectors[1500], 1).map(({ row }) => store.idOf(row))).toEqual(['v1500']);
  });

  it('stores unit vectors (cosine, whatever the scale) and treats a zero vector as none', () => {
    const store = new VectorStore(3);
    store.upsert('a', Float32Array.of(10, 0, 0));
    store.upsert('b', Float32Array.of(1, 1, 0));
    const [a, b] = store.exact(Float32Array.of(1, 0, 0), 2);
    expect([store.idOf(a.row), a.score]).toEqual(['a', 1]);
    expect(b.score).toBeCloseTo(Math.SQRT1_2, 6);
    store.upsert('a', new Float32Array(3));
    expect(store.has('a')).toBe(false);
  });

  it('rejects a vector of other dimensions', () => {
    expect(() => new VectorStore(3).upsert('a', new Float32Array(4).fill(1))).toThrow(/4 dimensions .* 3 dimensions/);
  });
});
