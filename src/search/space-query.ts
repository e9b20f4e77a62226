import { BSON, type Db, type Document } from 'mongodb';
import { searchAtlas, storedVectorScores, type FilterResolver } from './atlas';
import {
  firstPassing,
  idRestriction,
  isEmptyFilter,
  resolveFilter,
  type Restriction,
  type SpaceRestriction,
} from './filter';
import type { SpaceDefinition } from './space';
import type { SpaceLifecycle } from './space-lifecycle';
import type { SpaceState, SpaceStates } from './space-state';
import type { KeywordHit, KeywordQuery, SearchOptions, SpaceRegistry, VectorHit, VectorQuery } from './types';
import { TopK } from './top-k';
import { HNSW, unitVector, type ScoredRow, type VectorStore } from './vector-store';

/**
 * Vector and keyword search over the spaces of one database: the request path. Each search waits for its space to be
 * ready (see {@link SpaceLifecycle.ready}), then reads the space's in-process vectors and BM25 index as they are at
 * that moment; in atlas mode vector search runs `$vectorSearch` (atlas.ts). Filters are MongoDB filters on the
 * space's collection and apply before the limit: see `searchVector`.
 */
/**
 * A filtered keyword search scores the documents that pass when they are at most this many (`KeywordIndex.scoreOf`),
 * and otherwise ranks the postings of the query's terms, testing each document met against the filter's bits. On the
 * benchmark's 100k experiences (KEYWORD, 4 spaces) both took ~1.5-2.5 ms at 1,000 passing; at 5,000, scoring them
 * took 5-17 ms, ranking ~2 ms.
 */
const KEYWORD_LISTED_MAX = 1000;

export class SpaceQuery implements FilterResolver {
  /** Filter resolutions in flight, shared by concurrent searches with the same collection and filter. */
  private readonly resolving = new Map<string, Promise<Restriction>>();

  constructor(
    private readonly db: Db,
    private readonly registry: SpaceRegistry,
    private readonly lifecycle: SpaceLifecycle,
    private readonly states: SpaceStates,
  ) {}

  private get options(): SearchOptions {
    return this.registry.options;
  }

  /**
   * The `k` documents whose vectors are most similar (cosine) to `query.vector`, best first, among those that pass
   * `query.filter`. In memory mode:
   * - no filter: the HNSW graph proposes max(2k, HNSW.expansionSearch) candidates, all re-scored exactly (a search's
   *   wide pool needs its first results exact and the rest near: the beam of 200 finds both for k up to 100);
   * - a filter: the documents that pass it, cached and kept current (see CollectionFilters in space-filters.ts), then
   *   `VectorStore.searchPassing`: an exact scan of them when few (recall 1.0), else a graph walk sized by the share
   *   that passes, keeping those that pass.
   * In atlas mode: `$vectorSearch` with the filter as its pre-filter when Atlas can take it (ANN, retried as exact
   * search when it returned fewer than k), else with the ids that pass (exact search) or growing candidate lists, sent
   * through `db` (a request's handle, so the command is refused after its deadline and carries it as `maxTimeMS`).
   */
  async searchVector(space: string, query: VectorQuery, db: Db = this.db): Promise<VectorHit[]> {
    checkK(query.k);
    const state = await this.lifecycle.ready(space);
    query.signal?.throwIfAborted();
    if (query.vector.length !== this.options.dimensions) {
      throw new Error(
        `Query vector of ${query.vector.length} dimensions for search space ${JSON.stringify(space)} of ${this.options.dimensions}.`,
      );
    }
    const unit = unitVector(query.vector);
    if (!unit) return [];
    if (this.options.mode === 'atlas')
      return searchAtlas(
        db.collection(state.definition.collection),
        state.definition,
        unit,
        query.k,
        query.filter,
        this,
        query.signal,
      );
    const restriction = await this.restrictSpace(state, query.filter);
    query.signal?.throwIfAborted();
    // Read the store only now, and name the rows of the store that found them: a rebuild may replace it during awaits.
    const hits = (store: VectorStore, rows: ScoredRow[]) =>
      rows.map(({ row, score }) => ({ id: store.idOf(row), score }));
    // The best `keep` rows of max(n, HNSW.expansionSearch) graph candidates.
    const approximate = async (n: number, keep = n) => {
      query.signal?.throwIfAborted();
      const store = state.vectors!;
      return hits(store, await store.approximate(unit, Math.max(n, HNSW.expansionSearch), keep));
    };
    switch (restriction.kind) {
      case 'all':
        if (query.exact) return hits(state.vectors!, state.vectors!.exact(unit, query.k));
        return approximate(2 * query.k, query.k);
      case 'ids': {
        const rows = [...restriction.ids]
          .map((id) => state.vectors!.rowOf(id))
          .filter((row): row is number => row !== undefined);
        return hits(state.vectors!, state.vectors!.exact(unit, query.k, rows));
      }
      case 'passing': {
        const store = state.vectors!;
        if (query.exact) return hits(store, store.exactPassing(unit, query.k, restriction.set));
        return hits(store, await store.searchPassing(unit, query.k, restriction.set));
      }
      case 'check':
        return firstPassing(approximate, query.k, restriction.passing);
    }
  }

