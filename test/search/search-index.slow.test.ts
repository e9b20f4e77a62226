import type { Document } from 'mongodb';
import { silentLogger } from '../../src/logger';
import { EXACT_SEARCH_MAX } from '../../src/search/filter';
import { SearchIndexes, type SearchIndex } from '../../src/search/search-index';
import type { SpaceDefinition } from '../../src/search/space';
import { rowDot } from '../../src/search/vector-store';
import { openTestDatabase, type TestDatabase } from '../support/db';
import { createTestApp } from '../support/app';
import { embeddingLikeVectors, seededRandom } from '../support/vectors';

const DIMENSIONS = 16;
const SPACE: SpaceDefinition = {
  name: 'items.text',
  collection: 'items',
  idField: 'item_id',
  vectorPath: 'embeddings.text_embedding',
  textPaths: ['text'],
  filterFields: ['group', 'near'],
};
/** A space over a few documents, for what does not need EXACT_SEARCH_MAX of them (a rebuild, a lazy build). */
const FEW: SpaceDefinition = { ...SPACE, name: 'few.text', collection: 'few' };

/** A vector pointing almost exactly at `target` (cosine > 0.99). */
function near(target: Float32Array, random: () => number): Float32Array {
  return Float32Array.from(target, (value) => value + (random() - 0.5) * 0.02);
}

const cosine = (a: Float32Array, b: Float32Array) => rowDot(a, 0, b) / Math.sqrt(rowDot(a, 0, a) * rowDot(b, 0, b));

