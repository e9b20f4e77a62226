import { BSON, type Db, type Document } from 'mongodb';
import type { VectorSearchMode } from '../config';
import { UnavailableError } from '../errors';
import type { Logger } from '../logger';
import {
  ATLAS_CANDIDATES_PER_RESULT,
  ATLAS_MAX_CANDIDATES,
  buildVectorSearchPipeline,
  cosineFromAtlasScore,
  ensureVectorSearchIndex,
  toVectorSearchFilter,
  vectorSearchIndexName,
} from './atlas';
import { KeywordIndex } from './bm25';
import { firstPassing, isEmptyFilter, resolveFilter, type Restriction } from './filter';
import { entryOf, readPath, sameSpace, spaceProjection, validateSpace, type SpaceDefinition } from './space';
import { HNSW, VectorStore, unitVector, type ScoredRow } from './vector-store';

/** A vector search result: the document id and its cosine similarity to the query, in [-1, 1]. */
export interface VectorHit {
  id: string;
  score: number;
}

/** A keyword search result. */
export interface KeywordHit {
  id: string;
  /** BM25 normalised to [0, 1]: min(1, bm25 / Σ idf of the query's terms) — see {@link KeywordIndex}. */
  score: number;
  /** The raw BM25 score. */
  bm25: number;
  /** The text path (one of the space's `textPaths`) that contributed most. */
  field: string;
}

export interface VectorQuery {
  /** The query vector (any length-preserving scale: it is normalised); must have the space's dimensions. */
  vector: Float32Array;
  /** Number of results wanted (integer ≥ 1). */
  k: number;
  /** A MongoDB filter on the space's collection, applied before the limit: `k` results whenever `k` documents pass. */
  filter?: Document | null;
}

export interface KeywordQuery {
  text: string;
  k: number;
  /** As for {@link VectorQuery.filter}. */
  filter?: Document | null;
}

/** The texts of a document for a space: one string for a space with one text path, else strings by path. */
export type SpaceTexts = string | Readonly<Record<string, string | null | undefined>>;

export interface SearchOptions {
  /** `memory`: in-process HNSW (usearch) + exact re-ranking; `atlas`: Atlas `$vectorSearch`. */
  mode: VectorSearchMode;
  /** Dimensions of the current embedder's vectors: stored vectors of another size are not indexed. */
  dimensions: number;
  logger: Logger;
}

/** How far a space is: `empty` until first used (or built), `building` while loading from MongoDB, then `ready`. */
export type SpaceStatus = 'empty' | 'building' | 'ready';

interface SpaceState {
  definition: SpaceDefinition;
  status: SpaceStatus;
  building: Promise<void> | null;
  /** In-process vectors (memory mode only). */
  vectors: VectorStore | null;
  /** BM25 over the text paths (both modes; null for a space without text paths). */
  keywords: KeywordIndex | null;
  /** Writes that arrived while building, replayed in order once the load is done. */
  pending: Array<() => void>;
}

/**
 * The search subsystem of the app (`deps.search`): the space definitions, shared by every database, and one
 * {@link SearchIndex} per database (`forDb(db)`), since tenants map to databases.
 */
export class SearchIndexes {
  private readonly definitions = new Map<string, SpaceDefinition>();
  private readonly indexes = new Map<string, SearchIndex>();

  constructor(readonly options: SearchOptions) {}

  /**
   * Declares spaces for every database. Defining the same space again is a no-op; redefining a name differently
   * throws.
   */
  defineSpace(...definitions: SpaceDefinition[]): void {
    for (const definition of definitions) {
      validateSpace(definition);
      const known = this.definitions.get(definition.name);
      if (known && !sameSpace(known, definition)) throw new Error(`Search space ${JSON.stringify(definition.name)} is already defined differently.`);
      this.definitions.set(definition.name, { ...definition });
    }
  }

  /** The definition of a space; throws for an unknown name. */
  space(name: string): SpaceDefinition {
    const definition = this.definitions.get(name);
    if (!definition) throw new Error(`Unknown search space ${JSON.stringify(name)}: define it with deps.search.defineSpace first.`);
    return definition;
  }

  get spaces(): SpaceDefinition[] {
    return [...this.definitions.values()];
  }

