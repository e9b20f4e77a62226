import type { Db, Document } from 'mongodb';
import { requestLifetimeOf, type RequestLifetime } from '../db/request-bound';
import { observeSearch } from '../observability/metrics';
import { CatchUp } from './catch-up';
import { QueryVectorCache } from './query-cache';
import { sameSpace, validateSpace, type SpaceDefinition } from './space';
import { SaveSchedule, SpaceLifecycle } from './space-lifecycle';
import type { FollowStatus } from './space-follower';
import { SpaceQuery } from './space-query';
import { SpaceStates, type SpaceStatus } from './space-state';
import type {
  KeywordHit,
  KeywordQuery,
  SearchOptions,
  SpaceRegistry,
  SpaceTexts,
  VectorHit,
  VectorQuery,
} from './types';

export type { KeywordHit, KeywordQuery, SearchOptions, SpaceTexts, VectorHit, VectorQuery } from './types';
export type { SpaceStatus } from './space-state';
export type { FollowMode, FollowStatus } from './space-follower';
export { AUTOSAVE_AGE_MS, AUTOSAVE_WRITES } from './space-lifecycle';

/**
 * The search subsystem of the app (`deps.search`): the space definitions, shared by every database, and one
 * {@link SearchIndex} per database (`forDb(db)`), since tenants map to databases.
 */
export class SearchIndexes implements SpaceRegistry {
  private readonly definitions = new Map<string, SpaceDefinition>();
  private readonly indexes = new Map<string, SearchIndex>();
  /** Vectors of recent query texts (one embedder per process, so the text is the key). */
  readonly queryVectors = new QueryVectorCache();

  private readonly saves: SaveSchedule;

  constructor(readonly options: SearchOptions) {
    this.saves = new SaveSchedule(options, () => this.indexes.values());
  }

  /**
   * Declares spaces for every database. Defining the same space again is a no-op; redefining a name differently
   * throws.
   */
  defineSpace(...definitions: SpaceDefinition[]): void {
    for (const definition of definitions) {
      validateSpace(definition);
      const known = this.definitions.get(definition.name);
      if (known && !sameSpace(known, definition))
        throw new Error(`Search space ${JSON.stringify(definition.name)} is already defined differently.`);
      this.definitions.set(definition.name, { ...definition });
    }
  }

  /** The definition of a space; throws for an unknown name. */
  space(name: string): SpaceDefinition {
    const definition = this.definitions.get(name);
    if (!definition)
      throw new Error(`Unknown search space ${JSON.stringify(name)}: define it with deps.search.defineSpace first.`);
    return definition;
  }

  get spaces(): SpaceDefinition[] {
    return [...this.definitions.values()];
  }

  /** The index of a database (created on first use; its spaces are built on first use or by `buildAll`). */
  forDb(db: Db): SearchIndex {
    let index = this.indexes.get(db.databaseName);
    if (!index) this.indexes.set(db.databaseName, (index = new SearchIndex(db, this)));
    // A request's handle (src/db/request-bound.ts): its searches stop when the request ends.
    const lifetime = requestLifetimeOf(db);
    return lifetime ? index.during(lifetime, db) : index;
  }

  /**
   * Saves every space with unsaved writes (memory mode with `persistDir`; otherwise nothing to do). A snapshot holds no
   * text nor vector of a document removed before the call, and replaces the files of the previous one.
   */
  save(): Promise<void> {
    return this.saves.save();
  }

  /** As `save`, but rejects when a space could not be saved (forget must not report its files rewritten then). */
  saveOrFail(): Promise<void> {
    return this.saves.saveOrFail();
  }

  /**
   * Saves spaces in the background: a space with {@link AUTOSAVE_WRITES} unsaved writes, or whose oldest unsaved
   * write is {@link AUTOSAVE_AGE_MS} old, or that was just built from MongoDB. `close` stops it.
   */
  startAutoSave(): void {
    this.saves.startAutoSave();
  }

  /** Stops following writes and the auto-save, and saves what is unsaved (graceful shutdown). */
  async close(): Promise<void> {
    await Promise.all([...this.indexes.values()].map((index) => index.stopFollowing()));
    await this.saves.close();
  }
}

/**
 * Vector and keyword search over the spaces of one database.
 *
 * In-process (`memory` mode) each space holds its vectors (unit f32 rows + usearch HNSW graph, `VectorStore`) and a
 * BM25 index of its texts (`KeywordIndex`), loaded from MongoDB by `build` and kept current by `upsert` and `remove`,
 * which repositories/services call after each successful write. A space is built at startup (`buildAll`) or on its
 * first search; writes to a space that was never built are skipped (the build reads them from MongoDB), writes during
 * a build are replayed after it. With `persistDir`, spaces are saved there (`saveSpaces`, driven by
 * {@link SearchIndexes}) and the next start restores them and catches up with MongoDB instead of building them.
 *
 * In `atlas` mode vectors stay in Atlas (`$vectorSearch` with the index `build` creates); keyword search still uses
 * the in-process BM25 index, built the same way from the texts only and following the change stream likewise.
 *
 * Filters are MongoDB filters on the space's collection and apply before the limit: see `searchVector`.
 *
 * A façade over the parts, each of which holds the details: the spaces' state and writes ({@link SpaceStates}), the
 * search path ({@link SpaceQuery}; Atlas in atlas.ts), and building, restoring, catching up and saving
 * ({@link SpaceLifecycle}, {@link CatchUp}).
 */