  /**
   * The `k` documents whose texts score highest by BM25 for `query.text`, best first, among those that pass
   * `query.filter` (before the limit, as in `searchVector`). Documents with no query term are never returned.
   * @throws Error for a space without text paths.
   */
  async searchKeyword(space: string, query: KeywordQuery): Promise<KeywordHit[]> {
    checkK(query.k);
    const paths = this.registry.space(space).textPaths ?? [];
    if (!paths.length) throw new Error(`Search space ${JSON.stringify(space)} has no text paths for keyword search.`);
    const state = await this.lifecycle.ready(space);
    const restriction = await this.restrictSpace(state, query.filter);
    query.signal?.throwIfAborted();
    // Read the index only now (a rebuild may have replaced it during the await), and again on each call of `rank`.
    const rank = (n: number, allowed?: (id: string) => boolean, passing?: Uint8Array) =>
      state
        .keywords!.top(query.text, n, { allowed, passing, check: query.check, floor: query.floor })
        .map(({ id, score, bm25, field }) => ({ id, score, bm25, field: paths[field] }));
    switch (restriction.kind) {
      case 'all':
        return rank(query.k);
      case 'ids':
        return rank(query.k, (id) => restriction.ids.has(id));
      case 'passing': {
        const { set } = restriction;
        if (set.count > KEYWORD_LISTED_MAX) return rank(query.k, undefined, set.bits);
        // Few pass: score exactly those, rather than walk the postings of every document and test each.
        const top = new TopK(query.k);
        const ids = set.ids();
        const scored = state.keywords!.scoreOf(query.text, ids);
        scored.forEach((hit, i) => {
          if (hit) top.offer(i, hit.bm25);
        });
        return top.drain().map(({ item }) => {
          const { id, score, bm25, field } = scored[item]!;
          return { id, score, bm25, field: paths[field] };
        });
      }
      case 'check':
        return firstPassing((n) => rank(n), query.k, restriction.passing);
    }
  }

  /**
   * The cosine similarity of `vector` with each listed document's vector in the space, in order (null for a document
   * without one). Hybrid search completes the vector part of candidates found by keyword with it. Memory mode reads
   * the index; atlas mode reads the documents' vectors through `db` (a request's handle, to carry its deadline).
   */
  async vectorScores(
    space: string,
    vector: Float32Array,
    ids: readonly string[],
    db: Db = this.db,
  ): Promise<Array<number | null>> {
    const state = await this.lifecycle.ready(space);
    const unit = unitVector(vector);
    if (!unit || unit.length !== this.options.dimensions) return ids.map(() => null);
    if (state.vectors) return state.vectors.scoresOf(ids, unit);
    return storedVectorScores(db.collection(state.definition.collection), state.definition, unit, ids);
  }

  /**
   * Each listed document's keyword score for `text` in the space, in order: what `searchKeyword` reports for it, or
   * null when it has no query term. Hybrid search completes the keyword part of candidates found by vector with it.
   */
  async keywordScores(space: string, text: string, ids: readonly string[]): Promise<Array<KeywordHit | null>> {
    const paths = this.registry.space(space).textPaths ?? [];
    if (!paths.length) return ids.map(() => null);
    const state = await this.lifecycle.ready(space);
    return state
      .keywords!.scoreOf(text, ids)
      .map((hit) => hit && { id: hit.id, score: hit.score, bm25: hit.bm25, field: paths[hit.field] });
  }

  /**
   * What a filter leaves of a space: in memory mode the documents that pass it, from the collection's cached filters
   * (see CollectionFilters in space-filters.ts); a filter on ids alone is answered in memory; atlas mode asks MongoDB (`restrict`).
   */
  private restrictSpace(state: SpaceState, filter: Document | null | undefined): Promise<SpaceRestriction> {
    if (isEmptyFilter(filter)) return Promise.resolve({ kind: 'all' });
    if (this.options.mode !== 'memory') return this.restrict(state.definition, filter);
    const byId = idRestriction(filter!, state.definition.idField);
    if (byId) return Promise.resolve(byId);
    return this.states
      .filtersOf(state.definition.name)
      .passing(filter!)
      .then((set) => ({ kind: 'passing', set }));
  }

  /**
   * Resolves a filter (see {@link resolveFilter}) once for all concurrent searches with the same collection, id
   * field and filter: a hybrid search over several spaces of one collection costs one query, not one per space.
   */
  restrict(definition: SpaceDefinition, filter: Document | null | undefined): Promise<Restriction> {
    if (isEmptyFilter(filter)) return Promise.resolve({ kind: 'all' });
    const key = [definition.collection, definition.idField, BSON.EJSON.stringify(filter!, { relaxed: false })].join(
      '\0',
    );
    let pending = this.resolving.get(key);
    if (!pending) {
      pending = resolveFilter(this.db.collection(definition.collection), definition.idField, filter).finally(() =>
        this.resolving.delete(key),
      );
      this.resolving.set(key, pending);
    }
    return pending;
  }
}

function checkK(k: number): void {
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`k must be a positive integer, got ${k}`);
}
