import { ObjectId, UUID, type Document } from 'bson';
import { ChangeLog } from './changes';
import type { DatabaseImage, DurableState, IndexSpec, JournalOp, SearchIndexSpec } from './durability';
import { CommandError, ErrorCode } from './errors';
import { applyPatch, diffDocuments } from './patch';
import { compileFilter, type Matcher } from './filter';
import { SortedList } from './sorted-list';
import type { VectorSpill } from './spill';
import {
  canonicalKey,
  compareValues,
  formatValue,
  isPlainObject,
  markStored,
  ownField,
  pathValues,
  type Doc,
} from './values';

/**
 * One key an index holds for a document: the canonical string, the field values it was built from, and whether the
 * document reaches an array on an indexed path (which makes the index multikey).
 */
interface IndexKey {
  key: string;
  values: unknown[];
  array: boolean;
}

/** One key of one document in an index's ordered view; `record` is the document's record number. */
export interface OrderedEntry {
  values: unknown[];
  id: string;
  record: number;
}

/** The documents an index's ordered view is built from, with their record numbers. */
interface RecordedDocs {
  docs: Map<string, Doc>;
  records: Map<string, number>;
}

/** A secondary index: canonical key → ids (canonical `_id` strings) of the documents holding it. */
export class Index {
  readonly fields: string[];
  readonly unique: boolean;
  readonly sparse: boolean;
  private readonly partial?: Matcher;
  private readonly keyed = new Map<string, KeyIds>();
  private readonly leadingKeyed?: Map<string, KeyIds>;
  /**
   * The documents of an index whose entries are not built yet: those a snapshot loaded (see `defer`). Entries,
   * `leading`, `multikey` and the ordered view are built from them on first use; until then `add` and `remove` do
   * nothing (the documents are the truth the build reads).
   */
  private deferred?: RecordedDocs;
  /** 1 or -1 per field; undefined for an index whose keys have no order (text, hashed, geo). */
  readonly directions?: number[];
  /** Every field is a top-level one (no dotted path): see keysOf. */
  private readonly topLevel: boolean;
  private anyArray = false;
  /**
   * The entries in index order: field values in BSON order along each field's direction, then record order.
   * Built by the first query that walks the index and maintained from then on, so indexes no query sorts by cost
   * neither memory nor insert time.
   */
  private view?: SortedList<OrderedEntry>;

  constructor(readonly spec: IndexSpec) {
    this.fields = Object.keys(spec.key);
    this.unique = spec.unique === true;
    this.sparse = spec.sparse === true;
    if (this.fields.length > 1) this.leadingKeyed = new Map();
    this.topLevel = this.fields.every((field) => !field.includes('.'));
    if (spec.partialFilterExpression) this.partial = compileFilter(spec.partialFilterExpression);
    const directions = Object.values(spec.key).map(Number);
    if (directions.every((direction) => direction === 1 || direction === -1)) this.directions = directions;
  }

  /** Whether the index holds `doc` at all: false for a document its partialFilterExpression leaves out. */
  covers(doc: Doc): boolean {
    return !this.partial || this.partial(doc);
  }

  /** Canonical key → ids of the documents holding it. */
  get entries(): Map<string, KeyIds> {
    this.build();
    return this.keyed;
  }

  /**
   * For a compound index: canonical value of its first field → ids, so that an equality on that field alone (the
   * usual `{agent: x}` against an `{agent, timestamp}` index) is a lookup, not a scan.
   */
  get leading(): Map<string, KeyIds> | undefined {
    this.build();
    return this.leadingKeyed;
  }

  /** A document has (or had: mongod never clears the flag either) an array on an indexed path. */
  get multikey(): boolean {
    this.build();
    return this.anyArray;
  }

  /**
   * Leaves the entries of the (empty) index to be built from `collection`'s documents on first use: a restart then
   * loads a snapshot without computing every document's keys, and an index no query uses before the next snapshot
   * costs nothing.
   */
  defer(collection: RecordedDocs): void {
    if (this.keyed.size > 0) throw new Error(`index ${this.spec.name}: only an empty index can be deferred`);
    this.deferred = collection;
  }

  /** The entries are still to be built (see `defer`). */
  get pending(): boolean {
    return this.deferred !== undefined;
  }