export class SearchIndex {
  private readonly states: SpaceStates;
  private readonly lifecycle: SpaceLifecycle;
  private readonly query: SpaceQuery;
  /** Set on the views `during` makes: searches stop at its checkpoints (as they start and after each wait). */
  private readonly lifetime?: RequestLifetime;
  /** The request's database handle, on the views `during` makes: atlas mode's reads go through it. */
  private readonly requestDb?: Db;

  constructor(
    readonly db: Db,
    private readonly registry: SearchIndexes,
  ) {
    this.states = new SpaceStates(registry, db);
    this.lifecycle = new SpaceLifecycle(db, registry, this.states, new CatchUp(db, registry.options));
    this.query = new SpaceQuery(db, registry, this.lifecycle, this.states);
  }

  /**
   * This index, whose searches stop once the request of `lifetime` has ended (a view: the state is shared); `db`, the
   * request's handle on the same database, carries the request's deadline to the commands of atlas mode's searches.
   */
  during(lifetime: RequestLifetime, db: Db): SearchIndex {
    return Object.assign(Object.create(this) as SearchIndex, { lifetime, requestDb: db });
  }

  /** The request's checkpoint, before a search of a view made by `during`. */
  private async checkpoint(): Promise<void> {
    await this.lifetime?.checkpoint();
  }

  /** Declares a space (for every database; see {@link SearchIndexes.defineSpace}). */
  defineSpace(definition: SpaceDefinition): void {
    this.registry.defineSpace(definition);
  }

  /** Where a space is, and how much it holds. */
  stats(space: string): { status: SpaceStatus; vectors: number; documents: number } {
    const state = this.states.get(space);
    return { status: state.status, vectors: state.vectors?.size ?? 0, documents: state.keywords?.size ?? 0 };
  }

  /** How a space follows writes made by other processes, and how far behind it is (space-follower.ts). */
  followStatus(space: string): FollowStatus {
    return this.lifecycle.followStatus(space);
  }

  /** Stops following writes (shutdown); resolves once the following's work and feeds are over. */
  stopFollowing(): Promise<void> {
    return this.lifecycle.stopFollowing();
  }

  /** Loads every defined space (startup): see {@link SpaceLifecycle.buildAll}. */
  buildAll(): Promise<void> {
    return this.lifecycle.buildAll();
  }

  /** (Re)loads a space, from its snapshot or from MongoDB: see {@link SpaceLifecycle.build}. */
  build(space: string): Promise<void> {
    return this.lifecycle.build(space);
  }

  /** Saves the ready spaces that are `due`: see {@link SpaceLifecycle.saveSpaces}. */
  saveSpaces(due: (changes: number, since: number) => boolean): Promise<void> {
    return this.lifecycle.saveSpaces(due);
  }

  /** Sets a document's entry in a space after a successful write: see {@link SpaceStates.upsert}. */
  upsert(space: string, id: string, vector: Float32Array | null, text?: SpaceTexts): void {
    this.states.upsert(space, id, vector, text);
  }

  /**
   * Marks a document of the space's collection written without a change to its vector or text (its tags, outcome,
   * status): cached filters ask about it again at the next search, so a search right after the write sees it.
   */
  markWritten(space: string, id: string): void {
    this.states.markWritten(this.registry.space(space), id);
  }

  /**
   * What `compact` makes of the `fields` of the listed documents of the space's collection, by id, from a cache (one per
   * `reader`) that every write the spaces learn of keeps current as it keeps cached filters (see StoredValues); the
   * misses in one read.
   */
  storedValues<T>(
    space: string,
    ids: readonly string[],
    reader: { name: string; fields: readonly string[]; compact: (document: Document) => T },
  ): Promise<Map<string, T>> {
    return this.states.filtersOf(space).valuesOf(reader.name, reader.fields, reader.compact).read(ids, this.requestDb);
  }

  /** Removes a document from a space after a successful delete. */
  remove(space: string, id: string): void {
    this.states.remove(space, id);
  }

  /** The `k` documents most similar to `query.vector` that pass `query.filter`: see {@link SpaceQuery.searchVector}. */
  async searchVector(space: string, query: VectorQuery): Promise<VectorHit[]> {
    const started = performance.now();
    try {
      if (!this.lifetime) return await this.query.searchVector(space, query);
      await this.checkpoint();
      return await this.query.searchVector(space, { ...query, signal: this.lifetime.signal }, this.requestDb);
    } finally {
      observeSearch(space, this.registry.options.mode, (performance.now() - started) / 1000);
    }
  }

  /** The `k` documents scoring highest by BM25 for `query.text`: see {@link SpaceQuery.searchKeyword}. */
  async searchKeyword(space: string, query: KeywordQuery): Promise<KeywordHit[]> {
    const started = performance.now();
    try {
      if (!this.lifetime) return await this.query.searchKeyword(space, query);
      await this.checkpoint();
      const { lifetime } = this;
      return await this.query.searchKeyword(space, {
        ...query,
        signal: lifetime.signal,
        check: () => lifetime.check(),
      });
    } finally {
      observeSearch(space, 'keyword', (performance.now() - started) / 1000);
    }
  }

  /** Each listed document's cosine similarity with `vector`, in order: see {@link SpaceQuery.vectorScores}. */
  async vectorScores(space: string, vector: Float32Array, ids: readonly string[]): Promise<Array<number | null>> {
    await this.checkpoint();
    return this.query.vectorScores(space, vector, ids, this.requestDb);
  }

  /** Each listed document's keyword score for `text`, in order: see {@link SpaceQuery.keywordScores}. */
  async keywordScores(space: string, text: string, ids: readonly string[]): Promise<Array<KeywordHit | null>> {
    await this.checkpoint();
    return this.query.keywordScores(space, text, ids);
  }
}