describe('SearchIndex (in-process) over a real database', () => {
  let database: TestDatabase;
  let search: SearchIndexes;
  let index: SearchIndex;
  const next = embeddingLikeVectors({ dimensions: DIMENSIONS, seed: 11, latent: 8 });
  const random = seededRandom(3);
  const query = next();
  const documents: Document[] = [];
  const vectorOf = new Map<string, Float32Array>();

  beforeAll(async () => {
    database = await openTestDatabase();
    // 100 documents right next to the query (`near`), then enough others that the unfiltered remainder exceeds
    // EXACT_SEARCH_MAX; texts: the near ones say "needle", one in 50 of the others "needle haystack".
    const total = EXACT_SEARCH_MAX + 1200;
    for (let i = 0; i < total; i++) {
      const isNear = i < 100;
      const vector = isNear ? near(query, random) : next();
      vectorOf.set(`i${i}`, vector);
      documents.push({
        item_id: `i${i}`,
        group: i % 2 === 0 ? 'even' : 'odd',
        near: isNear,
        text: isNear ? `needle number ${i}` : i % 50 === 0 ? `needle haystack ${i}` : `haystack straw ${i}`,
        embeddings: { text_embedding: Array.from(vector) },
      });
    }
    documents.push({ item_id: 'no-vector', group: 'even', near: false, text: 'needle without vector' });
    documents.push({
      item_id: 'other-size',
      group: 'even',
      near: false,
      text: 'straw',
      embeddings: { text_embedding: [1, 2, 3] },
    });
    documents.push({
      item_id: 42,
      group: 'even',
      near: false,
      text: 'needle with a numeric id',
      embeddings: { text_embedding: Array.from(next()) },
    });
    const items = database.db.collection('items');
    for (let i = 0; i < documents.length; i += 2000)
      await items.insertMany(documents.slice(i, i + 2000).map((document) => ({ ...document })));
    await items.createIndex({ item_id: 1 });
    await database.db.collection('few').insertMany(documents.slice(0, 20).map((document) => ({ ...document })));
    search = new SearchIndexes({ mode: 'memory', dimensions: DIMENSIONS, logger: silentLogger });
    search.defineSpace(SPACE);
    index = search.forDb(database.db);
    await index.build(SPACE.name);
  }, 180_000);

  afterAll(() => database?.close());

  /** The ids of the k best passing documents by brute force over the inserted vectors. */
  function bruteForce(k: number, passes: (document: Document) => boolean): string[] {
    return documents
      .filter((document) => typeof document.item_id === 'string' && vectorOf.has(document.item_id) && passes(document))
      .map((document) => ({ id: document.item_id as string, score: cosine(query, vectorOf.get(document.item_id)!) }))
      .sort((a, b) => b.score - a.score)
      .slice(0, k)
      .map((hit) => hit.id);
  }

  it('builds from MongoDB: string ids with vectors of the right size, texts of every document with an id', () => {
    expect(index.stats(SPACE.name)).toEqual({
      status: 'ready',
      vectors: EXACT_SEARCH_MAX + 1200,
      documents: EXACT_SEARCH_MAX + 1202,
    });
  });

  it('returns the nearest vectors by cosine, best first, without a filter', async () => {
    const hits = await index.searchVector(SPACE.name, { vector: query, k: 10 });
    expect(hits.map((hit) => hit.id)).toEqual(bruteForce(10, () => true));
    hits.forEach((hit) => expect(hit.score).toBeCloseTo(cosine(query, vectorOf.get(hit.id)!), 5));
  });

  it('applies a selective filter before the limit: an exact scan over exactly the documents that pass', async () => {
    database.commands.reset();
    const hits = await index.searchVector(SPACE.name, { vector: query, k: 10, filter: { near: false, group: 'odd' } });
    expect(hits.map((hit) => hit.id)).toEqual(bruteForce(10, (document) => !document.near && document.group === 'odd'));
    expect(database.commands.count('find', 'items')).toBe(1); // the ids that pass, in one query
  });

  it('applies a broad filter before the limit: graph candidates are checked until k pass, even when the best 100 fail', async () => {
    database.commands.reset();
    const hits = await index.searchVector(SPACE.name, { vector: query, k: 10, filter: { near: false } });
    expect(hits).toHaveLength(10);
    const expected = bruteForce(10, (document) => !document.near);
    expect(hits.filter((hit) => expected.includes(hit.id)).length).toBeGreaterThanOrEqual(9);
    expect(hits.every((hit) => !hit.id.match(/^i\d+$/) || Number(hit.id.slice(1)) >= 100)).toBe(true);
    // One listing of the documents that pass; the graph's candidates are then checked in memory.
    expect(database.commands.count('find', 'items')).toBe(1);
    await index.searchVector(SPACE.name, { vector: query, k: 10, filter: { near: false } });
    expect(database.commands.count('find', 'items')).toBe(1); // cached
  });

  it('resolves one filter once for concurrent searches of the same collection (a hybrid search over several spaces)', async () => {
    database.commands.reset();
    const filter = { near: false, group: 'even' };
    const [vectorHits, keywordHits] = await Promise.all([
      index.searchVector(SPACE.name, { vector: query, k: 3, filter }),
      index.searchKeyword(SPACE.name, { text: 'needle', k: 3, filter }),
      index.searchVector(SPACE.name, { vector: query, k: 5, filter: { ...filter } }),
    ]);
    expect(vectorHits).toHaveLength(3);
    expect(keywordHits).toHaveLength(3);
    expect(database.commands.count('find', 'items')).toBe(1);
  });

  it('answers a filter on the id alone in memory ($ne excludes, $in includes) without querying MongoDB', async () => {
    database.commands.reset();
    const [best] = await index.searchVector(SPACE.name, { vector: query, k: 1 });
    const without = await index.searchVector(SPACE.name, {
      vector: query,
      k: 5,
      filter: { item_id: { $ne: best.id } },
    });
    expect(without.map((hit) => hit.id)).not.toContain(best.id);
    expect(without).toHaveLength(5);
    const only = await index.searchVector(SPACE.name, {
      vector: query,
      k: 5,
      filter: { item_id: { $in: ['i500', 'i7', 'missing'] } },
    });
    expect(only.map((hit) => hit.id).sort()).toEqual(['i500', 'i7']);
    expect(database.commands.count()).toBe(0);
  });

  it('scores keywords with BM25 (normalised to [0, 1]) and applies filters before the limit', async () => {
    const all = await index.searchKeyword(SPACE.name, { text: 'needle', k: 500 });
    const withNeedle = documents.filter(
      (document) => typeof document.item_id === 'string' && /needle/.test(document.text),
    );
    expect(all).toHaveLength(withNeedle.length); // vector or not; the numeric id is not indexed
    expect(all.every((hit) => hit.field === 'text' && hit.score > 0 && hit.score <= 1)).toBe(true);
    const filtered = await index.searchKeyword(SPACE.name, {
      text: 'needle',
      k: 5,
      filter: { near: false, group: 'even' },
    });
    expect(filtered).toHaveLength(5);
    expect(filtered.every((hit) => documents.find((document) => document.item_id === hit.id)?.near === false)).toBe(
      true,
    );
    const broad = await index.searchKeyword(SPACE.name, { text: 'needle', k: 150, filter: { near: false } });
    expect(broad).toHaveLength(150);
    expect(broad.some((hit) => Number(hit.id.slice(1)) < 100 && /^i\d+$/.test(hit.id))).toBe(false);
  });

  it('keeps vectors and texts current on upsert and remove, and replays writes made during a build', async () => {
    const fresh = near(query, random);
    index.upsert(SPACE.name, 'added', fresh, 'needle needle needle');
    expect((await index.searchVector(SPACE.name, { vector: fresh, k: 1 }))[0].id).toBe('added');
    expect((await index.searchKeyword(SPACE.name, { text: 'needle', k: 1 }))[0].id).toBe('added');

    index.upsert(SPACE.name, 'added', next(), 'straw');
    expect((await index.searchVector(SPACE.name, { vector: fresh, k: 1 }))[0].id).not.toBe('added');
    expect((await index.searchKeyword(SPACE.name, { text: 'needle', k: 1000 })).map((hit) => hit.id)).not.toContain(
      'added',
    );

    index.remove(SPACE.name, 'added');
    expect((await index.searchKeyword(SPACE.name, { text: 'straw', k: 20_000 })).map((hit) => hit.id)).not.toContain(
      'added',
    );

    search.defineSpace(FEW);
    await index.build(FEW.name);
    const rebuilding = index.build(FEW.name);
    index.upsert(FEW.name, 'during-build', fresh, 'needle');
    expect(index.stats(FEW.name).status).toBe('building');
    await rebuilding;
    expect((await index.searchVector(FEW.name, { vector: fresh, k: 1 }))[0].id).toBe('during-build');
  });

  it('checks its inputs: vector size, k, unknown spaces, keyword search without text paths', async () => {
    expect(() => index.upsert(SPACE.name, 'x', new Float32Array(3).fill(1))).toThrow(/3 dimensions/);
    await expect(index.searchVector(SPACE.name, { vector: query, k: 0 })).rejects.toThrow(/positive integer/);
    expect(() => index.remove('nope', 'x')).toThrow(/Unknown search space "nope"/);
    search.defineSpace({ ...SPACE, name: 'items.vector-only', textPaths: [] });
    await expect(index.searchKeyword('items.vector-only', { text: 'needle', k: 1 })).rejects.toThrow(/no text paths/);
    expect(() => search.defineSpace({ ...SPACE, vectorPath: 'elsewhere' })).toThrow(/already defined differently/);
  });

  it('skips writes to a space never built, then builds it from MongoDB on its first search', async () => {
    search.defineSpace({ ...FEW, name: 'few.lazy' });
    index.upsert('few.lazy', 'ghost', query, 'needle');
    expect(index.stats('few.lazy')).toEqual({ status: 'empty', vectors: 0, documents: 0 });
    const [best] = await index.searchVector('few.lazy', { vector: query, k: 1 });
    expect(best.id).toMatch(/^i\d+$/); // built from MongoDB: the skipped write is not there
    expect(index.stats('few.lazy')).toEqual({ status: 'ready', vectors: 20, documents: 20 });
  });

  it('keeps one index per database, and the app exposes it as deps.search', async () => {
    const app = await createTestApp();
    try {
      app.deps.search.defineSpace(SPACE);
      const other = app.deps.search.forDb(app.db);
      expect(app.deps.search.forDb(app.db)).toBe(other);
      const vector = new Float32Array(app.deps.embeddings.dimensions).fill(1);
      expect(await other.searchVector(SPACE.name, { vector, k: 3 })).toEqual([]); // that database has no items
    } finally {
      await app.close();
    }
  });
});
