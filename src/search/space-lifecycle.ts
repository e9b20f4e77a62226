import type { Db, Document } from 'mongodb';
import { ServiceUnavailableError } from '../coded-error';
import type { ChangeEvent } from '../db/change-follower';
import { ensureVectorSearchIndex } from './atlas';
import { KeywordIndex } from './bm25';
import { CATCH_UP_BATCH, CHANGES_SHARE, fullProjection, writtenDocuments, type CatchUp } from './catch-up';
import { currentPosition, type ChangePosition, type Changes } from './changes';
import { Fingerprints, type DocumentIds } from './document-ids';
import { documentKey, fingerprint } from './fingerprint';
import {
  hasSnapshot,
  loadSnapshot,
  saveSnapshot,
  savedPosition,
  snapshotDir,
  type SnapshotContents,
  type SnapshotIdentity,
  type SpaceContents,
} from './persistence';
import { entryOf, spaceProjection, type SpaceDefinition } from './space';
import { SpaceFollower, type FollowStatus, type FollowTarget } from './space-follower';
import { collectionKey, groupBy, groupByCollection, type SpaceState, type SpaceStates } from './space-state';
import type { SearchOptions, SpaceRegistry } from './types';
import { VectorStore } from './vector-store';

/** The auto-save saves a space once this many writes were applied to it since its last save… */
export const AUTOSAVE_WRITES = 10_000;
/** …or, with fewer writes, once its oldest unsaved write is this old. */
export const AUTOSAVE_AGE_MS = 10 * 60_000;
const AUTOSAVE_CHECK_MS = 30_000;

/**
 * How the spaces of one database come to be and stay saved: built at startup (`buildAll`) or on first use (`ready`),
 * each from its snapshot under `persistDir` when there is a usable one, brought up to date with MongoDB (see
 * {@link CatchUp}), else from MongoDB; saved by `saveSpaces` (driven by {@link SaveSchedule}). In atlas mode a build
 * first creates the space's vector search index when missing.
 */
export class SpaceLifecycle implements FollowTarget {
  private readonly follower: SpaceFollower;
  /** Per collection group, the catch-up running on its live spaces: the follower's and a save's take turns. */
  private readonly turns = new Map<string, Promise<unknown>>();

  constructor(
    private readonly db: Db,
    private readonly registry: SpaceRegistry,
    private readonly states: SpaceStates,
    private readonly catchUp: CatchUp,
  ) {
    this.follower = new SpaceFollower(db, registry.options, this);
  }

  /** How a space follows other processes' writes, and how far behind it is (see {@link SpaceFollower}). */
  followStatus(space: string): FollowStatus {
    return this.follower.status(this.states.get(space).definition);
  }

  /** Stops following writes (shutdown). */
  stopFollowing(): Promise<void> {
    return this.follower.close();
  }

  /** The ready spaces of a collection group, with what they hold. */
  private live(groupKey: string): SpaceState[] {
    return this.states
      .all()
      .filter(
        (state) => state.status === 'ready' && state.fingerprints && collectionKey(state.definition) === groupKey,
      );
  }

  /** Runs `work` on a collection group's live spaces once no other catch-up of them runs. */
  private inTurn<T>(groupKey: string, work: () => Promise<T>): Promise<T> {
    const turn = (this.turns.get(groupKey) ?? Promise.resolve()).then(work, work);
    this.turns.set(
      groupKey,
      turn.catch(() => undefined),
    );
    return turn;
  }

  async applyEvents(groupKey: string, events: ChangeEvent[]): Promise<void> {
    const changes: Changes = { written: [], deleted: [], position: events[events.length - 1].position ?? null };
    for (const event of events) {
      if (event.operationType === 'delete') changes.deleted.push(event.id);
      else changes.written.push({ id: event.id, inserted: event.operationType === 'insert' });
    }
    const definition = this.states.all().find((state) => collectionKey(state.definition) === groupKey)?.definition;
    if (definition) this.markChanges(definition, [changes]);
    await this.inTurn(groupKey, async () => {
      const live = this.live(groupKey);
      if (live.length)
        await this.applyToLive(
          live,
          live.map(() => changes),
        );
    });
  }

