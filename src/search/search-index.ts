import { BSON, type Db, type Document } from 'mongodb';
import type { VectorSearchMode } from '../config';
import { ServiceUnavailableError } from '../coded-error';
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
import { QueryVectorCache } from './query-cache';
import { changesSince, currentPosition, type ChangePosition, type Changes } from './changes';
import { findDocuments } from '../db/bson-reader';
import { hasSnapshot, loadSnapshot, saveSnapshot, savedPosition, snapshotDir, type SnapshotIdentity, type SpaceContents } from './persistence';
import { DocumentIds, Fingerprints } from './document-ids';
import { RawFingerprints, UNKNOWN_DOCUMENT, documentKey, fingerprint, fingerprintProjection } from './fingerprint';
import { entryOf, readPath, sameSpace, spaceProjection, validateSpace, type SpaceDefinition, type SpaceEntry } from './space';
import { fromStoredVector } from '../embeddings/vectors';
import { HNSW, VectorStore, rowDot, unitVector, type ScoredRow } from './vector-store';

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
  /**
   * Memory mode: scan every vector instead of walking the graph (the baseline ANN is measured against). A filter
   * that lists at most EXACT_SEARCH_MAX documents is scanned exactly anyway.
   */
  exact?: boolean;
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
  /**
   * Memory mode: where spaces are saved (`<persistDir>/<db>/<space>/`, by `save` and the auto-save) and restored
   * from at the next start. Unset: spaces are always built from MongoDB.
   */
  persistDir?: string;
  /** The embedder's identity (e.g. `hash/feature-hash-v1-384`): a snapshot saved under another one is not used. */
  model?: string;
}

/** The auto-save saves a space once this many writes were applied to it since its last save… */
export const AUTOSAVE_WRITES = 10_000;
/** …or, with fewer writes, once its oldest unsaved write is this old. */
export const AUTOSAVE_AGE_MS = 10 * 60_000;
const AUTOSAVE_CHECK_MS = 30_000;

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
  /** Memory mode: each document's fingerprint by id (see `fingerprint`), how a restored snapshot finds what changed. */
  fingerprints: Fingerprints | null;
  /** Memory mode with `persistDir`: the change stream position the space reflects every write before (null: unknown). */
  position: ChangePosition | null;
  /** The numbered ids of the spaces of a collection (and id field), shared by them, with their document keys. */
  documents: DocumentIds;
  /** Writes applied since the space was last saved or restored (a freshly built space counts as due). */
  changes: number;
  /** When the first of those writes was applied (ms since the epoch; 0: none). */
  changedSince: number;
}

/**
 * The search subsystem of the app (`deps.search`): the space definitions, shared by every database, and one
 * {@link SearchIndex} per database (`forDb(db)`), since tenants map to databases.
 */
export class SearchIndexes {
  private readonly definitions = new Map<string, SpaceDefinition>();
  private readonly indexes = new Map<string, SearchIndex>();
  /** Vectors of recent query texts (one embedder per process, so the text is the key). */
  readonly queryVectors = new QueryVectorCache();

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

  private autoSave: NodeJS.Timeout | null = null;
  private saving: Promise<void> = Promise.resolve();

  /** Saves every space with unsaved writes (memory mode with `persistDir`; otherwise nothing to do). */
  save(): Promise<void> {
    return this.serialised(() => this.saveAll(() => true));
  }

  /**
   * Saves spaces in the background: a space with {@link AUTOSAVE_WRITES} unsaved writes, or whose oldest unsaved
   * write is {@link AUTOSAVE_AGE_MS} old, or that was just built from MongoDB. `close` stops it.
   */
  startAutoSave(): void {
    if (this.autoSave || !this.persisting) return;
    this.autoSave = setInterval(() => {
      const now = Date.now();
      void this.serialised(() => this.saveAll((changes, since) => changes >= AUTOSAVE_WRITES || (changes > 0 && now - since >= AUTOSAVE_AGE_MS)));
    }, AUTOSAVE_CHECK_MS);
    this.autoSave.unref();
  }

  /** Stops the auto-save and saves what is unsaved (graceful shutdown). */
  async close(): Promise<void> {
    if (this.autoSave) clearInterval(this.autoSave);
    this.autoSave = null;
    await this.save();
  }

  private get persisting(): boolean {
    return this.options.mode === 'memory' && this.options.persistDir !== undefined;
  }

  /** One save at a time; a failed save is logged (the next one retries), never thrown at the auto-save's timer. */
  private serialised(run: () => Promise<void>): Promise<void> {
    this.saving = this.saving.then(run).catch((error: unknown) => {
      this.options.logger.error('search snapshot save failed', { error: error instanceof Error ? error.message : String(error) });
    });
    return this.saving;
  }

  private async saveAll(due: (changes: number, since: number) => boolean): Promise<void> {
    if (!this.persisting) return;
    for (const index of this.indexes.values()) await index.saveSpaces(due);
  }
}