  private build(): void {
    const collection = this.deferred;
    if (!collection) return;
    this.deferred = undefined;
    for (const [id, doc] of collection.docs) this.add(this.keysOf(doc), id, collection.records.get(id)!);
  }

  /**
   * True when walking the index yields every document exactly once, in BSON order of its keys: not multikey, not
   * leaving documents out (sparse, partial), not hidden from the planner, and without a collation.
   */
  get walkable(): boolean {
    const collation = this.spec.collation as Doc | undefined;
    return (
      this.directions !== undefined &&
      !this.multikey &&
      !this.sparse &&
      !this.partial &&
      this.spec.hidden !== true &&
      (collation === undefined || collation.locale === 'simple')
    );
  }

  /** The entries in index order (see `view`), or undefined when the index is not walkable. */
  ordered(collection: RecordedDocs): SortedList<OrderedEntry> | undefined {
    if (!this.walkable) return undefined;
    if (!this.view) {
      const entries: OrderedEntry[] = [];
      for (const [id, doc] of collection.docs) {
        const record = collection.records.get(id)!;
        for (const { values } of this.keysOf(doc)) entries.push({ values, id, record });
      }
      this.view = new SortedList(this.compareEntries, entries.sort(this.compareEntries));
    }
    return this.view;
  }

  /** Index order of two entries. */
  readonly compareEntries = (a: OrderedEntry, b: OrderedEntry): number => {
    for (let i = 0; i < this.fields.length; i++) {
      const order = compareValues(a.values[i], b.values[i]);
      if (order) return order * this.directions![i];
    }
    return a.record - b.record;
  };

  /** The keys `doc` contributes, or none when sparse/partial options leave it out of the index. */
  keysOf(doc: Doc): IndexKey[] {
    if (this.partial && !this.partial(doc)) return [];
    // The usual case, without building the combinations: top-level fields holding no array give one key.
    if (this.topLevel) {
      const values = new Array<unknown>(this.fields.length);
      let present = false;
      for (let i = 0; i < values.length; i++) {
        const value = ownField(doc, this.fields[i]);
        if (Array.isArray(value)) return this.keysThroughPaths(doc);
        values[i] = value;
        present ||= value !== undefined;
      }
      if (this.sparse && !present) return [];
      const key = values.length === 1 ? canonicalKey(values[0]) : values.map(canonicalKey).join('\u0002');
      return [{ key, values, array: false }];
    }
    return this.keysThroughPaths(doc);
  }

  private keysThroughPaths(doc: Doc): IndexKey[] {
    const perField = this.fields.map((field) => pathValues(doc, field));
    if (this.sparse && perField.every((values) => values.every((value) => value === undefined))) return [];
    const multi = perField.filter((values) => values.length > 1);
    if (multi.length > 1) {
      throw new CommandError(
        ErrorCode.CannotIndexParallelArrays,
        `cannot index parallel arrays [${this.fields.join('] [')}]`,
      );
    }
    let combos: unknown[][] = [[]];
    for (const values of perField) {
      const next: unknown[][] = [];
      for (const combo of combos) for (const value of values) next.push(combo.concat([value]));
      combos = next;
    }
    // A single-element array yields one key like a scalar, yet the index no longer orders the field's sort values.
    const array = this.fields.some((field) => reachesArray(doc, field));
    const seen = new Set<string>();
    const keys: IndexKey[] = [];
    for (const values of combos) {
      const key = values.length === 1 ? canonicalKey(values[0]) : values.map(canonicalKey).join('\u0002');
      if (!seen.has(key)) {
        seen.add(key);
        keys.push({ key, values, array });
      }
    }
    return keys;
  }

  add(keys: IndexKey[], id: string, record: number): void {
    if (this.deferred) return;
    for (const { key, values } of keys) {
      addId(this.keyed, key, id);
      if (this.leadingKeyed) addId(this.leadingKeyed, canonicalKey(values[0]), id);
    }
    if (keys.some((key) => key.array)) {
      this.anyArray = true;
      this.view = undefined;
    }
    for (const { values } of keys) this.view?.insert({ values, id, record });
  }

  remove(keys: IndexKey[], id: string, record: number): void {
    if (this.deferred) return;
    for (const { key, values } of keys) {
      removeId(this.keyed, key, id);
      if (this.leadingKeyed) removeId(this.leadingKeyed, canonicalKey(values[0]), id);
    }
    for (const { values } of keys) this.view?.delete({ values, id, record });
  }