  catchUpFromPositions(groupKey: string): Promise<boolean> {
    return this.inTurn(groupKey, () => this.syncWithChanges(this.live(groupKey)));
  }

  compareWhole(groupKey: string, withPosition: boolean): Promise<void> {
    return this.inTurn(groupKey, async () => {
      const live = this.live(groupKey);
      if (!live.length) return;
      const collection = this.db.collection(live[0].definition.collection);
      const position = withPosition ? await currentPosition(collection) : null;
      // This process's writes during the comparison are applied again after it: it may have read older documents.
      for (const state of live) state.held = [];
      try {
        const scanned = await this.catchUp.scanFingerprints(live.map((state) => state.definition));
        scanned.ids.forEach((id, i) => live[0].documents.setKey(id, scanned.documentKeys[i]));
        for (const [i, state] of live.entries()) {
          const caughtUp = await this.catchUp.compareFingerprints(state.definition, contentsOf(state), scanned, i);
          state.position = position;
          countWrites(state, caughtUp.updated + caughtUp.removed);
        }
      } finally {
        for (const state of live) for (const apply of state.held?.splice(0) ?? []) apply();
        for (const state of live) state.held = null;
        // What changed was found without events: the cached search filters cannot know which documents.
        this.states.forgetFilters(live[0].definition);
      }
    });
  }

  private get options(): SearchOptions {
    return this.registry.options;
  }

  /**
   * Loads every defined space (startup); the spaces of one collection are loaded together (see `buildTogether`), and
   * collections concurrently, so one collection's reads from MongoDB overlap another's work.
   */
  async buildAll(): Promise<void> {
    const groups = groupBy(this.registry.spaces, collectionKey);
    await Promise.all(
      [...groups.values()].map((definitions) => this.buildTogether(definitions.map(({ name }) => name))),
    );
  }

  /**
   * (Re)loads a space: from its snapshot under `persistDir` when there is a usable one, brought up to date with
   * MongoDB (see `CatchUp`), else from MongoDB (a stream of the collection with a projection of the id, the vector in
   * memory mode, and the texts). In atlas mode it first creates the space's vector search index when missing.
   * Searches wait for it; a load already running is joined.
   */
  build(space: string): Promise<void> {
    return this.buildTogether([space]);
  }