/**
 * Vector and keyword search over the spaces of one database.
 *
 * In-process (`memory` mode) each space holds its vectors (unit f32 rows + usearch HNSW graph, {@link VectorStore})
 * and a BM25 index of its texts ({@link KeywordIndex}), loaded from MongoDB by `build` and kept current by `upsert`
 * and `remove`, which repositories/services call after each successful write. A space is built at startup
 * (`buildAll`) or on its first search; writes to a space that was never built are skipped (the build reads them
 * from MongoDB), writes during a build are replayed after it. With `persistDir`, spaces are saved there (`saveSpaces`,
 * driven by {@link SearchIndexes}) and the next start restores them and catches up with MongoDB instead of building
 * them: see `load` and `catchUp`.
 *
 * In `atlas` mode vectors stay in Atlas (`$vectorSearch` with the index `build` creates); keyword search still uses
 * the in-process BM25 index, built the same way from the texts only.
 *
 * Filters are MongoDB filters on the space's collection and apply before the limit: see `searchVector`.
 */
export class SearchIndex {
  private readonly states = new Map<string, SpaceState>();
  /** `SpaceState.documents` by collection and id field. */
  private readonly documents = new Map<string, DocumentIds>();
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

  /**
   * Saves the ready spaces for which `due(writes since the last save, when the first of them was applied)` holds and
   * that have something unsaved: the spaces of a collection together, their contents taken at one moment (their
   * graphs are then written by their workers while requests run). Called by {@link SearchIndexes.save} and its
   * auto-save.
   */
  async saveSpaces(due: (changes: number, since: number) => boolean): Promise<void> {
    const { persistDir, logger } = this.options;
    if (persistDir === undefined || this.options.mode !== 'memory') return;
    const saving = (state: SpaceState) => state.status === 'ready' && state.changes > 0 && due(state.changes, state.changedSince);
    for (const group of groupByCollection([...this.states.values()])) {
      if (!group.some(saving)) continue;
      // First the writes made behind this server's back (by anyone else), so the saved position is a fresh one.
      await this.syncWithChanges(group.filter((state) => state.status === 'ready'));
      // Every due space of the group is taken now (saveSnapshot takes the contents before it returns), at the position
      // just reached. Taken one after another's files were written, a later space held the writes that arrived
      // meanwhile but not a position after them, so the next restart read them back (644 whole documents after the
      // benchmark's writes: most of its restore time).
      const saves = group
        .filter((state) => saving(state) && state.vectors && state.fingerprints)
        .map((state) => {
          const started = Date.now();
          const dir = snapshotDir(persistDir, this.db.databaseName, state.definition.name);
          const contents = { vectors: state.vectors!, keywords: state.keywords, fingerprints: state.fingerprints!, documents: state.documents, position: state.position };
          const saved = saveSnapshot(dir, this.identity(state.definition), contents);
          // The snapshot holds the writes so far; those made while its graph is written count for the next one.
          const { changes, changedSince } = state;
          state.changes = 0;
          state.changedSince = 0;
          return saved.then(
            (bytes) => logger.info('search space saved', { space: state.definition.name, db: this.db.databaseName, dir, mb: +(bytes / 2 ** 20).toFixed(1), ms: Date.now() - started }),
            (error: unknown) => {
              state.changes += changes;
              state.changedSince = changedSince;
              throw error;
            },
          );
        });
      const failed = (await Promise.allSettled(saves)).find((result) => result.status === 'rejected');
      if (failed) throw failed.reason;
    }
  }

  /**
   * Applies to ready spaces (of one collection) the writes made since their positions, as a restore does, and moves
   * their positions on; a space whose changes cannot be had that way loses its position (its next restore compares
   * the whole collection).
   */
  private async syncWithChanges(states: SpaceState[]): Promise<void> {
    const live = states.filter((state) => state.position && state.vectors && state.fingerprints);
    if (!live.length) return;
    const contents = live.map((state) => ({
      vectors: state.vectors!,
      keywords: state.keywords,
      fingerprints: state.fingerprints!,
      documents: state.documents,
      position: state.position,
    }));
    // The server's own writes are among them (a save learns their _ids so): up to one per document, since a lost
    // position costs the next restart a pass over the collection.
    const changed = await this.changesSincePositions(
      live[0].definition.collection,
      contents.map((space) => space.position),
      1,
    );
    const applied = await this.applyChangesTo(live, contents, changed, () => this.presentIds(live[0].definition));
    live.forEach((state, i) => {
      const caughtUp = applied.get(state);
      // Moved on with the changes applied, or lost when they could not be had.
      state.position = caughtUp ? contents[i].position : null;
      const writes = caughtUp ? caughtUp.updated + caughtUp.removed : 0;
      if (writes > 0 && state.changes === 0) state.changedSince = Date.now();
      state.changes += writes;
    });
  }

