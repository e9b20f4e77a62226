import { BSON, type Db, type Document, type ObjectId } from 'mongodb';
import { findDocuments } from '../db/bson-reader';
import { changesSince, type ChangePosition, type Changes } from './changes';
import { RawFingerprints, documentKey, fingerprint, fingerprintProjection } from './fingerprint';
import type { SpaceContents } from './persistence';
import { entryOf, readPath, spaceProjection, type SpaceDefinition, type SpaceEntry } from './space';
import { groupBy, type SpaceState } from './space-state';
import type { SearchOptions } from './types';

/**
 * Brings a space's contents (restored from a snapshot, or live before a save) up to date with the writes made to its
 * collection since their position: from the change stream when it can (`changesSincePositions`, `applyChangesTo`),
 * else by comparing every document's fingerprint with the saved one (`scanFingerprints`, `compareFingerprints`). It
 * needs no timestamp field, so the comparison works on any deployment.
 */
export class CatchUp {
  constructor(
    private readonly db: Db,
    private readonly options: SearchOptions,
  ) {}

  /**
   * Whether spaces hold vectors in-process (memory mode): in atlas mode the database searches them, and catching up
   * reads, fingerprints and indexes only the texts.
   */
  private get withVectors(): boolean {
    return this.options.mode === 'memory';
  }

  /**
   * One pass over a collection for spaces of it (same id field): each document's id and, per space, its fingerprint,
   * read with a projection of the id, the texts and the first vector components (a small fraction of the vectors'
   * bytes), as raw BSON (see {@link RawFingerprints}). Documents without a string id, and repeats of an id, are skipped.
   */
  async scanFingerprints(definitions: SpaceDefinition[]): Promise<ScannedFingerprints> {
    const { collection } = definitions[0];
    const ids: string[] = [];
    const present = new Set<string>();
    const keys: number[] = [];
    const values: number[][] = definitions.map(() => []);
    const raw = new RawFingerprints(definitions);
    const cursor = this.db
      .collection(collection)
      .find<Uint8Array>(
        {},
        { projection: fingerprintProjection(definitions, this.withVectors), batchSize: 5000, raw: true },
      );
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
    return {
      ids,
      present,
      documentKeys: Int32Array.from(keys),
      fingerprints: values.map((list) => Float64Array.from(list)),
    };
  }