  /** The index of a database (created on first use; its spaces are built on first use or by `buildAll`). */
  forDb(db: Db): SearchIndex {
    let index = this.indexes.get(db.databaseName);
    if (!index) this.indexes.set(db.databaseName, (index = new SearchIndex(db, this)));
    return index;
  }
}

/**
 * Vector and keyword search over the spaces of one database.
 *
 * In-process (`memory` mode) each space holds its vectors (unit f32 rows + usearch HNSW graph, {@link VectorStore})
 * and a BM25 index of its texts ({@link KeywordIndex}), loaded from MongoDB by `build` and kept current by `upsert`
 * and `remove`, which repositories/services call after each successful write. A space is built at startup
 * (`buildAll`) or on its first search; writes to a space that was never built are skipped (the build reads them
 * from MongoDB), writes during a build are replayed after it.
 *
 * In `atlas` mode vectors stay in Atlas (`$vectorSearch` with the index `build` creates); keyword search still uses
 * the in-process BM25 index, built the same way from the texts only.
 *
 * Filters are MongoDB filters on the space's collection and apply before the limit: see `searchVector`.
 */
export class SearchIndex {
  private readonly states = new Map<string, SpaceState>();
  /** Filter resolutions in flight, shared by concurrent searches with the same collection and filter. */
  private readonly resolving = new Map<string, Promise<Restriction>>();

  constructor(
    readonly db: Db,
    private readonly registry: SearchIndexes,
  ) {}

  private get options(): SearchOptions {
    return this.registry.options;
  }

  /** Declares a space (for every database; see {@link SearchIndexes.defineSpace}). */
  defineSpace(definition: SpaceDefinition): void {
    this.registry.defineSpace(definition);
  }

  /** Where a space is, and how much it holds. */
  stats(space: string): { status: SpaceStatus; vectors: number; documents: number } {
    const state = this.state(space);
    return { status: state.status, vectors: state.vectors?.size ?? 0, documents: state.keywords?.size ?? 0 };
  }

  /** Builds every defined space (startup). */
  async buildAll(): Promise<void> {
    for (const definition of this.registry.spaces) await this.build(definition.name);
  }

  /**
   * (Re)loads a space from MongoDB: streams the collection with a projection of the id, the vector (memory mode)
   * and the texts. In atlas mode it first creates the space's vector search index when missing. Searches wait for
   * it; a build already running is joined. This is the one place a space is loaded: restoring a snapshot saved
   * under DATA_DIR, then catching up from MongoDB, would go here.
   */
  build(space: string): Promise<void> {
    const state = this.state(space);
    if (!state.building) {
      state.status = 'building';
      state.building = this.load(state).finally(() => {
        state.building = null;
      });
    }
    return state.building;
  }

  /**
   * Sets a document's entry in a space after a successful write: its vector (null: none) and its texts (a string
   * for a space with one text path, else by path; undefined: none; ignored by a space without text paths). A zero
   * vector counts as none.
   * @throws Error when the vector's length is not the embedder's dimensions (memory mode).
   */
  upsert(space: string, id: string, vector: Float32Array | null, text?: SpaceTexts): void {
    const state = this.state(space);
    if (vector && this.options.mode === 'memory' && vector.length !== this.options.dimensions) {
      throw new Error(`Vector of ${vector.length} dimensions for search space ${JSON.stringify(space)} of ${this.options.dimensions}.`);
    }
    const texts = textsFor(state.definition, text);
    this.write(state, () => {
      if (state.vectors) {
        if (vector) state.vectors.upsert(id, vector);
        else state.vectors.remove(id);
      }
      if (state.keywords) {
        if (texts) state.keywords.upsert(id, texts);
        else state.keywords.remove(id);
      }
    });
  }

  /** Removes a document from a space after a successful delete. */
  remove(space: string, id: string): void {
    const state = this.state(space);
    this.write(state, () => {
      state.vectors?.remove(id);
      state.keywords?.remove(id);
    });
  }