  /** Loads spaces of one collection (and id field) together: the restored ones share one pass over the collection. */
  private async buildTogether(spaces: string[]): Promise<void> {
    const states = spaces.map((space) => this.states.get(space));
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
            // Loaded or caught up from MongoDB: the cached search filters may not have seen those writes.
            this.states.forgetFilters(state.definition);
          });
      }
    }
    await Promise.all(states.map((state) => state.building));
  }

  /** The state of a space once it is ready, built first when it is not (a failed build is SERVICE_UNAVAILABLE). */
  async ready(space: string): Promise<SpaceState> {
    const state = this.states.get(space);
    if (state.status !== 'ready') {
      try {
        await this.build(space);
      } catch (error) {
        throw new ServiceUnavailableError(`The search index of ${space} could not be loaded; retry later.`, { space });
      }
    }
    return state;
  }

  /**
   * Saves the ready spaces for which `due(writes since the last save, when the first of them was applied)` holds and
   * that have something unsaved: the spaces of a collection together, their contents taken at one moment (their
   * graphs are then written by their workers while requests run). Called by {@link SaveSchedule}.
   */
  async saveSpaces(due: (changes: number, since: number) => boolean): Promise<void> {
    const { persistDir, logger } = this.options;
    if (persistDir === undefined || this.options.mode !== 'memory') return;
    const saving = (state: SpaceState) =>
      state.status === 'ready' && state.changes > 0 && due(state.changes, state.changedSince);
    for (const group of groupByCollection(this.states.all())) {
      if (!group.some(saving)) continue;
      // First the writes made behind this server's back (by anyone else), so the saved position is a fresh one.
      await this.inTurn(collectionKey(group[0].definition), () =>
        this.syncWithChanges(group.filter((state) => state.status === 'ready')),
      );
      // Every due space of the group is taken now (saveSnapshot takes the contents before it returns), at the position
      // just reached. Taken one after another's files were written, a later space held the writes that arrived
      // meanwhile but not a position after them, so the next restart read them back (644 whole documents after the
      // benchmark's writes: most of its restore time).
      const saves = group
        .filter((state) => saving(state) && state.vectors && state.fingerprints)
        .map((state) => {
          const started = Date.now();
          const dir = snapshotDir(persistDir, this.db.databaseName, state.definition.name);
          const contents = {
            vectors: state.vectors!,
            keywords: state.keywords,
            fingerprints: state.fingerprints!,
            documents: state.documents,
            position: state.position,
          };
          const saved = saveSnapshot(dir, this.identity(state.definition), contents);
          // The snapshot holds the writes so far; those made while its graph is written count for the next one.
          const { changes, changedSince } = state;
          state.changes = 0;
          state.changedSince = 0;
          return saved.then(
            (bytes) =>
              logger.info('search space saved', {
                space: state.definition.name,
                db: this.db.databaseName,
                dir,
                mb: +(bytes / 2 ** 20).toFixed(1),
                ms: Date.now() - started,
              }),
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
   * the whole collection). False when some could not be had.
   */
  private async syncWithChanges(states: SpaceState[]): Promise<boolean> {
    const live = states.filter((state) => state.position && state.fingerprints);
    if (!live.length) return states.every((state) => !state.fingerprints);
    // The server's own writes are among them (a save learns their _ids so): up to one per document, since a lost
    // position costs the next restart a pass over the collection.
    const changed = await this.catchUp.changesSincePositions(
      live[0].definition.collection,
      live.map((state) => state.position),
      1,
    );
    this.markChanges(live[0].definition, changed);
    await this.applyToLive(live, changed);
    return live.length === states.length && live.every((state) => state.position);
  }

  /**
   * The cached search filters of the collection ask about the documents changed again before their next use (any field
   * may have changed, indexed by a space or not); changes that could not be had make them resolve again.
   */
  private markChanges(definition: SpaceDefinition, changed: Array<Changes | null>): void {
    for (const changes of new Set(changed)) {
      if (!changes) this.states.forgetFilters(definition);
      else {
        this.states.markEvents(definition, changes.deleted);
        this.states.markEvents(
          definition,
          changes.written.map(({ id }) => id),
        );
      }
    }
  }

  /** Applies changes to ready spaces (of one collection) and moves their positions on (lost where none were had). */
  private async applyToLive(live: SpaceState[], changed: Array<Changes | null>): Promise<void> {
    const contents = live.map(contentsOf);
    const applied = await this.catchUp.applyChangesTo(live, contents, changed, () =>
      this.catchUp.presentIds(live[0].definition),
    );
    live.forEach((state, i) => {
      const caughtUp = applied.get(state);
      // Moved on with the changes applied, or lost when they could not be had.
      state.position = caughtUp ? contents[i].position : null;
      countWrites(state, caughtUp ? caughtUp.updated + caughtUp.removed : 0);
    });
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
    // Taken before anything is read from MongoDB, so what is read reflects every write before it (and following
    // the change stream starts from it).
    const streamed = this.options.changes;
    const following = streamed !== undefined;
    // Without change streams there is no position (and no stream to open for one).
    const streams = !streamed || (await streamed.source()) === 'CHANGE_STREAM';
    const position = (persisting || following) && streams ? await currentPosition(collection) : null;
    const dirOf = (state: SpaceState) => snapshotDir(persistDir!, this.db.databaseName, state.definition.name);
    const persisted = persisting ? states.filter((state) => hasSnapshot(dirOf(state))) : [];
    // Snapshots saved with a position catch up from the change stream; the others (or when that fails) compare the
    // whole collection, in a pass that runs while the snapshots are read from disk.
    const changes = this.catchUp.changesSincePositions(
      collection.collectionName,
      persisted.map((state) => savedPosition(dirOf(state))),
      CHANGES_SHARE,
    );
    const comparing = changes.then(async (found) => {
      const scanning = persisted.filter((_, i) => !found[i]);
      const scanned = scanning.length
        ? await this.catchUp.scanFingerprints(scanning.map((state) => state.definition)).catch(() => null)
        : null;
      return { scanning, scanned };
    });
    let listing: Promise<Map<string, number>> | undefined;
    const present = () => (listing ??= this.catchUp.presentIds(states[0].definition));
    const { documents } = states[0];
    // The first documents written since the snapshots' positions are read back (whole: a restore has few, and most of
    // them changed) while the snapshots load.
    const readingBack = new Map<Changes, Promise<Document[]>>();
    void changes.then((found) => {
      for (const change of found) {
        if (!change || readingBack.has(change) || !change.written.length) continue;
        const definitions = states.map((state) => state.definition);
        const ids = [...writtenDocuments(change).values()].slice(0, CATCH_UP_BATCH).map(({ id }) => id);
        const reading = this.catchUp.readDocuments(definitions[0].collection, ids, fullProjection(definitions, true));
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
    const applied = await this.catchUp.applyChangesTo(persisted, restored, changed, present, readingBack);
    for (const state of states) {
      const { definition } = state;
      const log = { space: definition.name, db: this.db.databaseName };
      try {
        if (mode === 'atlas') await ensureVectorSearchIndex(this.db, definition, this.options.dimensions);
        const contents = restored[persisted.indexOf(state)];
        const caughtUp =
          applied.get(state) ??
          (contents && scanned
            ? await this.catchUp.compareFingerprints(definition, contents, scanned, scanning.indexOf(state))
            : null);
        if (contents && caughtUp) {
          const byStream = applied.has(state);
          // A position the snapshot lacked is worth saving: the next restart then follows the change stream.
          const gained = !byStream && position !== null ? 1 : 0;
          if (!byStream) contents.position = position;
          this.install(state, contents, caughtUp.updated + caughtUp.removed + gained);
          logger.info('search space restored', {
            ...log,
            ...caughtUp,
            caughtUpBy: byStream ? 'change stream' : 'comparing the collection',
            vectors: contents.vectors.size,
            ms: Date.now() - started,
          });
          continue;
        }
        const { vectors, keywords, fingerprints, counts } = await this.readAll(definition, documents);
        // Built from MongoDB: due for saving, so the next start can restore it.
        this.install(state, { vectors, keywords, fingerprints, position }, AUTOSAVE_WRITES);
        const fields = { ...log, ...counts, vectors: vectors?.size ?? 0, ms: Date.now() - started };
        if (counts.otherDimensions)
          logger.warn('search space has vectors of other dimensions: re-embed them', {
            ...fields,
            dimensions: this.options.dimensions,
          });
        else logger.info('search space built', fields);
      } catch (error) {
        state.status = 'empty';
        state.pending.length = 0;
        failures.set(state, error);
        logger.error('search space build failed', {
          ...log,
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
  }

  /** Makes loaded contents the space's, replays the writes that arrived meanwhile, and marks it ready. */
  private install(
    state: SpaceState,
    contents: {
      vectors: VectorStore | null;
      keywords: KeywordIndex | null;
      fingerprints: Fingerprints | null;
      position: ChangePosition | null;
    },
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
    // Atlas mode keeps (and follows) only keyword indexes: a space without text paths holds nothing in-process.
    if (state.fingerprints) this.follower.ready(state.definition);
  }

  /** The space's saved snapshot when there is a usable one; a bad one is logged and skipped (the space is rebuilt). */
  private async restore(
    definition: SpaceDefinition,
    documents: DocumentIds,
    first?: Promise<unknown>,
  ): Promise<SnapshotContents | null> {
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
    const vectors = memory
      ? new VectorStore(
          dimensions,
          Math.max(1024, Math.ceil((await collection.estimatedDocumentCount()) * 1.05)),
          documents,
        )
      : null;
    const keywords = definition.textPaths?.length ? new KeywordIndex(definition.textPaths, documents) : null;
    // Followed through their fingerprints (in atlas mode, of the texts alone).
    const fingerprints = memory || keywords ? new Fingerprints(documents) : null;
    const counts = { documents: 0, withoutId: 0, otherDimensions: 0 };
    if (vectors || keywords) {
      const cursor = collection.find(
        {},
        { projection: { ...spaceProjection(definition, memory), _id: fingerprints ? 1 : 0 }, batchSize: 1000 },
      );
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
}

/** What a catch-up works on: the live contents of a ready space. */
function contentsOf(state: SpaceState): SpaceContents {
  return {
    vectors: state.vectors,
    keywords: state.keywords,
    fingerprints: state.fingerprints!,
    documents: state.documents,
    position: state.position,
  };
}

/** Counts writes applied to a space for the auto-save. */
function countWrites(state: SpaceState, writes: number): void {
  if (writes > 0 && state.changes === 0) state.changedSince = Date.now();
  state.changes += writes;
}

/** A database's spaces as the save schedule sees them (SearchIndex). */
export interface SavedSpaces {
  saveSpaces(due: (changes: number, since: number) => boolean): Promise<void>;
}

/**
 * When spaces are saved (memory mode with `persistDir`; otherwise there is nothing to do): on request (`save`), in the
 * background (`startAutoSave`) and at shutdown (`close`), one save at a time over every database's index.
 */
export class SaveSchedule {
  private autoSave: NodeJS.Timeout | null = null;
  private saving: Promise<void> = Promise.resolve();

  constructor(
    private readonly options: SearchOptions,
    private readonly indexes: () => Iterable<SavedSpaces>,
  ) {}

  /** Saves every space with unsaved writes (memory mode with `persistDir`; otherwise nothing to do). */
  save(): Promise<void> {
    return this.serialised(() => this.saveAll(() => true));
  }

  /** As `save`, but rejects when it fails (still logged; the schedule goes on): for a caller that must know. */
  saveOrFail(): Promise<void> {
    const attempt = this.saving.then(() => this.saveAll(() => true));
    this.saving = attempt.catch((error: unknown) => {
      this.options.logger.error('search snapshot save failed', {
        error: error instanceof Error ? error.message : String(error),
      });
    });
    return attempt;
  }

  /**
   * Saves spaces in the background: a space with {@link AUTOSAVE_WRITES} unsaved writes, or whose oldest unsaved
   * write is {@link AUTOSAVE_AGE_MS} old, or that was just built from MongoDB. `close` stops it.
   */
  startAutoSave(): void {
    if (this.autoSave || !this.persisting) return;
    this.autoSave = setInterval(() => {
      const now = Date.now();
      void this.serialised(() =>
        this.saveAll((changes, since) => changes >= AUTOSAVE_WRITES || (changes > 0 && now - since >= AUTOSAVE_AGE_MS)),
      );
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
      this.options.logger.error('search snapshot save failed', {
        error: error instanceof Error ? error.message : String(error),
      });
    });
    return this.saving;
  }

  private async saveAll(due: (changes: number, since: number) => boolean): Promise<void> {
    if (!this.persisting) return;
    for (const index of this.indexes()) await index.saveSpaces(due);
  }
}

/** Vectors handed to the HNSW graph per multi-threaded insert during a build (the event loop runs between batches). */
const BUILD_BATCH = 512;