  /** The first key of `keys` already held by a document other than `id`. */
  conflict(keys: IndexKey[], id: string): IndexKey | undefined {
    for (const entry of keys) {
      const ids = this.entries.get(entry.key);
      if (ids !== undefined && (typeof ids === 'string' ? ids !== id : ids.size > 1 || !ids.has(id))) return entry;
    }
    return undefined;
  }
}

/** True when `path` passes through or ends at an array in `doc`. */
function reachesArray(doc: unknown, path: string): boolean {
  let current = doc;
  for (const segment of path.split('.')) {
    if (Array.isArray(current)) return true;
    if (!isPlainObject(current)) return false;
    current = ownField(current, segment);
  }
  return Array.isArray(current);
}

/**
 * The ids of the documents holding one key: the id itself while there is one (most keys of a unique or near-unique
 * index, which then cost no Set: about 140 bytes each), a Set from the second on.
 */
export type KeyIds = string | Set<string>;

/** The ids holding `key` in an index's entries, as a set. */
export function idsAt(map: ReadonlyMap<string, KeyIds>, key: string): ReadonlySet<string> | undefined {
  const ids = map.get(key);
  return typeof ids === 'string' ? new Set([ids]) : ids;
}

function addId(map: Map<string, KeyIds>, key: string, id: string): void {
  const ids = map.get(key);
  if (ids === undefined) map.set(key, id);
  else if (typeof ids !== 'string') ids.add(id);
  else if (ids !== id) map.set(key, new Set([ids, id]));
}

function removeId(map: Map<string, KeyIds>, key: string, id: string): void {
  const ids = map.get(key);
  if (ids === undefined) return;
  if (typeof ids === 'string') {
    if (ids === id) map.delete(key);
    return;
  }
  ids.delete(id);
  if (ids.size === 1) map.set(key, ids.values().next().value!);
  else if (!ids.size) map.delete(key);
}

export const ID_INDEX: IndexSpec = { v: 2, key: { _id: 1 }, name: '_id_' };

/** The mongod error for a unique index violation, with keyPattern/keyValue as the driver exposes them. */
export function duplicateKeyError(ns: string, spec: IndexSpec, values: unknown[]): CommandError {
  const fields = Object.keys(spec.key);
  const keyValue: Doc = {};
  fields.forEach((field, i) => (keyValue[field] = values[i] ?? null));
  return new CommandError(
    ErrorCode.DuplicateKey,
    `E11000 duplicate key error collection: ${ns} index: ${spec.name} dup key: ${formatValue(keyValue)}`,
    { keyPattern: spec.key, keyValue },
  );
}

/** A collection: documents by canonical `_id` in natural (insertion) order, plus its indexes. */
export class Collection {
  readonly docs = new Map<string, Doc>();
  /** Secondary indexes by name; the `_id` index is implicit in `docs`. */
  readonly indexes = new Map<string, Index>();
  /** Atlas search indexes by name (vector-search.ts). */
  readonly searchIndexes = new Map<string, SearchIndexSpec>();
  /** Bumped by every stored or removed document, so derived structures (vector graphs) know when to catch up. */
  version = 0;
  /**
   * Record number of each document by canonical `_id`: its rank in insertion order, kept across updates like mongod's
   * RecordId. Index walks break ties with it.
   */
  readonly records = new Map<string, number>();
  private nextRecord = 0;
  readonly uuid = new UUID();
  /** The collection's validator, when it rejects (validationAction `error`, the default). */
  private readonly validator?: Matcher;
  private readonly moderate: boolean;

  constructor(
    readonly db: string,
    readonly name: string,
    readonly options: Doc,
    private readonly spill?: VectorSpill,
  ) {
    if (options.validator !== undefined && options.validationAction !== 'warn' && options.validationLevel !== 'off') {
      if ('$jsonSchema' in options.validator) {
        throw new CommandError(
          ErrorCode.NotImplemented,
          '$jsonSchema validators are not supported by the embedded engine',
        );
      }
      this.validator = compileFilter(options.validator);
    }
    this.moderate = options.validationLevel === 'moderate';
  }

  get ns(): string {
    return `${this.db}.${this.name}`;
  }

  /** Index specs as listIndexes returns them, `_id_` first. */
  indexSpecs(): IndexSpec[] {
    return [ID_INDEX, ...[...this.indexes.values()].map((index) => index.spec)];
  }

