import { BSON, ObjectId, type Db, type Document, type FindCursor } from 'mongodb';
import { grownTo, type DocumentIds, type NumberHolder } from './document-ids';
import { RawFingerprints } from './fingerprint';
import { readPath, type SpaceDefinition } from './space';

/** Filters whose passing documents a collection keeps (the least recently used one is dropped beyond). */
const CACHED_FILTERS = 64;
/**
 * Documents whose stored values a collection keeps per reader (the first kept is dropped beyond): the candidates of a
 * busy server's searches over minutes, at a few hundred bytes each in a compact form.
 */
const CACHED_VALUES = 100_000;
/** Ids read per query when marked documents are checked against a filter again. */
const CHECK_BATCH = 1000;
/** Marks beyond which a filter unused meanwhile is dropped: resolving it again costs less than checking them all. */
const MARKS_MAX = 10_000;

/**
 * The documents of a collection that pass one search filter, by the numbers of the collection's {@link DocumentIds}
 * (one byte each), as of the last time the filter or the documents written since were asked of MongoDB. Read it only
 * between awaits: {@link CollectionFilters.passing} brings it up to date first.
 */
export class PassingSet implements NumberHolder {
  /** 1 at the number of each passing document. */
  bits = new Uint8Array(0);
  /** Passing documents (the bits set). */
  count = 0;
  /** Ids written since (by this process or, as the spaces follow them, anyone): checked again before the next use. */
  readonly markedIds = new Set<string>();
  /** The same, for writes known by their document's `_id` only (change events). */
  readonly markedKeys: unknown[] = [];
  /** The filter asked of MongoDB (the first time, then after marks), shared by concurrent searches. */
  asking: Promise<void> | null = null;
  /** The passing numbers in order, listed on demand until the next change. */
  private listed: Int32Array | null = null;

  constructor(
    readonly filter: Document,
    readonly documents: DocumentIds,
  ) {
    documents.register(this);
  }

  passes(number: number): boolean {
    return this.bits[number] === 1;
  }

  /** Whether `id` passes (false for an id never seen). */
  has(id: string): boolean {
    const number = this.documents.numberOf(id);
    return number !== undefined && this.bits[number] === 1;
  }

  set(id: string, passes: boolean): void {
    const number = this.documents.number(id);
    if (number >= this.bits.length) this.bits = grownTo(this.bits, number + 1, 0);
    if (this.bits[number] === (passes ? 1 : 0)) return;
    this.bits[number] = passes ? 1 : 0;
    this.count += passes ? 1 : -1;
    this.listed = null;
  }

  /** The numbers of the passing documents, ascending. */
  numbers(): Int32Array {
    if (!this.listed) {
      const listed = new Int32Array(this.count);
      let at = 0;
      for (let number = 0; number < this.bits.length && at < listed.length; number++)
        if (this.bits[number] === 1) listed[at++] = number;
      this.listed = listed;
    }
    return this.listed;
  }

  /** The ids of the passing documents. */
  ids(): string[] {
    return Array.from(this.numbers(), (number) => this.documents.idOf(number));
  }

  /** The numbers of passing ids stay theirs (a freed number given to another id would pass unasked). */
  markHeld(held: Uint8Array): void {
    const end = Math.min(held.length, this.bits.length);
    for (let number = 0; number < end; number++) if (this.bits[number]) held[number] = 1;
  }
}

/**
 * The search filters of one collection (and id field) and the documents that pass each, kept current instead of asked
 * of MongoDB on every search: a filter is resolved once (one query projecting the id, read as raw BSON), then each
 * write the spaces learn of marks its document, and the next search with the filter first asks MongoDB about the
 * marked documents alone (`{ $and: [filter, { id: { $in: marked } }] }`). Writes come from this process's services
 * (SpaceStates.upsert, remove) and from the collection's change stream (SpaceLifecycle.applyEvents, which also
 * carries this process's own writes of fields no space indexes, such as an outcome or tags); when the spaces catch up
 * by other means (a restore, a lost stream position, polling) every filter is resolved again. So a filter sees this
 * process's writes through the spaces at once, and any other write when the change stream brings it.
 */
export class CollectionFilters {
  private readonly sets = new Map<string, PassingSet>();
  private readonly values = new Map<string, StoredValues<unknown>>();

  constructor(
    private readonly db: Db,
    private readonly definition: SpaceDefinition,
    private readonly documents: DocumentIds,
  ) {}

