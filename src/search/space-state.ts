import type { ChangePosition } from './changes';
import type { KeywordIndex } from './bm25';
import type { Db } from 'mongodb';
import { DocumentIds, type Fingerprints } from './document-ids';
import { UNKNOWN_DOCUMENT, fingerprint } from './fingerprint';
import type { SpaceDefinition } from './space';
import { CollectionFilters } from './space-filters';
import type { SpaceRegistry, SpaceTexts } from './types';
import type { VectorStore } from './vector-store';

/** How far a space is: `empty` until first used (or built), `building` while loading from MongoDB, then `ready`. */
export type SpaceStatus = 'empty' | 'building' | 'ready';

/** What one database holds for a space, shared by its query, write and lifecycle code. */
export interface SpaceState {
  definition: SpaceDefinition;
  status: SpaceStatus;
  building: Promise<void> | null;
  /** In-process vectors (memory mode only). */
  vectors: VectorStore | null;
  /** BM25 over the text paths (both modes; null for a space without text paths). */
  keywords: KeywordIndex | null;
  /** Writes that arrived while building, replayed in order once the load is done. */
  pending: Array<() => void>;
  /**
   * Each document's fingerprint by id (see `fingerprint`), how a restore or following finds what changed; null for a
   * space not built yet, or holding nothing in-process (atlas mode without text paths).
   */
  fingerprints: Fingerprints | null;
  /** The change stream position the space reflects every write before (null: unknown, or not followed). */
  position: ChangePosition | null;
  /** The numbered ids of the spaces of a collection (and id field), shared by them, with their document keys. */
  documents: DocumentIds;
  /** Writes applied since the space was last saved or restored (a freshly built space counts as due). */
  changes: number;
  /** When the first of those writes was applied (ms since the epoch; 0: none). */
  changedSince: number;
  /** While a comparison with the collection runs: this process's writes, applied again after it (null otherwise). */
  held: Array<() => void> | null;
}

/**
 * The spaces of one database as they are now, and the writes that keep them current: `upsert` and `remove`, which
 * repositories/services call (through SearchIndex) after each successful write. Writes to a space that was never built
 * are skipped (the build reads them from MongoDB); writes during a build are replayed after it.
 */
export class SpaceStates {
  private readonly states = new Map<string, SpaceState>();
  /** `SpaceState.documents` by collection and id field. */
  private readonly documents = new Map<string, DocumentIds>();
  /** The search filters of each collection (and id field) with the documents passing them (memory mode). */
  private readonly filters = new Map<string, CollectionFilters>();

  constructor(
    private readonly registry: SpaceRegistry,
    private readonly db?: Db,
  ) {}

  /**
   * The cached search filters of the space's collection (see {@link CollectionFilters}), which every write the spaces
   * learn of marks.
   */
  filtersOf(space: string): CollectionFilters {
    const state = this.get(space);
    const key = collectionKey(state.definition);
    let filters = this.filters.get(key);
    if (!filters) {
      if (!this.db) throw new Error('search filters need the database');
      this.filters.set(key, (filters = new CollectionFilters(this.db, state.definition, state.documents)));
    }
    return filters;
  }

  /** Marks a written document in the cached filters of a collection (see {@link CollectionFilters.markId}). */
  markWritten(definition: SpaceDefinition, id: string): void {
    this.filters.get(collectionKey(definition))?.markId(id);
  }

  /** Marks documents named by a change event's `_id`s (see {@link CollectionFilters.markKey}). */
  markEvents(definition: SpaceDefinition, keys: readonly unknown[]): void {
    const filters = this.filters.get(collectionKey(definition));
    if (filters) for (const key of keys) filters.markKey(key);
  }

  /** The spaces of a collection caught up by other means than events: its filters are resolved again. */
  forgetFilters(definition: SpaceDefinition): void {
    this.filters.get(collectionKey(definition))?.forget();
  }

  /** The state of a space (created, `empty`, on first use); throws for an unknown space. */
  get(space: string): SpaceState {
    let state = this.states.get(space);
    if (!state) {
      const definition = this.registry.space(space);
      let documents = this.documents.get(collectionKey(definition));
      if (!documents) this.documents.set(collectionKey(definition), (documents = new DocumentIds()));
      state = {
        definition,
        status: 'empty',
        building: null,
        vectors: null,
        keywords: null,
        pending: [],
        fingerprints: null,
        position: null,
        documents,
        changes: 0,
        changedSince: 0,
        held: null,
      };
      this.states.set(space, state);
    }
    return state;
  }

  /** Every space used so far. */
  all(): SpaceState[] {
    return [...this.states.values()];
  }

  /**
   * Sets a document's entry in a space after a successful write: its vector (null: none) and its texts (a string
   * for a space with one text path, else by path; undefined: none; ignored by a space without text paths). A zero
   * vector counts as none.
   * @throws Error when the vector's length is not the embedder's dimensions (memory mode).
   */
  upsert(space: string, id: string, vector: Float32Array | null, text?: SpaceTexts): void {
    const state = this.get(space);
    const { mode, dimensions } = this.registry.options;
    if (vector && mode === 'memory' && vector.length !== dimensions) {
      throw new Error(
        `Vector of ${vector.length} dimensions for search space ${JSON.stringify(space)} of ${dimensions}.`,
      );
    }
    const texts = textsFor(state.definition, text);
    this.markWritten(state.definition, id);
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
        // Atlas mode's fingerprints cover the texts alone (see fingerprintProjection).
        state.fingerprints.set(id, fingerprint(state.definition, texts, mode === 'memory' ? vector : null));
        // The written document's _id is not known here: the next catch-up reads it back.
        state.documents.setKey(id, UNKNOWN_DOCUMENT);
      }
    });
  }

  /** Removes a document from a space after a successful delete. */
  remove(space: string, id: string): void {
    const state = this.get(space);
    this.markWritten(state.definition, id);
    this.write(state, () => {
      state.vectors?.remove(id);
      state.keywords?.remove(id);
      state.fingerprints?.delete(id);
    });
  }

  /** Applies a write now, after the running build, or not at all before the first build (which reads MongoDB). */
  private write(state: SpaceState, apply: () => void): void {
    const counted = () => {
      apply();
      if (state.changes++ === 0) state.changedSince = Date.now();
    };
    if (state.status === 'ready') {
      counted();
      state.held?.push(apply);
    } else if (state.status === 'building') state.pending.push(counted);
  }
}

/** The spaces of one collection and id field share this key (they load, save and catch up together). */
export function collectionKey({ collection, idField }: SpaceDefinition): string {
  return `${collection}\0${idField}`;
}

/** Items grouped by key, in first-seen order. */
export function groupBy<T, K>(items: readonly T[], keyOf: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    groups.set(key, [...(groups.get(key) ?? []), item]);
  }
  return groups;
}

/** Spaces grouped by collection and id field (spaces loaded, compared and synced together). */
export function groupByCollection(states: readonly SpaceState[]): SpaceState[][] {
  return [...groupBy(states, ({ definition }) => collectionKey(definition)).values()];
}

function textsFor(definition: SpaceDefinition, text: SpaceTexts | undefined): Record<string, string> | null {
  const paths = definition.textPaths ?? [];
  if (text === undefined || !paths.length) return null;
  if (typeof text === 'string') {
    if (paths.length !== 1)
      throw new Error(
        `Search space ${JSON.stringify(definition.name)} has ${paths.length} text paths: pass its texts by path.`,
      );
    return { [paths[0]]: text };
  }
  const texts: Record<string, string> = {};
  for (const path of paths) texts[path] = text[path] ?? '';
  return texts;
}