  get(id: unknown): Doc | undefined {
    return this.docs.get(canonicalKey(id));
  }

  /** The record number of the document `id` (canonical), assigning the next one to a new document. */
  recordOf(id: string): number {
    let record = this.records.get(id);
    if (record === undefined) this.records.set(id, (record = this.nextRecord++));
    return record;
  }

  /**
   * Adds a new document; throws a duplicate key error (leaving everything unchanged) on a unique violation.
   * `copy` marks a rename's copies, which are no insert events.
   */
  insert(doc: Doc, ops: JournalOp[] | null, copy = false): void {
    const id = canonicalKey(doc._id);
    if (this.docs.has(id)) throw duplicateKeyError(this.ns, ID_INDEX, [doc._id]);
    this.validate(doc);
    const keys = this.checkedKeys(doc, id);
    this.keep(id, doc);
    this.indexKeys(keys, id, 'add');
    ops?.push(
      copy
        ? { t: 'put', db: this.db, coll: this.name, doc, change: 'copy' }
        : { t: 'put', db: this.db, coll: this.name, doc },
    );
  }

  /**
   * Swaps in the new version of a stored document (same `_id`), enforcing unique indexes first. `change` is the
   * change event it makes: `update` for update operators or pipelines, `replace` for a replacement document.
   */
  replace(previous: Doc, next: Doc, ops: JournalOp[] | null, change: 'update' | 'replace'): void {
    const id = canonicalKey(previous._id);
    // With validationLevel "moderate", documents that were already invalid may be updated freely.
    if (!(this.moderate && this.validator && !this.validator(previous))) this.validate(next);
    const keys = this.checkedKeys(next, id);
    // Kept first: writing its spilled arrays can fail (a full disk), and must then leave the indexes untouched.
    this.keep(id, next);
    this.indexKeys(this.keysFor(previous), id, 'remove');
    this.indexKeys(keys, id, 'add');
    if (!ops) return;
    const steps = diffDocuments(previous, next);
    // Only the case the op type would not tell replay is marked (a patch is an update, a put an insert).
    if (steps)
      ops.push(
        change === 'replace'
          ? { t: 'patch', db: this.db, coll: this.name, id: next._id, steps, change }
          : { t: 'patch', db: this.db, coll: this.name, id: next._id, steps },
      );
    else ops.push({ t: 'put', db: this.db, coll: this.name, doc: next, change });
  }

  /**
   * Stores a document under its canonical `_id`: from now on it is immutable (see markStored). `loaded`: recovery
   * loads it from a snapshot (see VectorSpill.spillDocument).
   */
  keep(id: string, doc: Doc, loaded = false): void {
    this.version++;
    markStored(doc);
    this.spill?.spillDocument(doc, loaded);
    this.docs.set(id, doc);
  }

  remove(doc: Doc, ops: JournalOp[] | null): void {
    const id = canonicalKey(doc._id);
    if (!this.docs.delete(id)) return;
    this.version++;
    this.indexKeys(this.keysFor(doc), id, 'remove');
    this.records.delete(id);
    ops?.push({ t: 'del', db: this.db, coll: this.name, id: doc._id });
  }

  /** Builds an index over the existing documents; fails with 11000 (adding nothing) if they violate it. */
  addIndex(spec: IndexSpec, ops: JournalOp[] | null, enforce = true): void {
    const index = new Index(spec);
    for (const [id, doc] of this.docs) {
      const keys = index.keysOf(doc);
      if (enforce && index.unique) {
        const taken = index.conflict(keys, id);
        if (taken) throw duplicateKeyError(this.ns, spec, taken.values);
      }
      index.add(keys, id, this.records.get(id)!);
    }
    this.indexes.set(spec.name, index);
    ops?.push({ t: 'createIndex', db: this.db, coll: this.name, spec });
  }

  /** Adds or replaces a search index. */
  putSearchIndex(spec: SearchIndexSpec, ops: JournalOp[] | null): void {
    this.searchIndexes.set(spec.name, spec);
    ops?.push({ t: 'searchIndex', db: this.db, coll: this.name, spec });
  }

  dropSearchIndex(name: string, ops: JournalOp[] | null): void {
    if (this.searchIndexes.delete(name)) ops?.push({ t: 'dropSearchIndex', db: this.db, coll: this.name, name });
  }