  /**
   * The `k` documents whose vectors are most similar (cosine) to `query.vector`, best first, among those that pass
   * `query.filter`. In memory mode:
   * - no filter: the HNSW graph proposes max(4k, HNSW.expansionSearch) candidates, all re-scored exactly;
   * - a filter that at most {@link EXACT_SEARCH_MAX} documents pass: an exact scan over exactly those (recall 1.0);
   * - a broader filter: growing HNSW candidate lists (4k, 16k, …) checked against the filter until k pass.
   * In atlas mode: `$vectorSearch` with the filter as its pre-filter when Atlas can take it (ANN, retried as exact
   * search when it returned fewer than k), else with the ids that pass (exact search) or growing candidate lists.
   */
  async searchVector(space: string, query: VectorQuery): Promise<VectorHit[]> {
    checkK(query.k);
    const state = await this.ready(space);
    if (query.vector.length !== this.options.dimensions) {
      throw new Error(`Query vector of ${query.vector.length} dimensions for search space ${JSON.stringify(space)} of ${this.options.dimensions}.`);
    }
    const unit = unitVector(query.vector);
    if (!unit) return [];
    if (this.options.mode === 'atlas') return this.searchAtlas(state.definition, unit, query.k, query.filter);

    const restriction = await this.restrict(state.definition, query.filter);
    // Read the store only now: a rebuild may have replaced it during the awaits.
    const hits = (rows: ScoredRow[]) => rows.map(({ row, score }) => ({ id: state.vectors!.idOf(row), score }));
    const approximate = (n: number) => hits(state.vectors!.approximate(unit, Math.max(n, HNSW.expansionSearch)).slice(0, n));
    switch (restriction.kind) {
      case 'all':
        return approximate(4 * query.k).slice(0, query.k);
      case 'ids': {
        const rows = [...restriction.ids].map((id) => state.vectors!.rowOf(id)).filter((row): row is number => row !== undefined);
        return hits(state.vectors!.exact(unit, query.k, rows));
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
    const state = await this.ready(space);
    const restriction = await this.restrict(state.definition, query.filter);
    const scored = state.keywords!.score(query.text);
    const rank = (n: number, allowed?: (id: string) => boolean) =>
      scored.top(n, allowed).map(({ id, score, bm25, field }) => ({ id, score, bm25, field: paths[field] }));
    switch (restriction.kind) {
      case 'all':
        return rank(query.k);
      case 'ids':
        return rank(query.k, (id) => restriction.ids.has(id));
      case 'check':
        return firstPassing((n) => rank(n), query.k, restriction.passing);
    }
  }

  /**
   * Resolves a filter (see {@link resolveFilter}) once for all concurrent searches with the same collection, id
   * field and filter: a hybrid search over several spaces of one collection costs one query, not one per space.
   */
  private restrict(definition: SpaceDefinition, filter: Document | null | undefined): Promise<Restriction> {
    if (isEmptyFilter(filter)) return Promise.resolve({ kind: 'all' });
    const key = [definition.collection, definition.idField, BSON.EJSON.stringify(filter!, { relaxed: false })].join('\0');
    let pending = this.resolving.get(key);
    if (!pending) {
      pending = resolveFilter(this.db.collection(definition.collection), definition.idField, filter).finally(() => this.resolving.delete(key));
      this.resolving.set(key, pending);
    }
    return pending;
  }

  private state(space: string): SpaceState {
    let state = this.states.get(space);
    if (!state) {
      const definition = this.registry.space(space);
      state = { definition, status: 'empty', building: null, vectors: null, keywords: null, pending: [] };
      this.states.set(space, state);
    }
    return state;
  }

  private async ready(space: string): Promise<SpaceState> {
    const state = this.state(space);
    if (state.status !== 'ready') {
      try {
        await this.build(space);
      } catch (error) {
        throw new UnavailableError(`The search index of ${space} could not be loaded; retry later.`, { space });
      }
    }
    return state;
  }

  /** Applies a write now, after the running build, or not at all before the first build (which reads MongoDB). */
  private write(state: SpaceState, apply: () => void): void {
    if (state.status === 'ready') apply();
    else if (state.status === 'building') state.pending.push(apply);
  }

  private async load(state: SpaceState): Promise<void> {
    const { definition } = state;
    const { mode, dimensions, logger } = this.options;
    const started = Date.now();
    try {
      if (mode === 'atlas') await ensureVectorSearchIndex(this.db, definition, dimensions);
      const vectors = mode === 'memory' ? new VectorStore(dimensions) : null;
      const keywords = definition.textPaths?.length ? new KeywordIndex(definition.textPaths) : null;
      const counts = { documents: 0, withoutId: 0, otherDimensions: 0 };
      if (vectors || keywords) {
        const cursor = this.db
          .collection(definition.collection)
          .find({}, { projection: spaceProjection(definition, vectors !== null), batchSize: 1000 });
        let batch: Array<{ id: string; vector: Float32Array }> = [];
        for await (const document of cursor) {
          counts.documents++;
          const entry = entryOf(definition, document);
          if (!entry) {
            counts.withoutId++;
            continue;
          }
          keywords?.upsert(entry.id, entry.texts);
          if (!vectors || !entry.vector) continue;
          if (entry.vector.length !== dimensions) counts.otherDimensions++;
          else if (batch.push({ id: entry.id, vector: entry.vector }) >= BUILD_BATCH) {
            vectors.addMany(batch);
            batch = [];
          }
        }
        vectors?.addMany(batch);
      }
      state.vectors = vectors;
      state.keywords = keywords;
      for (const apply of state.pending.splice(0)) apply();
      state.status = 'ready';
      const fields = { space: definition.name, db: this.db.databaseName, ...counts, vectors: vectors?.size ?? 0, ms: Date.now() - started };
      if (counts.otherDimensions) logger.warn('search space has vectors of other dimensions: re-embed them', { ...fields, dimensions });
      else logger.info('search space built', fields);
    } catch (error) {
      state.status = 'empty';
      state.pending.length = 0;
      logger.error('search space build failed', { space: definition.name, error: error instanceof Error ? error.message : String(error) });
      throw error;
    }
  }

  private async searchAtlas(definition: SpaceDefinition, vector: Float32Array, k: number, filter: Document | null | undefined): Promise<VectorHit[]> {
    const collection = this.db.collection(definition.collection);
    const run = async (limit: number, options: { filter?: Document; exact?: boolean }): Promise<VectorHit[]> => {
      const capped = Math.min(limit, ATLAS_MAX_CANDIDATES);
      const pipeline = buildVectorSearchPipeline({
        index: vectorSearchIndexName(definition),
        path: definition.vectorPath,
        queryVector: vector,
        numCandidates: Math.min(ATLAS_MAX_CANDIDATES, capped * ATLAS_CANDIDATES_PER_RESULT),
        limit: capped,
        idField: definition.idField,
        ...options,
      });
      const rows = await collection.aggregate(pipeline).toArray();
      return rows.flatMap((row) => {
        const id = readPath(row, definition.idField);
        return typeof id === 'string' ? [{ id, score: cosineFromAtlasScore(Number(row.score)) }] : [];
      });
    };
    if (isEmptyFilter(filter)) return run(k, {});
    const translated = toVectorSearchFilter(filter!, new Set([definition.idField, ...(definition.filterFields ?? [])]));
    if (translated) {
      const hits = await run(k, { filter: translated });
      return hits.length < k ? run(k, { filter: translated, exact: true }) : hits;
    }
    const restriction = await this.restrict(definition, filter);
    switch (restriction.kind) {
      case 'all':
        return run(k, {});
      case 'ids':
        return restriction.ids.size ? run(k, { filter: { [definition.idField]: { $in: [...restriction.ids] } }, exact: true }) : [];
      case 'check':
        return firstPassing((n) => run(n, {}), k, restriction.passing);
    }
  }
}

/** Vectors handed to the HNSW graph per multi-threaded insert during a build (the event loop runs between batches). */
const BUILD_BATCH = 512;

function checkK(k: number): void {
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`k must be a positive integer, got ${k}`);
}

function textsFor(definition: SpaceDefinition, text: SpaceTexts | undefined): Record<string, string> | null {
  const paths = definition.textPaths ?? [];
  if (text === undefined || !paths.length) return null;
  if (typeof text === 'string') {
    if (paths.length !== 1) throw new Error(`Search space ${JSON.stringify(definition.name)} has ${paths.length} text paths: pass its texts by path.`);
    return { [paths[0]]: text };
  }
  const texts: Record<string, string> = {};
  for (const path of paths) texts[path] = text[path] ?? '';
  return texts;
}