  /** The documents passing `filter`, up to date with every write marked before the call. */
  async passing(filter: Document): Promise<PassingSet> {
    const key = BSON.EJSON.stringify(filter, { relaxed: false });
    let set = this.sets.get(key);
    if (set) {
      // Most recently used last.
      this.sets.delete(key);
      this.sets.set(key, set);
    } else {
      set = new PassingSet(filter, this.documents);
      this.sets.set(key, set);
      for (const oldest of this.sets.keys()) {
        if (this.sets.size <= CACHED_FILTERS) break;
        this.sets.delete(oldest);
      }
      set.asking = this.resolve(set);
    }
    // Marks made while a question was out are asked about once it is answered.
    while (set.asking || set.markedIds.size || set.markedKeys.length) {
      set.asking ??= this.check(set);
      const asking = set.asking;
      try {
        await asking;
      } catch (error) {
        if (this.sets.get(key) === set) this.sets.delete(key);
        throw error;
      } finally {
        if (set.asking === asking) set.asking = null;
      }
    }
    return set;
  }

  /**
   * The cache of what `compact` makes of the collection's documents' `fields` (see {@link StoredValues}), one per
   * `name`: a reader gives the same fields and form under its name each time.
   */
  valuesOf<T>(name: string, fields: readonly string[], compact: (document: Document) => T): StoredValues<T> {
    let values = this.values.get(name) as StoredValues<T> | undefined;
    if (!values) {
      values = new StoredValues(this.db, this.definition, fields, compact);
      this.values.set(name, values as StoredValues<unknown>);
    }
    return values;
  }

  /** A document (by id) was written or deleted: every filter asks about it again before its next use. */
  markId(id: string): void {
    for (const values of this.values.values()) values.drop(id);
    for (const [key, set] of this.sets) {
      set.markedIds.add(id);
      if (set.markedIds.size + set.markedKeys.length > MARKS_MAX) this.sets.delete(key);
    }
  }

  /** The same, for a document known by its `_id` (a change event). */
  markKey(documentKey: unknown): void {
    for (const values of this.values.values()) values.dropKey(documentKey);
    for (const [key, set] of this.sets) {
      set.markedKeys.push(documentKey);
      if (set.markedIds.size + set.markedKeys.length > MARKS_MAX) this.sets.delete(key);
    }
  }

  /** Writes may have been missed: every filter is resolved from scratch at its next use. */
  forget(): void {
    this.sets.clear();
    for (const values of this.values.values()) values.clear();
  }

  /** Asks MongoDB for every document passing the set's filter. */
  private async resolve(set: PassingSet): Promise<void> {
    const raw = new RawFingerprints([this.definition]);
    const cursor = this.db.collection(this.definition.collection).find<Uint8Array>(set.filter, {
      projection: { _id: 0, [this.definition.idField]: 1 },
      batchSize: 100_000,
      raw: true,
    });
    const ids: string[] = [];
    while (await cursor.hasNext()) {
      for (const document of cursor.readBufferedDocuments()) {
        const id = raw.id(document);
        if (id !== null) ids.push(id);
      }
    }
    for (const id of ids) set.set(id, true);
  }

  /** Asks MongoDB whether the documents marked so far pass the set's filter. */
  private async check(set: PassingSet): Promise<void> {
    const { collection, idField } = this.definition;
    const ids = new Set(set.markedIds);
    const keys = set.markedKeys.splice(0);
    set.markedIds.clear();
    const projection = { _id: 0, [idField]: 1 };
    for (let from = 0; from < keys.length; from += CHECK_BATCH) {
      const found = await this.db
        .collection(collection)
        .find({ _id: { $in: keys.slice(from, from + CHECK_BATCH) as never[] } }, { projection })
        .toArray();
      for (const document of found) {
        const id = readPath(document, idField);
        if (typeof id === 'string') ids.add(id);
      }
    }
    const listed = [...ids];
    for (let from = 0; from < listed.length; from += CHECK_BATCH) {
      const batch = listed.slice(from, from + CHECK_BATCH);
      const passing = new Set<unknown>();
      const found = await this.db
        .collection(collection)
        .find({ $and: [set.filter, { [idField]: { $in: batch } }] }, { projection })
        .toArray();
      for (const document of found) passing.add(readPath(document, idField));
      for (const id of batch) set.set(id, passing.has(id));
    }
  }
}

/** What a read in flight must not keep: documents written since it began (by id or `_id`), or all of them. */
interface ReadInFlight {
  ids: Set<string>;
  keys: Set<string>;
  all: boolean;
}