  /**
   * Loads every defined space (startup); the spaces of one collection are loaded together (see `buildTogether`), and
   * collections concurrently, so one collection's reads from MongoDB overlap another's work.
   */
  async buildAll(): Promise<void> {
    const groups = groupBy(this.registry.spaces, collectionKey);
    await Promise.all([...groups.values()].map((definitions) => this.buildTogether(definitions.map(({ name }) => name))));
  }

  /**
   * (Re)loads a space: from its snapshot under `persistDir` when there is a usable one, brought up to date with
   * MongoDB (see `catchUp`), else from MongoDB (a stream of the collection with a projection of the id, the vector in
   * memory mode, and the texts). In atlas mode it first creates the space's vector search index when missing.
   * Searches wait for it; a load already running is joined.
   */
  build(space: string): Promise<void> {
    return this.buildTogether([space]);
  }

  /** Loads spaces of one collection (and id field) together: the restored ones share one pass over the collection. */
  private async buildTogether(spaces: string[]): Promise<void> {
    const states = spaces.map((space) => this.state(space));
    const idle = states.filter((state) => !state.building);
    if (idle.length) {
      const failures = new Map<SpaceState, unknown>();
      const loading = this.load(idle, failures);
      for (const state of idle) {
        state.status = 'building';
        state.building = loading
          .then(() => {
            if (failures.has(state)) throw failures.get(state);
          })
          .finally(() => {
            state.building = null;
          });
      }
    }
    await Promise.all(states.map((state) => state.building));
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
      if (state.fingerprints) {
        state.fingerprints.set(id, fingerprint(state.definition, texts, vector));
        // The written document's _id is not known here: the next catch-up reads it back.
        state.documents.setKey(id, UNKNOWN_DOCUMENT);
      }
    });
  }

  /** Removes a document from a space after a successful delete. */
  remove(space: string, id: string): void {
    const state = this.state(space);
    this.write(state, () => {
      state.vectors?.remove(id);
      state.keywords?.remove(id);
      state.fingerprints?.delete(id);
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
    // Read the store only now, and name the rows of the store that found them: a rebuild may replace it during awaits.
    const hits = (store: VectorStore, rows: ScoredRow[]) => rows.map(({ row, score }) => ({ id: store.idOf(row), score }));
    // The best `keep` rows of max(n, HNSW.expansionSearch) graph candidates.
    const approximate = async (n: number, keep = n) => {
      const store = state.vectors!;
      return hits(store, await store.approximate(unit, Math.max(n, HNSW.expansionSearch), keep));
    };
    switch (restriction.kind) {
      case 'all':
        if (query.exact) return hits(state.vectors!, state.vectors!.exact(unit, query.k));
        return approximate(4 * query.k, query.k);
      case 'ids': {
        const rows = [...restriction.ids].map((id) => state.vectors!.rowOf(id)).filter((row): row is number => row !== undefined);
        return hits(state.vectors!, state.vectors!.exact(unit, query.k, rows));
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
    // Read the index only now (a rebuild may have replaced it during the await), and again on each call of `rank`.
    const rank = (n: number, allowed?: (id: string) => boolean) =>
      state.keywords!.top(query.text, n, { allowed }).map(({ id, score, bm25, field }) => ({ id, score, bm25, field: paths[field] }));
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
   * The cosine similarity of `vector` with each listed document's vector in the space, in order (null for a document
   * without one). Hybrid search completes the vector part of candidates found by keyword with it. Memory mode reads
   * the index; atlas mode reads the documents' vectors.
   */
  async vectorScores(space: string, vector: Float32Array, ids: readonly string[]): Promise<Array<number | null>> {
    const state = await this.ready(space);
    const unit = unitVector(vector);
    if (!unit || unit.length !== this.options.dimensions) return ids.map(() => null);
    if (state.vectors) return state.vectors.scoresOf(ids, unit);
    const { definition } = state;
    const found = new Map<string, number>();
    const cursor = this.db
      .collection(definition.collection)
      .find({ [definition.idField]: { $in: [...ids] } }, { projection: { _id: 0, [definition.idField]: 1, [definition.vectorPath]: 1 } });
    for await (const document of cursor) {
      const stored = fromStoredVector(readPath(document, definition.vectorPath));
      const other = stored && stored.length === unit.length ? unitVector(stored) : null;
      if (other) found.set(String(readPath(document, definition.idField)), rowDot(other, 0, unit));
    }
    return ids.map((id) => found.get(id) ?? null);
  }

  /**
   * Each listed document's keyword score for `text` in the space, in order: what `searchKeyword` reports for it, or
   * null when it has no query term. Hybrid search completes the keyword part of candidates found by vector with it.
   */
  async keywordScores(space: string, text: string, ids: readonly string[]): Promise<Array<KeywordHit | null>> {
    const paths = this.registry.space(space).textPaths ?? [];
    if (!paths.length) return ids.map(() => null);
    const state = await this.ready(space);
    return state.keywords!.scoreOf(text, ids).map((hit) => hit && { id: hit.id, score: hit.score, bm25: hit.bm25, field: paths[hit.field] });
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
      let documents = this.documents.get(collectionKey(definition));
      if (!documents) this.documents.set(collectionKey(definition), (documents = new DocumentIds()));
      state = { definition, status: 'empty', building: null, vectors: null, keywords: null, pending: [], fingerprints: null, position: null, documents, changes: 0, changedSince: 0 };
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
        throw new ServiceUnavailableError(`The search index of ${space} could not be loaded; retry later.`, { space });
      }
    }
    return state;
  }

  /** Applies a write now, after the running build, or not at all before the first build (which reads MongoDB). */
  private write(state: SpaceState, apply: () => void): void {
    const counted = () => {
      apply();
      if (state.changes++ === 0) state.changedSince = Date.now();
    };
    if (state.status === 'ready') counted();
    else if (state.status === 'building') state.pending.push(counted);
  }

  private identity(space: SpaceDefinition): SnapshotIdentity {
    return { space, dimensions: this.options.dimensions, model: this.options.model ?? null };
  }

  /**
   * Loads `states` (spaces of one collection), recording each failure in `failures`. Snapshots are read from disk
   * (on the thread pool) while MongoDB is scanned once for all of them; spaces without a usable snapshot are built.
   */
  private async load(states: SpaceState[], failures: Map<SpaceState, unknown>): Promise<void> {
    const { mode, logger, persistDir } = this.options;
    const started = Date.now();
    const persisting = persistDir !== undefined && mode === 'memory';
    const collection = this.db.collection(states[0].definition.collection);
    // Taken before anything is read from MongoDB, so what is read reflects every write before it.
    const position = persisting ? await currentPosition(collection) : null;
    const dirOf = (state: SpaceState) => snapshotDir(persistDir!, this.db.databaseName, state.definition.name);
    const persisted = persisting ? states.filter((state) => hasSnapshot(dirOf(state))) : [];
    // Snapshots saved with a position catch up from the change stream; the others (or when that fails) compare the
    // whole collection, in a pass that runs while the snapshots are read from disk.
    const changes = this.changesSincePositions(
      collection.collectionName,
      persisted.map((state) => savedPosition(dirOf(state))),
      CHANGES_SHARE,
    );
    const comparing = changes.then(async (found) => {
      const scanning = persisted.filter((_, i) => !found[i]);
      const scanned = scanning.length ? await this.scanFingerprints(scanning.map((state) => state.definition)).catch(() => null) : null;
      return { scanning, scanned };
    });
    let listing: Promise<Map<string, number>> | undefined;
    const present = () => (listing ??= this.presentIds(states[0].definition));
    const { documents } = states[0];
    // The first documents written since the snapshots' positions are read back (whole: a restore has few, and most of
    // them changed) while the snapshots load.
    const readingBack = new Map<Changes, Promise<Document[]>>();
    void changes.then((found) => {
      for (const change of found) {
        if (!change || readingBack.has(change) || !change.written.length) continue;
        const definitions = states.map((state) => state.definition);
        const ids = [...writtenDocuments(change).values()].slice(0, CATCH_UP_BATCH).map(({ id }) => id);
        const reading = this.readDocuments(definitions[0].collection, ids, fullProjection(definitions));
        reading.catch(() => undefined);
        readingBack.set(change, reading);
      }
    });
    // The snapshots' work on this thread waits for those reads: each of their round trips would wait for it otherwise,
    // and the catch-up after the restore with them (the files are read meanwhile, off this thread).
    const readBack = changes.then(() => Promise.all(readingBack.values()));
    const [restored, changed, { scanning, scanned }] = await Promise.all([
      Promise.all(persisted.map((state) => this.restore(state.definition, documents, readBack))),
      changes,
      comparing,
    ]);
    // The pass over the collection read every document's key.
    scanned?.ids.forEach((id, i) => documents.setKey(id, scanned.documentKeys[i]));
    const applied = await this.applyChangesTo(persisted, restored, changed, present, readingBack);
    for (const state of states) {
      const { definition } = state;
      const log = { space: definition.name, db: this.db.databaseName };
      try {
        if (mode === 'atlas') await ensureVectorSearchIndex(this.db, definition, this.options.dimensions);
        const contents = restored[persisted.indexOf(state)];
        const caughtUp = applied.get(state) ?? (contents && scanned ? await this.catchUp(definition, contents, scanned, scanning.indexOf(state)) : null);
        if (contents && caughtUp) {
          const byStream = applied.has(state);
          // A position the snapshot lacked is worth saving: the next restart then follows the change stream.
          const gained = !byStream && position !== null ? 1 : 0;
          if (!byStream) contents.position = position;
          this.install(state, contents, caughtUp.updated + caughtUp.removed + gained);
          logger.info('search space restored', { ...log, ...caughtUp, caughtUpBy: byStream ? 'change stream' : 'comparing the collection', vectors: contents.vectors.size, ms: Date.now() - started });
          continue;
        }
        const { vectors, keywords, fingerprints, counts } = await this.readAll(definition, documents);
        // Built from MongoDB: due for saving, so the next start can restore it.
        this.install(state, { vectors, keywords, fingerprints, position }, AUTOSAVE_WRITES);
        const fields = { ...log, ...counts, vectors: vectors?.size ?? 0, ms: Date.now() - started };
        if (counts.otherDimensions) logger.warn('search space has vectors of other dimensions: re-embed them', { ...fields, dimensions: this.options.dimensions });
        else logger.info('search space built', fields);
      } catch (error) {
        state.status = 'empty';
        state.pending.length = 0;
        failures.set(state, error);
        logger.error('search space build failed', { ...log, error: error instanceof Error ? error.message : String(error) });
      }
    }
  }

  /** Makes loaded contents the space's, replays the writes that arrived meanwhile, and marks it ready. */
  private install(
    state: SpaceState,
    contents: { vectors: VectorStore | null; keywords: KeywordIndex | null; fingerprints: Fingerprints | null; position: ChangePosition | null },
    changes: number,
  ): void {
    state.vectors = contents.vectors;
    state.keywords = contents.keywords;
    state.fingerprints = contents.fingerprints;
    state.position = contents.position;
    state.changes = changes;
    state.changedSince = changes ? Date.now() : 0;
    for (const apply of state.pending.splice(0)) apply();
    state.status = 'ready';
  }

  /** The space's saved snapshot when there is a usable one; a bad one is logged and skipped (the space is rebuilt). */
  private async restore(definition: SpaceDefinition, documents: DocumentIds, first?: Promise<unknown>): Promise<SpaceContents | null> {
    const dir = snapshotDir(this.options.persistDir!, this.db.databaseName, definition.name);
    try {
      return await loadSnapshot(dir, this.identity(definition), documents, first);
    } catch (error) {
      this.options.logger.warn('search snapshot not used: rebuilding from MongoDB', {
        space: definition.name,
        dir,
        reason: error instanceof Error ? error.message : String(error),
      });
      return null;
    }
  }

  /** Loads a space from MongoDB: streams the collection with a projection of the id, the vector (memory mode) and the texts. */
  private async readAll(definition: SpaceDefinition, documents: DocumentIds) {
    const { mode, dimensions } = this.options;
    const collection = this.db.collection(definition.collection);
    const memory = mode === 'memory';
    // Sized for the collection up front: growing the matrix copies it and leaves up to a third of it unused.
    const vectors = memory ? new VectorStore(dimensions, Math.max(1024, Math.ceil((await collection.estimatedDocumentCount()) * 1.05)), documents) : null;
    const keywords = definition.textPaths?.length ? new KeywordIndex(definition.textPaths, documents) : null;
    const fingerprints = memory ? new Fingerprints(documents) : null;
    const counts = { documents: 0, withoutId: 0, otherDimensions: 0 };
    if (vectors || keywords) {
      const cursor = collection.find({}, { projection: { ...spaceProjection(definition, memory), _id: memory ? 1 : 0 }, batchSize: 1000 });
      let batch: Array<{ id: string; vector: Float32Array }> = [];
      // The graph's worker adds each batch while the next ones are read.
      const added: Array<Promise<void>> = [];
      for await (const document of cursor) {
        counts.documents++;
        const entry = entryOf(definition, document);
        if (!entry) {
          counts.withoutId++;
          continue;
        }
        keywords?.upsert(entry.id, entry.texts);
        if (fingerprints) {
          fingerprints.set(entry.id, fingerprint(definition, entry.texts, entry.vector));
          documents.setKey(entry.id, documentKey(document._id));
        }
        if (!vectors || !entry.vector) continue;
        if (entry.vector.length !== dimensions) counts.otherDimensions++;
        else if (batch.push({ id: entry.id, vector: entry.vector }) >= BUILD_BATCH) {
          added.push(vectors.addMany(batch));
          batch = [];
        }
      }
      if (vectors) added.push(vectors.addMany(batch));
      await Promise.all(added);
    }
    return { vectors, keywords, fingerprints, counts };
  }

  /**
   * One pass over a collection for spaces of it (same id field): each document's id and, per space, its fingerprint,
   * read with a projection of the id, the texts and the first vector components (a small fraction of the vectors'
   * bytes), as raw BSON (see {@link RawFingerprints}). Documents without a string id, and repeats of an id, are skipped.
   */
  private async scanFingerprints(definitions: SpaceDefinition[]): Promise<ScannedFingerprints> {
    const { collection } = definitions[0];
    const ids: string[] = [];
    const present = new Set<string>();
    const keys: number[] = [];
    const values: number[][] = definitions.map(() => []);
    const raw = new RawFingerprints(definitions);
    const cursor = this.db.collection(collection).find<Uint8Array>({}, { projection: fingerprintProjection(definitions), batchSize: 5000, raw: true });
    let more = cursor.hasNext();
    while (await more) {
      const batch = cursor.readBufferedDocuments();
      // The next batch is on its way (the server works on it) while this one is hashed.
      more = cursor.hasNext();
      for (const document of batch) {
        const id = raw.id(document);
        if (id === null || present.has(id)) continue;
        present.add(id);
        ids.push(id);
        keys.push(raw.documentKey(document));
        for (let s = 0; s < definitions.length; s++) values[s].push(raw.fingerprint(document, s));
      }
    }
    return { ids, present, documentKeys: Int32Array.from(keys), fingerprints: values.map((list) => Float64Array.from(list)) };
  }

  /**
   * The changes since each position (null: no position, or not to be had from the change stream, or more than `share`
   * of the collection's documents), read once per distinct position: spaces of one collection saved together share theirs.
   */
  private async changesSincePositions(collectionName: string, positions: Array<ChangePosition | null>, share: number): Promise<Array<Changes | null>> {
    if (!positions.some(Boolean)) return positions.map(() => null);
    const collection = this.db.collection(collectionName);
    const max = await this.changesWorthFollowing(collectionName, share);
    const reads = new Map<string, Promise<Changes | null>>();
    return Promise.all(
      positions.map((position) => {
        if (!position) return null;
        const key = positionKey(position);
        if (!reads.has(key)) reads.set(key, changesSince(collection, position, max));
        return reads.get(key)!;
      }),
    );
  }

  /** At most this many changes are followed: `share` of the collection's documents, and at least CHANGES_MIN. */
  private async changesWorthFollowing(collectionName: string, share: number): Promise<number> {
    const documents = await this.db.collection(collectionName).estimatedDocumentCount();
    return Math.max(CHANGES_MIN, Math.floor(documents * share));
  }

  /**
   * Applies to the contents of each space (restored, or live) the changes found since its position, spaces sharing
   * them together, and moves the contents' positions on; spaces without contents or changes are left out.
   */
  private async applyChangesTo(
    states: SpaceState[],
    contentsOf: Array<SpaceContents | null>,
    changed: Array<Changes | null>,
    present: () => Promise<Map<string, number>>,
    readingBack = new Map<Changes, Promise<Document[]>>(),
  ): Promise<Map<SpaceState, CaughtUp>> {
    const applied = new Map<SpaceState, CaughtUp>();
    const takers = states.filter((_, i) => contentsOf[i] && changed[i]);
    for (const [changes, sharing] of groupBy(takers, (state) => changed[states.indexOf(state)]!)) {
      const contents = sharing.map((state) => contentsOf[states.indexOf(state)]!);
      const results = await this.applyChanges(
        sharing.map((state) => state.definition),
        contents,
        changes,
        present,
        readingBack.get(changes),
      );
      sharing.forEach((state, i) => {
        contents[i].position = changes.position;
        applied.set(state, results[i]);
      });
    }
    return applied;
  }

  /**
   * Brings contents of spaces of one collection up to date with `changes`: the documents written are read back and
   * re-indexed where their fingerprint differs. Ids no longer in the collection (deleted, or changed by an update) are
   * found through the document keys (see `goneIds`).
   */
  private async applyChanges(
    definitions: SpaceDefinition[],
    contents: SpaceContents[],
    changes: Changes,
    present: () => Promise<Map<string, number>>,
    /** The first batch of written documents read back already, whole. */
    firstBatch?: Promise<Document[]>,
  ): Promise<CaughtUp[]> {
    const results = definitions.map(() => ({ scanned: 0, updated: 0, removed: 0 }));
    const { collection } = definitions[0];
    const written = writtenDocuments(changes);
    // The keys of documents that may have taken an id with them: deleted, deleted since written, without an id now,
    // or holding an id new to a space though not just inserted (it may have held another).
    const goneKeys = new Set(changes.deleted.map(documentKey));
    const keys = [...written.keys()];
    for (let from = 0; from < keys.length; from += CATCH_UP_BATCH) {
      const batch = keys.slice(from, from + CATCH_UP_BATCH);
      const whole = from === 0 ? firstBatch : undefined;
      const ids = batch.map((key) => written.get(key)!.id);
      // Whole documents, or what their fingerprints read (then the ones that differ are read again, whole).
      const documents = await (whole ?? this.readDocuments(collection, ids, fingerprintProjection(definitions)));
      const byId = documents.map((document) => positionKey({ id: document._id }));
      const keyOf = documents.map((document) => documentKey(document._id));
      const readBack = new Set(byId);
      batch.forEach((key, i) => {
        if (!readBack.has(key)) goneKeys.add(documentKey(ids[i]));
      });
      // By space, the documents whose fingerprint differs from the saved one (by `positionKey` of their `_id`).
      const stale = definitions.map(() => new Set<string>());
      const staleIds = new Map<string, unknown>();
      definitions.forEach((definition, s) => {
        documents.forEach((document, d) => {
          const entry = entryOf(definition, document);
          const saved = entry && contents[s].fingerprints.get(entry.id);
          if (!entry || (saved === undefined && !written.get(byId[d])?.insertedOnly)) goneKeys.add(keyOf[d]);
          if (!entry) return;
          contents[0].documents.setKey(entry.id, keyOf[d]);
          // The head of the vector gives the fingerprint of the whole one (see fingerprintProjection).
          if (saved === fingerprint(definition, entry.texts, entry.vector)) return;
          stale[s].add(byId[d]);
          staleIds.set(byId[d], document._id);
        });
        results[s].scanned += documents.length;
      });
      let full: Document[] = [];
      if (staleIds.size) full = whole ? documents : await this.readDocuments(collection, [...staleIds.values()], fullProjection(definitions));
      const fullById = full === documents ? byId : full.map((document) => positionKey({ id: document._id }));
      definitions.forEach((definition, s) => {
        const entries = full.flatMap((document, d) => (stale[s].has(fullById[d]) ? (entryOf(definition, document) ?? []) : []));
        results[s].updated += entries.length;
        // Not awaited: a search sent from now on reaches the graph's worker after these vectors (a failed add fails the
        // graph's later operations, as a single add does).
        this.reindex(definition, contents[s], entries).catch((error: unknown) => this.graphAddFailed(definition, error));
      });
    }
    if (goneKeys.size) {
      const gone = await this.goneIds(definitions[0], contents, goneKeys, present);
      contents.forEach((space, s) => {
        for (const id of gone) {
          if (!space.fingerprints.has(id)) continue;
          dropEntry(space, id);
          results[s].removed++;
        }
      });
    }
    return results;
  }

  private graphAddFailed(definition: SpaceDefinition, error: unknown): void {
    this.options.logger.error('search space graph add failed', {
      space: definition.name,
      db: this.db.databaseName,
      error: error instanceof Error ? error.message : String(error),
    });
  }

  /** Documents of a collection by `_id` as they are now (deleted ones missing), with `projection`. */
  private readDocuments(collection: string, ids: unknown[], projection: Document): Promise<Document[]> {
    return findDocuments<Document>(this.db, collection, { _id: { $in: ids } }, { projection });
  }

  /**
   * The ids of `contents` (spaces of one collection) that are no longer in it, among those whose document key is in
   * `keys` or unknown: these candidates are looked up by id. When they are more than a tenth of the collection (a
   * snapshot saved without keys), the collection's ids are listed instead (`present`).
   */
  private async goneIds(definition: SpaceDefinition, contents: SpaceContents[], keys: ReadonlySet<number>, present: () => Promise<Map<string, number>>): Promise<string[]> {
    const candidates = contents[0].documents.candidates(keys);
    if (candidates.length > contents[0].fingerprints.size * CHANGES_SHARE) {
      const ids = await present();
      // The keys read on the way make the next catch-ups look up candidates again (ids no space holds are freed later).
      for (const [id, key] of ids) contents[0].documents.setKey(id, key);
      return [...new Set(contents.flatMap((space) => space.fingerprints.ids().filter((id) => !ids.has(id))))];
    }
    const found = new Set<unknown>();
    for (let from = 0; from < candidates.length; from += CATCH_UP_BATCH) {
      const batch = candidates.slice(from, from + CATCH_UP_BATCH);
      const documents = await findDocuments<Document>(this.db, definition.collection, { [definition.idField]: { $in: batch } }, { projection: { _id: 0, [definition.idField]: 1 } });
      for (const document of documents) found.add(readPath(document, definition.idField));
    }
    return candidates.filter((id) => !found.has(id));
  }

  /**
   * The ids (string `idField` values) in a space's collection with their documents' keys: one pass over the collection
   * reading only `_id` and the id, as raw BSON.
   */
  private async presentIds(definition: SpaceDefinition): Promise<Map<string, number>> {
    const present = new Map<string, number>();
    const raw = new RawFingerprints([definition]);
    const projection = { _id: 1, [definition.idField]: 1 };
    const cursor = this.db.collection(definition.collection).find<Uint8Array>({}, { projection, batchSize: 10_000, raw: true });
    while (await cursor.hasNext()) {
      for (const document of cursor.readBufferedDocuments()) {
        const id = raw.id(document);
        if (id !== null) present.set(id, raw.documentKey(document));
      }
    }
    return present;
  }

  /**
   * Sets the entries of documents read back from MongoDB in a space's contents (vectors, texts, fingerprints); resolves
   * once their vectors are in the graph.
   */
  private reindex(definition: SpaceDefinition, contents: SpaceContents, entries: SpaceEntry[]): Promise<void> {
    const fresh: Array<{ id: string; vector: Float32Array }> = [];
    for (const entry of entries) {
      contents.keywords?.upsert(entry.id, entry.texts);
      contents.fingerprints.set(entry.id, fingerprint(definition, entry.texts, entry.vector));
      if (entry.vector && entry.vector.length === this.options.dimensions) fresh.push({ id: entry.id, vector: entry.vector });
      else contents.vectors.remove(entry.id);
    }
    return contents.vectors.addMany(fresh);
  }

  /**
   * Brings restored contents up to date with MongoDB when the change stream cannot: documents whose fingerprint
   * (from `scanFingerprints`, column `column`) differs from the snapshot's, or that are new, are read in full and
   * re-indexed; ids the snapshot has but MongoDB no longer does are removed. It needs no change stream and no
   * timestamp field, so it works on any deployment.
   */
  private async catchUp(definition: SpaceDefinition, contents: SpaceContents, scanned: ScannedFingerprints, column: number): Promise<CaughtUp> {
    const { fingerprints } = contents;
    const stale: string[] = [];
    const current = scanned.fingerprints[column];
    let seen = 0;
    scanned.ids.forEach((id, i) => {
      const saved = fingerprints.get(id);
      if (saved !== undefined) seen++;
      if (saved !== current[i]) stale.push(id);
    });
    let removed = 0;
    // The scanned ids are distinct: when all the saved ones were among them, none was deleted.
    if (seen < fingerprints.size) {
      for (const id of fingerprints.ids()) {
        if (!scanned.present.has(id)) {
          dropEntry(contents, id);
          removed++;
        }
      }
    }
    const collection = this.db.collection(definition.collection);
    for (let from = 0; from < stale.length; from += CATCH_UP_BATCH) {
      const ids = stale.slice(from, from + CATCH_UP_BATCH);
      const found = new Map<string, SpaceEntry>();
      const cursor = collection.find({ [definition.idField]: { $in: ids } }, { projection: spaceProjection(definition, true) });
      for await (const document of cursor) {
        const entry = entryOf(definition, document);
        if (entry) found.set(entry.id, entry);
      }
      // Not found: deleted since the pass over the collection.
      for (const id of ids) if (!found.has(id)) dropEntry(contents, id);
      await this.reindex(definition, contents, [...found.values()]);
    }
    return { scanned: scanned.ids.length, updated: stale.length, removed };
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

/** What `scanFingerprints` read: the ids in MongoDB and, per space, their current fingerprints (aligned with `ids`). */
interface ScannedFingerprints {
  ids: string[];
  present: ReadonlySet<string>;
  /** The documents' keys (see `documentKey`), aligned with `ids`. */
  documentKeys: Int32Array;
  fingerprints: Float64Array[];
}

/** What a catch-up did to a space: documents read back or compared, entries re-indexed, entries removed. */
interface CaughtUp {
  scanned: number;
  updated: number;
  removed: number;
}

/**
 * A restore follows the change stream for up to this share of the collection's documents (at least CHANGES_MIN): past
 * it, one pass comparing the whole collection, while the snapshots load, costs less than reading each change back.
 */
const CHANGES_SHARE = 0.1;
const CHANGES_MIN = 1000;

/** Removes a document's entry from a space's contents. */
function dropEntry(contents: SpaceContents, id: string): void {
  contents.vectors.remove(id);
  contents.keywords?.remove(id);
  contents.fingerprints.delete(id);
}

/** What spaces of one collection read from a document, vectors whole, and its `_id`. */
function fullProjection(definitions: readonly SpaceDefinition[]): Document {
  return Object.assign({}, ...definitions.map((definition) => spaceProjection(definition, true)), { _id: 1 });
}

/** The documents written after a position, by key (see `positionKey`), each with its `_id` and whether every write to it was its insert (then an id new to a snapshot is expected). */
type WrittenDocuments = Map<string, { id: unknown; insertedOnly: boolean }>;

function writtenDocuments(changes: Changes): WrittenDocuments {
  const written: WrittenDocuments = new Map();
  for (const { id, inserted } of changes.written) {
    const key = positionKey({ id });
    const seen = written.get(key);
    written.set(key, { id, insertedOnly: inserted && (seen?.insertedOnly ?? true) });
  }
  return written;
}

/** The spaces of one collection and id field share this key (they load, save and catch up together). */
function collectionKey({ collection, idField }: SpaceDefinition): string {
  return `${collection}\0${idField}`;
}

/** A key equal for equal positions (resume tokens) or ids: their canonical extended JSON. */
function positionKey(value: Document): string {
  return BSON.EJSON.stringify(value, { relaxed: false });
}

/** Items grouped by key, in first-seen order. */
function groupBy<T, K>(items: readonly T[], keyOf: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    groups.set(key, [...(groups.get(key) ?? []), item]);
  }
  return groups;
}

/** Spaces grouped by collection and id field (spaces loaded, compared and synced together). */
function groupByCollection(states: readonly SpaceState[]): SpaceState[][] {
  return [...groupBy(states, ({ definition }) => collectionKey(definition)).values()];
}

/** Vectors handed to the HNSW graph per multi-threaded insert during a build (the event loop runs between batches). */
const BUILD_BATCH = 512;
/** Changed documents read back per query by a catch-up. */
const CATCH_UP_BATCH = 1000;

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