  dropIndex(name: string, ops: JournalOp[] | null): void {
    if (this.indexes.delete(name)) ops?.push({ t: 'dropIndex', db: this.db, coll: this.name, name });
  }

  private validate(doc: Doc): void {
    if (this.validator && !this.validator(doc)) {
      throw new CommandError(ErrorCode.DocumentValidationFailure, 'Document failed validation', {
        errInfo: { failingDocumentId: doc._id },
      });
    }
  }

  private keysFor(doc: Doc): Map<Index, IndexKey[]> {
    const keys = new Map<Index, IndexKey[]>();
    for (const index of this.indexes.values()) keys.set(index, index.keysOf(doc));
    return keys;
  }

  private checkedKeys(doc: Doc, id: string): Map<Index, IndexKey[]> {
    const keys = this.keysFor(doc);
    for (const [index, indexKeys] of keys) {
      if (!index.unique) continue;
      const taken = index.conflict(indexKeys, id);
      if (taken) throw duplicateKeyError(this.ns, index.spec, taken.values);
    }
    return keys;
  }

  private indexKeys(keys: Map<Index, IndexKey[]>, id: string, action: 'add' | 'remove'): void {
    const record = this.recordOf(id);
    for (const [index, indexKeys] of keys) index[action](indexKeys, id, record);
  }
}

/** mongod's default name for an index key pattern, e.g. `{ a: 1, 'b.c': -1 }` → `a_1_b.c_-1`. */
export function defaultIndexName(key: Doc): string {
  return Object.entries(key)
    .map(([field, direction]) => `${field}_${direction}`)
    .join('_');
}

/** All databases of the engine, in memory. It is the DurableState the journal recovers into and snapshots. */
export class Store implements DurableState {
  readonly databases = new Map<string, Map<string, Collection>>();

  /** `spill`: where long numeric arrays of stored documents are kept instead of the heap (none: in the heap). */
  constructor(
    readonly changes: ChangeLog = new ChangeLog(),
    private readonly spill?: VectorSpill,
  ) {}

  /** Rewrites the spill file with only the arrays stored documents still hold (what deleted ones left is gone). */
  compactSpill(): void {
    this.spill?.compact();
  }

  /** Every stored document of every collection. */
  *documents(): Generator<Doc> {
    for (const collections of this.databases.values())
      for (const collection of collections.values()) yield* collection.docs.values();
  }

  collection(db: string, name: string): Collection | undefined {
    return this.databases.get(db)?.get(name);
  }

  collections(db: string): Collection[] {
    return [...(this.databases.get(db)?.values() ?? [])];
  }

  /** Creates a collection (journaled when `ops` is given). The caller checks that it does not exist. */
  createCollection(db: string, name: string, options: Doc, ops: JournalOp[] | null): Collection {
    validateCollectionName(db, name);
    let collections = this.databases.get(db);
    if (!collections) this.databases.set(db, (collections = new Map()));
    const collection = new Collection(db, name, options, this.spill);
    collections.set(name, collection);
    ops?.push({ t: 'createColl', db, coll: name, options });
    return collection;
  }

  /** The collection, created implicitly as an insert or upsert does in mongod. */
  ensureCollection(db: string, name: string, ops: JournalOp[] | null): Collection {
    return this.collection(db, name) ?? this.createCollection(db, name, {}, ops);
  }

  /** Drops a collection; `renamedTo` marks the drop that ends a rename (a `rename` change event). */
  dropCollection(db: string, name: string, ops: JournalOp[] | null, renamedTo?: { db: string; coll: string }): boolean {
    const collections = this.databases.get(db);
    if (!collections?.delete(name)) return false;
    if (!collections.size) this.databases.delete(db);
    ops?.push(renamedTo ? { t: 'dropColl', db, coll: name, to: renamedTo } : { t: 'dropColl', db, coll: name });
    return true;
  }

  dropDatabase(db: string, ops: JournalOp[] | null): void {
    if (this.databases.delete(db)) ops?.push({ t: 'dropDb', db });
  }

  // DurableState: replay applies ops without enforcing constraints (they were enforced when first applied).

  /** Packed arrays (packed.ts) of recovered documents go to the spill file as they are. */
  get keepsPacked(): boolean {
    return this.spill !== undefined;
  }