/**
 * What searches read of a collection's documents for every candidate (the ranking's signals and validity), by id, in
 * the compact form the reader makes of each (`compact`), kept current as the filters are: each write the spaces learn
 * of drops its document's entry (see {@link CollectionFilters}). A read keeps none of the documents written while it
 * was out (it answers them as read). The first read also starts loading the whole collection in the background, up
 * to CACHED_VALUES documents, so that searches find every candidate's values at hand.
 */
export class StoredValues<T> {
  private readonly byId = new Map<string, { value: T; key: string }>();
  /** The id of each cached document by its `_id` (as change events name documents). */
  private readonly idByKey = new Map<string, string>();
  private readonly inFlight = new Set<ReadInFlight>();
  private loading: Promise<void> | null = null;

  constructor(
    private readonly db: Db,
    private readonly definition: SpaceDefinition,
    private readonly fields: readonly string[],
    private readonly compact: (document: Document) => T,
  ) {}

  /**
   * The listed documents that exist, by id, as `compact` makes them of their fields: cached, else read in one query
   * through `db` (a request's handle, to carry its deadline).
   */
  async read(ids: readonly string[], db: Db = this.db): Promise<Map<string, T>> {
    this.loading ??= this.loadAll().catch(() => {
      // A search reads what it misses; a later first read does not start the load again.
    });
    const found = new Map<string, T>();
    const missing: string[] = [];
    for (const id of ids) {
      const cached = this.byId.get(id);
      if (cached) found.set(id, cached.value);
      else missing.push(id);
    }
    if (missing.length) {
      await this.readInto(
        db.collection(this.definition.collection).find({ [this.definition.idField]: { $in: missing } }, this.options),
        (id, value) => found.set(id, value),
      );
    }
    return found;
  }

  /** Settles once the background load that the first read started has ended (at once when none has started). */
  async loaded(): Promise<void> {
    await this.loading;
  }

  drop(id: string): void {
    for (const read of this.inFlight) read.ids.add(id);
    this.evict(id);
  }

  dropKey(documentKey: unknown): void {
    const key = keyOf(documentKey);
    for (const read of this.inFlight) read.keys.add(key);
    const id = this.idByKey.get(key);
    if (id !== undefined) this.evict(id);
  }

  clear(): void {
    for (const read of this.inFlight) read.all = true;
    this.byId.clear();
    this.idByKey.clear();
  }

  private get options() {
    const { idField } = this.definition;
    return { projection: { _id: 1, [idField]: 1, ...Object.fromEntries(this.fields.map((field) => [field, 1])) } };
  }

  /** The collection's first CACHED_VALUES documents, kept as they come (in batches, between other work). */
  private async loadAll(): Promise<void> {
    await this.readInto(
      this.db
        .collection(this.definition.collection)
        .find({}, { ...this.options, limit: CACHED_VALUES, batchSize: 1000 }),
    );
  }

  /** Reads `cursor`'s documents, keeping those not written meanwhile, and hands each to `each`. */
  private async readInto(cursor: FindCursor<Document>, each: (id: string, value: T) => void = () => {}): Promise<void> {
    const read: ReadInFlight = { ids: new Set(), keys: new Set(), all: false };
    this.inFlight.add(read);
    try {
      for await (const document of cursor) {
        const id = readPath(document, this.definition.idField);
        if (typeof id !== 'string') continue;
        const value = this.compact(document);
        each(id, value);
        const key = keyOf(document._id);
        if (!read.all && !read.ids.has(id) && !read.keys.has(key)) this.keep(id, key, value);
      }
    } finally {
      this.inFlight.delete(read);
    }
  }

  private keep(id: string, key: string, value: T): void {
    this.evict(id);
    this.byId.set(id, { value, key });
    this.idByKey.set(key, id);
    for (const oldest of this.byId.keys()) {
      if (this.byId.size <= CACHED_VALUES) break;
      this.evict(oldest);
    }
  }

  private evict(id: string): void {
    const entry = this.byId.get(id);
    if (!entry) return;
    this.byId.delete(id);
    this.idByKey.delete(entry.key);
  }
}

/** A document's `_id` as a map key. */
function keyOf(documentKey: unknown): string {
  if (documentKey instanceof ObjectId) return documentKey.toHexString();
  return BSON.EJSON.stringify({ k: documentKey as never }, { relaxed: false });
}