  /**
   * The changes since each position (null: no position, or not to be had from the change stream, or more than `share`
   * of the collection's documents), read once per distinct position: spaces of one collection saved together share theirs.
   */
  async changesSincePositions(
    collectionName: string,
    positions: Array<ChangePosition | null>,
    share: number,
  ): Promise<Array<Changes | null>> {
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
  async applyChangesTo(
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
      const documents = await (whole ??
        this.readDocuments(collection, ids, fingerprintProjection(definitions, this.withVectors)));
      const byId = documents.map((document) => idKey(document._id));
      const keyOf = documents.map((document) => documentKey(document._id));
      const readBack = new Set(byId);
      batch.forEach((key, i) => {
        if (!readBack.has(key)) goneKeys.add(documentKey(ids[i]));
      });
      // By space, the documents whose fingerprint differs from the saved one (by `idKey` of their `_id`).
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
      if (staleIds.size)
        full = whole
          ? documents
          : await this.readDocuments(collection, [...staleIds.values()], fullProjection(definitions, this.withVectors));
      const fullById = full === documents ? byId : full.map((document) => idKey(document._id));
      definitions.forEach((definition, s) => {
        const entries = full.flatMap((document, d) =>
          stale[s].has(fullById[d]) ? (entryOf(definition, document) ?? []) : [],
        );
        results[s].updated += entries.length;
        // Not awaited: a search sent from now on reaches the graph's worker after these vectors (a failed add fails the
        // graph's later operations, as a single add does).
        this.reindex(definition, contents[s], entries).catch((error: unknown) =>
          this.graphAddFailed(definition, error),
        );
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
  readDocuments(collection: string, ids: unknown[], projection: Document): Promise<Document[]> {
    return findDocuments<Document>(this.db, collection, { _id: { $in: ids } }, { projection });
  }

  /**
   * The ids of `contents` (spaces of one collection) that are no longer in it, among those whose document key is in
   * `keys` or unknown: these candidates are looked up by id. When they are more than a tenth of the collection (a
   * snapshot saved without keys), the collection's ids are listed instead (`present`).
   */
  private async goneIds(
    definition: SpaceDefinition,
    contents: SpaceContents[],
    keys: ReadonlySet<number>,
    present: () => Promise<Map<string, number>>,
  ): Promise<string[]> {
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
      const documents = await findDocuments<Document>(
        this.db,
        definition.collection,
        { [definition.idField]: { $in: batch } },
        { projection: { _id: 0, [definition.idField]: 1 } },
      );
      for (const document of documents) found.add(readPath(document, definition.idField));
    }
    return candidates.filter((id) => !found.has(id));
  }

  /**
   * The ids (string `idField` values) in a space's collection with their documents' keys: one pass over the collection
   * reading only `_id` and the id, as raw BSON.
   */
  async presentIds(definition: SpaceDefinition): Promise<Map<string, number>> {
    const present = new Map<string, number>();
    const raw = new RawFingerprints([definition]);
    const projection = { _id: 1, [definition.idField]: 1 };
    const cursor = this.db
      .collection(definition.collection)
      .find<Uint8Array>({}, { projection, batchSize: 10_000, raw: true });
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
  private async reindex(definition: SpaceDefinition, contents: SpaceContents, entries: SpaceEntry[]): Promise<void> {
    const { vectors } = contents;
    const fresh: Array<{ id: string; vector: Float32Array }> = [];
    for (const entry of entries) {
      contents.keywords?.upsert(entry.id, entry.texts);
      contents.fingerprints.set(entry.id, fingerprint(definition, entry.texts, entry.vector));
      if (!vectors) continue;
      if (entry.vector && entry.vector.length === this.options.dimensions)
        fresh.push({ id: entry.id, vector: entry.vector });
      else vectors.remove(entry.id);
    }
    if (vectors) await vectors.addMany(fresh);
  }

  /**
   * Brings restored contents up to date with MongoDB when the change stream cannot: documents whose fingerprint
   * (from `scanFingerprints`, column `column`) differs from the snapshot's, or that are new, are read in full and
   * re-indexed; ids the snapshot has but MongoDB no longer does are removed. It needs no change stream and no
   * timestamp field, so it works on any deployment.
   */
  async compareFingerprints(
    definition: SpaceDefinition,
    contents: SpaceContents,
    scanned: ScannedFingerprints,
    column: number,
  ): Promise<CaughtUp> {
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
      const cursor = collection.find(
        { [definition.idField]: { $in: ids } },
        { projection: spaceProjection(definition, this.withVectors) },
      );
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
}

/** What `scanFingerprints` read: the ids in MongoDB and, per space, their current fingerprints (aligned with `ids`). */
export interface ScannedFingerprints {
  ids: string[];
  present: ReadonlySet<string>;
  /** The documents' keys (see `documentKey`), aligned with `ids`. */
  documentKeys: Int32Array;
  fingerprints: Float64Array[];
}

/** What a catch-up did to a space: documents read back or compared, entries re-indexed, entries removed. */
export interface CaughtUp {
  scanned: number;
  updated: number;
  removed: number;
}

/**
 * A restore follows the change stream for up to this share of the collection's documents (at least CHANGES_MIN): past
 * it, one pass comparing the whole collection, while the snapshots load, costs less than reading each change back.
 */
export const CHANGES_SHARE = 0.1;
const CHANGES_MIN = 1000;

/** Removes a document's entry from a space's contents. */
function dropEntry(contents: SpaceContents, id: string): void {
  contents.vectors?.remove(id);
  contents.keywords?.remove(id);
  contents.fingerprints.delete(id);
}

/** What spaces of one collection read from a document, vectors whole (when `withVectors`), and its `_id`. */
export function fullProjection(definitions: readonly SpaceDefinition[], withVectors: boolean): Document {
  return Object.assign({}, ...definitions.map((definition) => spaceProjection(definition, withVectors)), { _id: 1 });
}

/** The documents written after a position, by key (see `idKey`), each with its `_id` and whether every write to it was its insert (then an id new to a snapshot is expected). */
type WrittenDocuments = Map<string, { id: unknown; insertedOnly: boolean }>;

export function writtenDocuments(changes: Changes): WrittenDocuments {
  const written: WrittenDocuments = new Map();
  for (const { id, inserted } of changes.written) {
    const key = idKey(id);
    const seen = written.get(key);
    written.set(key, { id, insertedOnly: inserted && (seen?.insertedOnly ?? true) });
  }
  return written;
}

/** A key equal for equal positions (resume tokens): their canonical extended JSON. */
function positionKey(value: Document): string {
  return BSON.EJSON.stringify(value, { relaxed: false });
}

/**
 * A key equal for equal `_id`s, distinct for distinct ones: ObjectIds and strings (nearly every `_id`) by their hex or
 * text, cheaper than EJSON for the documents of every followed write; others by their canonical extended JSON (which
 * starts with `{`, unlike the first two). ObjectIds are told by their BSON type, as from any copy of the bson package.
 */
export function idKey(id: unknown): string {
  if ((id as { _bsontype?: unknown } | null)?._bsontype === 'ObjectId') return `o${(id as ObjectId).toHexString()}`;
  if (typeof id === 'string') return `s${id}`;
  return BSON.EJSON.stringify({ id }, { relaxed: false });
}

/** Changed documents read back per query by a catch-up. */
export const CATCH_UP_BATCH = 1000;