  reset(): void {
    this.databases.clear();
    this.changes.reset();
    this.spill?.reset();
  }

  loadImage(images: DatabaseImage[]): void {
    for (const image of images) {
      for (const coll of image.collections) {
        const collection =
          this.collection(image.name, coll.name) ?? this.createCollection(image.name, coll.name, coll.options, null);
        for (const spec of coll.indexes) {
          if (spec.name === ID_INDEX.name || collection.indexes.has(spec.name)) continue;
          collection.addIndex(spec, null, false);
          // The snapshot's documents come next: their keys are computed when the index is first used.
          if (collection.docs.size === 0) collection.indexes.get(spec.name)!.defer(collection);
        }
        for (const spec of coll.searchIndexes ?? []) collection.putSearchIndex(spec, null);
        for (const doc of coll.docs) this.put(collection, doc, true);
      }
    }
  }

  apply(op: JournalOp): void {
    switch (op.t) {
      case 'put':
        this.put(this.ensureCollection(op.db, op.coll, null), op.doc);
        break;
      case 'patch': {
        const collection = this.collection(op.db, op.coll);
        const doc = collection?.get(op.id);
        if (!doc)
          throw new Error(
            `durability: a journaled update of ${op.db}.${op.coll} names a document that does not exist: ${formatValue(op.id)}`,
          );
        this.put(collection!, applyPatch(doc, op.steps));
        break;
      }
      case 'del': {
        const collection = this.collection(op.db, op.coll);
        const doc = collection?.get(op.id);
        if (doc) collection!.remove(doc, null);
        break;
      }
      case 'createColl':
        if (!this.collection(op.db, op.coll)) this.createCollection(op.db, op.coll, op.options, null);
        break;
      case 'dropColl':
        this.dropCollection(op.db, op.coll, null);
        break;
      case 'dropDb':
        this.dropDatabase(op.db, null);
        break;
      case 'createIndex': {
        const collection = this.ensureCollection(op.db, op.coll, null);
        if (!collection.indexes.has(op.spec.name)) collection.addIndex(op.spec, null, false);
        break;
      }
      case 'dropIndex':
        this.collection(op.db, op.coll)?.dropIndex(op.name, null);
        break;
      case 'searchIndex':
        this.ensureCollection(op.db, op.coll, null).putSearchIndex(op.spec, null);
        break;
      case 'dropSearchIndex':
        this.collection(op.db, op.coll)?.dropSearchIndex(op.name, null);
        break;
    }
    this.changes.replay(op);
  }

  sidecar(): Document[] {
    return this.changes.image();
  }

  loadSidecar(docs: Document[]): void {
    this.changes.load(docs);
  }

  image(): DatabaseImage[] {
    return [...this.databases].map(([name, collections]) => ({
      name,
      collections: [...collections.values()].map((collection) => ({
        name: collection.name,
        options: collection.options,
        indexes: collection.indexSpecs(),
        searchIndexes: [...collection.searchIndexes.values()],
        // Copied now: the map keeps changing while the snapshot is written; the documents themselves never do.
        docs: [...collection.docs.values()],
      })),
    }));
  }

  private put(collection: Collection, doc: Doc, loaded = false): void {
    const id = canonicalKey(doc._id);
    const current = collection.docs.get(id);
    const record = collection.recordOf(id);
    // Kept first: the indexes then read the document as stored (with its packed arrays spilled).
    collection.keep(id, doc, loaded);
    for (const index of collection.indexes.values()) {
      if (index.pending) continue;
      if (current) index.remove(index.keysOf(current), id, record);
      index.add(index.keysOf(doc), id, record);
    }
  }
}

/** Rejects names mongod rejects (empty, `$`, NUL, `system.` prefix). */
function validateCollectionName(db: string, name: string): void {
  if (!name || name.includes('$') || name.includes('\0') || name.startsWith('.') || name.startsWith('system.')) {
    throw new CommandError(ErrorCode.InvalidNamespace, `Invalid collection name: ${db}.${name}`);
  }
}

/** The document as mongod stores it: `_id` first, generated when missing. */
export function withIdFirst(doc: Doc): Doc {
  if (doc._id === undefined) return { _id: new ObjectId(), ...doc };
  for (const key in doc) {
    if (key === '_id') return doc;
    break;
  }
  const { _id, ...rest } = doc;
  return { _id, ...rest };
}
