import { Long, type Document } from 'bson';
import { isAbsolute } from 'node:path';
import type { EngineLog, FrozenImage, IndexSpec, JournalOp } from './durability';
import { writeBackup } from './backup';
import { runAggregate } from './aggregate';
import { openChangeStream, streamGetMore } from './change-streams';
import { CursorManager, DEFAULT_FIRST_BATCH } from './cursors';
import { runWithin } from './deadline';
import { CommandError, ErrorCode, asCommandError, badValue, typeMismatch } from './errors';
import { compileFilter, letVariables, parseCollation, stringOrder } from './filter';
import { compileProjection } from './projection';
import { distinctFromIndex, findDocuments } from './query';
import { Collection, Store, defaultIndexName, withIdFirst } from './store';
import { compileUpdate, upsertSeed, type CompiledUpdate } from './update';
import { checkPipelineLength } from './limits';
import { MAX_MESSAGE_SIZE } from './wire';
import { createSearchIndexes, dropSearchIndex, updateSearchIndex } from './vector-search';
import {
  bsonTypeName,
  canonicalKey,
  compareValues,
  immutableSize,
  nestingDepth,
  isPlainObject,
  pathValues,
  sameDocument,
  toNumber,
  type Doc,
} from './values';

/** Where acknowledged writes go before the reply (the DurableLog). */
export interface Journal {
  append(ops: JournalOp[]): Promise<void>;
  /**
   * The data directory, and the state as a snapshot holds it, taken synchronously: what `createBackup` writes
   * (absent from a journal that keeps no files).
   */
  readonly dir?: string;
  image?(): FrozenImage;
  /** Writes a snapshot of the state now and deletes the journals and snapshots it covers (see DurableLog.compact). */
  compact?(): Promise<void>;
}

/** What a command handler sees. */
export interface CommandContext {
  /** The command's `$db`. */
  db: string;
  engine: Engine;
  connectionId: number;
  /** The command's changes, journaled by the engine before it replies (also when the command then fails). */
  ops: JournalOp[];
}

/**
 * Handlers are synchronous, so each command is atomic with respect to every other. Only a change stream's
 * getMore, which reads and then waits for events, returns a promise.
 */
type Handler = (command: Document, context: CommandContext) => Document | Promise<Document>;

const MAX_BSON_SIZE = 16 * 1024 * 1024;
/** mongod's default ttlMonitorSleepSecs. */
export const TTL_MONITOR_INTERVAL_MS = 60_000;
const MAX_WIRE_VERSION = 21; // MongoDB 7.0
const SERVER_VERSION = '7.0.0';

/** mongod's code for a field its IDL parser does not know (no code name: `Location40415`). */
const UNKNOWN_FIELD = 40415;

/** Fields that make a command part of a transaction, which a standalone server refuses. */
const TRANSACTION_FIELDS = ['txnNumber', 'startTransaction', 'autocommit'];

/** Commands that apply a `collation` (see parseCollation) to their own filter, sort or values. */
const COLLATING_COMMANDS = new Set([
  'find',
  'count',
  'distinct',
  'aggregate',
  'update',
  'delete',
  'findAndModify',
  'findandmodify',
]);

/**
 * A collation anywhere else (a collection's or an index's default) would change how stored strings compare, which
 * the engine does not do: refused with NotImplemented rather than answered in binary order.
 */
function rejectCollation(name: string, command: Document): void {
  if (COLLATING_COMMANDS.has(name)) return;
  const collation = command.collation;
  if (collation !== undefined && !(isPlainObject(collation) && collation.locale === 'simple')) {
    throw new CommandError(
      ErrorCode.NotImplemented,
      `collation on ${name} is not supported by the embedded engine (only { locale: "simple" })`,
    );
  }
}

const refuseCollated = (what: string): CommandError =>
  new CommandError(
    ErrorCode.NotImplemented,
    `${what} with a non-simple collation is not supported by the embedded engine`,
  );

/** Refuses the parts of an update whose comparisons a collation would change and the engine does not collate. */
function checkCollatedUpdate(update: unknown, arrayFilters: unknown): void {
  if (Array.isArray(update)) throw refuseCollated('a pipeline update');
  if (arrayFilters !== undefined) throw refuseCollated('arrayFilters');
  if (!isPlainObject(update)) return;
  for (const [op, fields] of Object.entries(update)) {
    if (op === '$addToSet' || op === '$pull' || op === '$pullAll') throw refuseCollated(op);
    const paths = isPlainObject(fields) ? Object.keys(fields) : [];
    if (paths.some((path) => path.split('.').some((segment) => segment === '$' || segment.startsWith('$['))))
      throw refuseCollated('a positional update');
  }
}

/**
 * Thrown by Engine.execute when a `failCommand` fail point with `closeConnection` fires: the server closes the
 * connection without replying, as mongod does.
 */
export class CloseConnection extends Error {
  constructor(command: string) {
    super(`fail point closed the connection on '${command}'`);
    this.name = 'CloseConnection';
  }
}

/** mongod's `failCommand` fail point, as the drivers' spec tests configure it (only the fields supported here). */
interface FailCommand {
  /** How many more commands it fails (Infinity for alwaysOn). */
  remaining: number;
  commands: Set<string>;
  errorCode?: number;
  errorLabels?: string[];
  closeConnection: boolean;
}

const FAIL_COMMAND_FIELDS = new Set(['failCommands', 'errorCode', 'errorLabels', 'closeConnection']);

export interface EngineOptions {
  /** Serve test-only commands (`configureFailPoint`), as mongod does with `enableTestCommands=1`. Default false. */
  enableTestCommands?: boolean;
  /** Milliseconds between TTL passes (mongod's ttlMonitorSleepSecs). Default 60,000. */
  ttlIntervalMs?: number;
}

/** The engine: storage, cursors and the journal, executing one command at a time. */
export class Engine {
  readonly cursors = new CursorManager();
  private readonly ttlMonitor: NodeJS.Timeout;
  /** The `failCommand` fail point while it is on. */
  failCommand?: FailCommand;

  constructor(
    readonly store: Store,
    private readonly journal: Journal,
    private readonly log: EngineLog = () => undefined,
    readonly options: EngineOptions = {},
  ) {
    this.ttlMonitor = setInterval(() => {
      this.expireDocuments(new Date()).catch((error: unknown) =>
        this.log(`embedded engine: TTL pass failed: ${String(error)}`, 'error'),
      );
    }, options.ttlIntervalMs ?? TTL_MONITOR_INTERVAL_MS);
    this.ttlMonitor.unref();
  }

  /**
   * Deletes documents whose TTL index field (a date, or the earliest date of an array) is older than the
   * index's expireAfterSeconds, as mongod's TTL monitor does (only documents a partial index holds); returns how many
   * were removed. The removals are delete events of the change streams like any other delete.
   */
  async expireDocuments(now: Date): Promise<number> {
    const ops: JournalOp[] = [];
    for (const collections of this.store.databases.values()) {
      for (const collection of collections.values()) {
        for (const index of collection.indexes.values()) {
          const ttl = toNumber(index.spec.expireAfterSeconds);
          if (ttl === undefined || index.fields.length !== 1) continue;
          const cutoff = now.getTime() - ttl * 1000;
          const expired = [...collection.docs.values()].filter((doc) => {
            if (!index.covers(doc)) return false;
            const dates = pathValues(doc, index.fields[0]).filter((value): value is Date => value instanceof Date);
            return dates.length > 0 && Math.min(...dates.map((date) => date.getTime())) <= cutoff;
          });
          for (const doc of expired) collection.remove(doc, ops);
        }
      }
    }
    const removed = ops.length;
    if (removed) await this.commit(ops);
    return removed;
  }

  /**
   * Runs a command and returns its reply document. Failures become `{ ok: 0, code, codeName, errmsg }`; the only
   * throw is CloseConnection (a fail point's closeConnection). The writes of a command are applied synchronously
   * and made durable before the returned promise resolves.
   */
  async execute(command: Document, connectionId: number): Promise<Document> {
    const name = Object.keys(command)[0];
    const ops: JournalOp[] = [];
    let reply: Document;
    try {
      const handler = name !== undefined && Object.hasOwn(HANDLERS, name) ? HANDLERS[name] : undefined;
      if (!handler) throw new CommandError(ErrorCode.CommandNotFound, `no such command: '${name ?? ''}'`);
      this.fireFailPoint(name!);
      if (TRANSACTION_FIELDS.some((field) => field in command)) {
        throw new CommandError(
          ErrorCode.IllegalOperation,
          'Transaction numbers are only allowed on a replica set member or mongos',
        );
      }
      const db = command.$db;
      if (typeof db !== 'string' || !db) throw badValue('Missing or invalid $db');
      if (/[/\\. "$*<>:|?\0]/.test(db) || db.length >= 64)
        throw new CommandError(ErrorCode.InvalidNamespace, `Invalid database name: '${db}'`);
      rejectCollation(name!, command);
      // A getMore's maxTimeMS is how long a change stream waits for events, not a limit on work.
      const maxTimeMS = name === 'getMore' ? undefined : toNumber(command.maxTimeMS);
      const result = runWithin(maxTimeMS, () => handler(command, { db, engine: this, connectionId, ops }));
      // Awaited only when it is a promise: a write must reach `commit` in the tick that applied it.
      reply = result instanceof Promise ? await result : result;
    } catch (error) {
      if (error instanceof CloseConnection) throw error;
      reply = asCommandError(error).toReply();
    }
    if (ops.length) {
      try {
        await this.commit(ops);
      } catch (error) {
        return new CommandError(
          ErrorCode.InternalError,
          `the write could not be made durable: ${(error as Error).message}`,
        ).toReply();
      }
    }
    return reply;
  }

  /** Writes a consistent copy of the data into the new directory `to` (see backup.ts); the state is taken now. */
  backup(to: string): Promise<{ backupDir: string; files: string[] }> {
    const { dir } = this.journal;
    if (dir === undefined || !this.journal.image)
      throw new CommandError(ErrorCode.IllegalOperation, 'this engine keeps no data directory to back up');
    return writeBackup(dir, to, this.journal.image());
  }

  /**
   * Rewrites the data directory from the state now: a new snapshot replaces every journal and older snapshot, and the
   * spill file keeps only live arrays, so nothing deleted before the call is left in any file under the directory.
   */
  async compact(): Promise<void> {
    if (!this.journal.compact)
      throw new CommandError(ErrorCode.IllegalOperation, 'this engine keeps no data directory to compact');
    await this.journal.compact();
    this.store.compactSpill();
  }

  /** Fails `command` as the `failCommand` fail point says, if it is on and names it. */
  private fireFailPoint(command: string): void {
    const point = this.failCommand;
    if (!point || !point.commands.has(command)) return;
    if (--point.remaining <= 0) this.failCommand = undefined;
    if (point.closeConnection) throw new CloseConnection(command);
    const labels = point.errorLabels ? { errorLabels: point.errorLabels } : {};
    throw new CommandError(
      point.errorCode ?? ErrorCode.InternalError,
      `Failing command ${command} via 'failCommand' failpoint`,
      labels,
    );
  }

  close(): void {
    clearInterval(this.ttlMonitor);
    this.cursors.close();
    this.store.changes.release();
  }

  /**
   * Records the change events of applied ops, journals the ops (after the clock op of those events) and then
   * makes the events visible to change streams. Must be called in the tick that applied the ops, so that a
   * snapshot's image and change log agree with the journal it seals.
   */
  private async commit(ops: JournalOp[]): Promise<void> {
    const changes = this.store.changes;
    const clock = changes.record(ops);
    const last = changes.lastSeq;
    if (clock) ops.unshift(clock);
    await this.journal.append(ops);
    if (clock) changes.publish(last);
  }
}

// ---------- argument helpers ----------

function collectionName(command: Document, field: string): string {
  const name = command[field];
  if (typeof name !== 'string') {
    throw new CommandError(ErrorCode.InvalidNamespace, `collection name has invalid type ${bsonTypeName(name)}`);
  }
  if (!name) throw new CommandError(ErrorCode.InvalidNamespace, 'Invalid namespace specified');
  return name;
}

function optionalObject(command: Document, field: string, commandName: string): Doc | undefined {
  const value = command[field];
  if (value === undefined || value === null) return undefined;
  if (!isPlainObject(value)) {
    throw typeMismatch(
      `BSON field '${commandName}.${field}' is the wrong type '${bsonTypeName(value)}', expected type 'object'`,
    );
  }
  return value;
}

function optionalCount(command: Document, field: string, commandName: string): number | undefined {
  const value = command[field];
  if (value === undefined || value === null) return undefined;
  const n = toNumber(value);
  if (n === undefined || !Number.isFinite(n)) {
    throw typeMismatch(
      `BSON field '${commandName}.${field}' is the wrong type '${bsonTypeName(value)}', expected types '[long, int, decimal, double]'`,
    );
  }
  return Math.trunc(n);
}

function nonNegative(value: number | undefined, field: string): number | undefined {
  if (value !== undefined && value < 0)
    throw new CommandError(51024, `BSON field '${field}' value must be >= 0, actual value '${value}'`);
  return value;
}

function requireArray(command: Document, field: string, commandName: string): unknown[] {
  const value = command[field];
  if (!Array.isArray(value)) {
    throw typeMismatch(
      `BSON field '${commandName}.${field}' is the wrong type '${bsonTypeName(value)}', expected type 'array'`,
    );
  }
  return value;
}

/** A stored document may not exceed 16 MiB, the limit mongod enforces for every write. */
function checkSize(doc: Doc, update: boolean): void {
  const size = immutableSize(doc);
  if (size <= MAX_BSON_SIZE) return;
  if (update) throw new CommandError(17419, `Resulting document after update is larger than ${MAX_BSON_SIZE}`);
  throw new CommandError(
    ErrorCode.BSONObjectTooLarge,
    `object to insert too large. size in bytes: ${size}, max size: ${MAX_BSON_SIZE}`,
  );
}

/** mongod's depth limit for stored documents: maxBSONDepth (200) less the 20 levels it keeps for its own wrapping. */
export const MAX_DOCUMENT_DEPTH = 180;

/**
 * Refuses, as mongod does, a document nested deeper than MAX_DOCUMENT_DEPTH (the document itself is level 1; an empty
 * object or array adds no level), so a stored document can always be read back, embedded in replies and change
 * events. Iterative (a hostile document must not exhaust the stack here either), cached per immutable subtree.
 */
function checkDepth(doc: Doc): void {
  if (nestingDepth(doc, MAX_DOCUMENT_DEPTH) === undefined) {
    throw new CommandError(ErrorCode.Overflow, `Document exceeds maximum nesting depth of ${MAX_DOCUMENT_DEPTH}`);
  }
}

/** Everything mongod checks before storing a document: its _id, depth and size. */
function checkStorable(doc: Doc, update: boolean): void {
  validateId(doc);
  checkDepth(doc);
  checkSize(doc, update);
}

function validateId(doc: Doc): void {
  const id = doc._id;
  if (Array.isArray(id) || id instanceof RegExp || id === undefined) {
    throw new CommandError(ErrorCode.InvalidIdField, `The '_id' value cannot be of type ${bsonTypeName(id)}`);
  }
  const dollar = isPlainObject(id) ? dollarPrefixedField(id) : undefined;
  if (dollar !== undefined) {
    throw new CommandError(
      ErrorCode.DollarPrefixedFieldName,
      `_id fields may not contain '$'-prefixed fields: ${dollar} is not valid for storage.`,
    );
  }
}

/** DBRef's own fields are the only `$`-prefixed names mongod stores inside an `_id` document. */
const DBREF_FIELDS = new Set(['$ref', '$id', '$db']);

/** The first `$`-prefixed field name at any depth of `doc` (arrays included), other than DBRef's; undefined if none. */
function dollarPrefixedField(doc: Doc): string | undefined {
  for (const [key, value] of Object.entries(doc)) {
    if (key.startsWith('$') && !DBREF_FIELDS.has(key)) return key;
    const nested = isPlainObject(value)
      ? dollarPrefixedField(value)
      : Array.isArray(value)
        ? dollarPrefixedField({ ...value })
        : undefined;
    if (nested !== undefined) return nested;
  }
  return undefined;
}

const ok = (reply: Doc = {}): Doc => ({ ...reply, ok: 1 });

// ---------- handshake and server info ----------

/** The handshake reply: a standalone server (no setName), so drivers send no transaction numbers. */
function hello(connectionId: number, legacy: boolean): Doc {
  return ok({
    helloOk: true,
    ...(legacy ? { ismaster: true } : { isWritablePrimary: true }),
    maxBsonObjectSize: MAX_BSON_SIZE,
    maxMessageSizeBytes: MAX_MESSAGE_SIZE,
    maxWriteBatchSize: 100_000,
    localTime: new Date(),
    logicalSessionTimeoutMinutes: 30,
    connectionId,
    minWireVersion: 0,
    maxWireVersion: MAX_WIRE_VERSION,
    readOnly: false,
  });
}

/** The reply to a handshake sent as legacy OP_QUERY (the driver's first message on each connection). */
export const opQueryHello = (command: string, connectionId: number): Doc => hello(connectionId, command !== 'hello');

/** Commands mongod answers over OP_QUERY; anything else there gets UnsupportedOpQueryCommand. */
export const OP_QUERY_COMMANDS = new Set(['hello', 'isMaster', 'ismaster']);

function buildInfo(): Doc {
  return ok({
    version: SERVER_VERSION,
    gitVersion: 'hindsight-embedded',
    versionArray: [7, 0, 0, 0],
    bits: 64,
    debug: false,
    maxBsonObjectSize: MAX_BSON_SIZE,
    storageEngines: ['hindsight-journal'],
    modules: [],
  });
}

// ---------- reads ----------

function find(command: Document, { db, engine }: CommandContext): Doc {
  const name = collectionName(command, 'find');
  const filter = optionalObject(command, 'filter', 'find');
  const sort = optionalObject(command, 'sort', 'find');
  const projection = optionalObject(command, 'projection', 'find');
  const skip = nonNegative(optionalCount(command, 'skip', 'find'), 'skip');
  const rawLimit = optionalCount(command, 'limit', 'find');
  const limit = rawLimit === undefined ? undefined : Math.abs(rawLimit);
  const batchSize = nonNegative(optionalCount(command, 'batchSize', 'find'), 'batchSize');
  const project = compileProjection(projection);
  const variables = letVariables(command, 'find');
  const collation = parseCollation(command.collation);
  const docs = findDocuments(engine.store.collection(db, name), { filter, sort, skip, limit, variables, collation });
  const singleBatch = command.singleBatch === true || (rawLimit !== undefined && rawLimit < 0);
  return engine.cursors.firstBatch(`${db}.${name}`, { docs, project, filter }, batchSize, singleBatch);
}

function getMore(command: Document, { db, engine }: CommandContext): Doc {
  const id = command.getMore;
  if (!(id instanceof Long)) {
    throw typeMismatch(`BSON field 'getMore.getMore' is the wrong type '${bsonTypeName(id)}', expected type 'long'`);
  }
  const name = collectionName(command, 'collection');
  const batchSize = nonNegative(optionalCount(command, 'batchSize', 'getMore'), 'batchSize');
  const ns = `${db}.${name}`;
  const stream = engine.cursors.stream(id, ns);
  if (!stream) return engine.cursors.getMore(id, ns, batchSize);
  const maxTimeMS = nonNegative(optionalCount(command, 'maxTimeMS', 'getMore'), 'maxTimeMS');
  return streamGetMore(stream, batchSize, maxTimeMS).then((nextBatch) => {
    if (stream.closed) engine.cursors.closeStream(id);
    return ok({ cursor: { nextBatch, postBatchResumeToken: stream.token, id: stream.closed ? Long.ZERO : id, ns } });
  });
}

function killCursors(command: Document, { engine }: CommandContext): Doc {
  collectionName(command, 'killCursors');
  const ids = requireArray(command, 'cursors', 'killCursors').map((id) => {
    if (!(id instanceof Long))
      throw typeMismatch(`Field 'cursors' contains an element that is not of type long: ${String(id)}`);
    return id;
  });
  const { killed, notFound } = engine.cursors.kill(ids);
  return ok({ cursorsKilled: killed, cursorsNotFound: notFound, cursorsAlive: [], cursorsUnknown: [] });
}

function count(command: Document, { db, engine }: CommandContext): Doc {
  const name = collectionName(command, 'count');
  const filter = optionalObject(command, 'query', 'count');
  const skip = nonNegative(optionalCount(command, 'skip', 'count'), 'skip');
  const limit = optionalCount(command, 'limit', 'count');
  const collation = parseCollation(command.collation);
  const collection = engine.store.collection(db, name);
  if (collection && (!filter || !Object.keys(filter).length)) {
    const total = Math.max(collection.docs.size - (skip ?? 0), 0);
    return ok({ n: limit ? Math.min(total, Math.abs(limit)) : total });
  }
  return ok({ n: findDocuments(collection, { filter, skip, limit: limit && Math.abs(limit), collation }).length });
}

function distinct(command: Document, { db, engine }: CommandContext): Doc {
  const name = collectionName(command, 'distinct');
  const key = command.key;
  if (typeof key !== 'string')
    throw typeMismatch(`BSON field 'distinct.key' is the wrong type '${bsonTypeName(key)}', expected type 'string'`);
  const filter = optionalObject(command, 'query', 'distinct');
  const collation = parseCollation(command.collation);
  const collection = engine.store.collection(db, name);
  const indexed = collection && !collation ? distinctFromIndex(collection, key, filter) : undefined;
  if (indexed) return ok({ values: [...indexed.values()].sort(compareValues) });
  const docs = findDocuments(collection, { filter, collation });
  if (collation) {
    // Values equal under the collation are one value: the first found stands for them, as in mongod.
    const order = stringOrder(collation);
    const values: unknown[] = [];
    for (const doc of docs) {
      for (const value of pathValues(doc, key)) {
        if (value !== undefined && !values.some((seen) => compareValues(seen, value, order) === 0)) values.push(value);
      }
    }
    return ok({ values: values.sort((a, b) => compareValues(a, b, order)) });
  }
  const seen = new Map<string, unknown>();
  for (const doc of docs) {
    for (const value of pathValues(doc, key)) {
      if (value === undefined) continue;
      const canonical = canonicalKey(value);
      if (!seen.has(canonical)) seen.set(canonical, value);
    }
  }
  return ok({ values: [...seen.values()].sort(compareValues) });
}

function aggregate(command: Document, { db, engine, ops }: CommandContext): Doc {
  const target = command.aggregate;
  if (target !== 1 && typeof target !== 'string') {
    throw typeMismatch(`Invalid input namespace, ${bsonTypeName(target)}`);
  }
  const pipeline = requireArray(command, 'pipeline', 'aggregate');
  checkPipelineLength(pipeline);
  const cursorOptions = optionalObject(command, 'cursor', 'aggregate');
  if (!cursorOptions && command.explain !== true) {
    throw new CommandError(
      ErrorCode.FailedToParse,
      "The 'cursor' option is required, except for aggregate with the explain argument",
    );
  }
  if (command.explain === true)
    throw new CommandError(ErrorCode.NotImplemented, 'explain is not supported by the embedded engine');
  const batchSize = nonNegative(optionalCount(cursorOptions ?? {}, 'batchSize', 'aggregate.cursor'), 'batchSize');
  if (isPlainObject(pipeline[0]) && '$changeStream' in pipeline[0]) {
    const { cursor, ns } = openChangeStream(
      engine.store.changes,
      db,
      typeof target === 'string' ? target : undefined,
      pipeline,
    );
    // The first batch never waits; the cursor stays open (tailable) until an invalidate closes it.
    const firstBatch = cursor.batch(batchSize ?? DEFAULT_FIRST_BATCH);
    const id = cursor.closed ? Long.ZERO : engine.cursors.openStream(ns, cursor);
    return ok({ cursor: { firstBatch, postBatchResumeToken: cursor.token, id, ns } });
  }
  if (pipeline.slice(1).some((stage) => isPlainObject(stage) && '$changeStream' in stage)) {
    throw new CommandError(40602, '$changeStream is only valid as the first stage in a pipeline');
  }
  const collation = parseCollation(command.collation);
  const docs = runAggregate(
    engine.store,
    db,
    typeof target === 'string' ? target : undefined,
    pipeline,
    ops,
    letVariables(command, 'aggregate'),
    collation,
  );
  const ns = typeof target === 'string' ? `${db}.${target}` : `${db}.$cmd.aggregate`;
  return engine.cursors.firstBatch(ns, { docs }, batchSize, false);
}

// ---------- writes ----------

function insert(command: Document, { db, engine, ops }: CommandContext): Doc {
  const name = collectionName(command, 'insert');
  const documents = requireArray(command, 'documents', 'insert');
  const ordered = command.ordered !== false;
  const collection = engine.store.ensureCollection(db, name, ops);
  const writeErrors: Doc[] = [];
  let n = 0;
  for (let i = 0; i < documents.length; i++) {
    try {
      const raw = documents[i];
      if (!isPlainObject(raw)) throw typeMismatch('documents must be objects');
      const doc = withIdFirst(raw);
      checkStorable(doc, false);
      collection.insert(doc, ops);
      n++;
    } catch (error) {
      writeErrors.push(asCommandError(error).toWriteError(i));
      if (ordered) break;
    }
  }
  return ok({ n, ...(writeErrors.length ? { writeErrors } : {}) });
}

interface UpdateOutcome {
  matched: number;
  modified: number;
  upsertedId?: unknown;
  /** The document before (or, with `returnNew`, after) the change, for findAndModify. */
  value?: Doc | null;
}

/** Applies one update statement; throws (after applying nothing more) on the first failing document. */
function updateStatement(
  collection: Collection | undefined,
  store: Store,
  db: string,
  name: string,
  filter: Doc | undefined,
  update: CompiledUpdate,
  options: { multi: boolean; upsert: boolean; sort?: Doc; returnNew?: boolean; variables?: Doc; collation?: Doc },
  ops: JournalOp[],
): UpdateOutcome {
  if (update.kind === 'replacement' && options.multi)
    throw new CommandError(ErrorCode.FailedToParse, 'multi update is not supported for replacement-style update');
  const matches = findDocuments(collection, {
    filter,
    sort: options.sort,
    limit: options.multi ? undefined : 1,
    variables: options.variables,
    collation: options.collation,
  });
  if (matches.length) {
    let modified = 0;
    let value: Doc | null = null;
    for (const doc of matches) {
      const next = update.apply(doc, { filter, isInsert: false });
      const changed = !sameDocument(next, doc);
      if (changed) {
        checkStorable(next, true);
        collection!.replace(doc, next, ops, update.kind === 'replacement' ? 'replace' : 'update');
        modified++;
      }
      value = options.returnNew ? (changed ? next : doc) : doc;
    }
    return { matched: matches.length, modified, value };
  }
  if (!options.upsert) return { matched: 0, modified: 0, value: null };
  const seed = upsertSeed(filter);
  let created =
    update.kind === 'replacement'
      ? update.apply(seed._id === undefined ? {} : { _id: seed._id }, { filter, isInsert: true })
      : update.apply(seed, { filter, isInsert: true });
  created = withIdFirst(created);
  checkStorable(created, true);
  store.ensureCollection(db, name, ops).insert(created, ops);
  return { matched: 0, modified: 0, upsertedId: created._id, value: options.returnNew ? created : null };
}

function update(command: Document, { db, engine, ops }: CommandContext): Doc {
  const name = collectionName(command, 'update');
  const statements = requireArray(command, 'updates', 'update');
  const ordered = command.ordered !== false;
  const variables = letVariables(command, 'update');
  // An update statement's `sort` came with 8.0: the 7.0 this engine reports refuses the whole command as its parser does.
  if (statements.some((statement) => isPlainObject(statement) && statement.sort !== undefined)) {
    throw new CommandError(UNKNOWN_FIELD, "BSON field 'update.updates.sort' is an unknown field.");
  }
  const writeErrors: Doc[] = [];
  const upserted: Doc[] = [];
  let n = 0;
  let nModified = 0;
  for (let i = 0; i < statements.length; i++) {
    try {
      const statement = statements[i];
      if (!isPlainObject(statement)) throw typeMismatch('update statements must be objects');
      const filter = optionalObject(statement, 'q', 'update.updates');
      const collation = parseCollation(statement.collation);
      if (collation) checkCollatedUpdate(statement.u, statement.arrayFilters);
      const compiled = compileUpdate(statement.u, statement.arrayFilters, variables);
      const multi = statement.multi === true;
      const outcome = updateStatement(
        engine.store.collection(db, name),
        engine.store,
        db,
        name,
        filter,
        compiled,
        { multi, upsert: statement.upsert === true, variables, collation },
        ops,
      );
      if (outcome.upsertedId !== undefined) {
        n++;
        upserted.push({ index: i, _id: outcome.upsertedId });
      } else {
        n += outcome.matched;
        nModified += outcome.modified;
      }
    } catch (error) {
      writeErrors.push(asCommandError(error).toWriteError(i));
      if (ordered) break;
    }
  }
  return ok({
    n,
    nModified,
    ...(upserted.length ? { upserted } : {}),
    ...(writeErrors.length ? { writeErrors } : {}),
  });
}

function remove(command: Document, { db, engine, ops }: CommandContext): Doc {
  const name = collectionName(command, 'delete');
  const statements = requireArray(command, 'deletes', 'delete');
  const ordered = command.ordered !== false;
  const variables = letVariables(command, 'delete');
  const writeErrors: Doc[] = [];
  let n = 0;
  for (let i = 0; i < statements.length; i++) {
    try {
      const statement = statements[i];
      if (!isPlainObject(statement)) throw typeMismatch('delete statements must be objects');
      const filter = optionalObject(statement, 'q', 'delete.deletes');
      const limit = toNumber(statement.limit);
      if (limit !== 0 && limit !== 1)
        throw new CommandError(
          ErrorCode.FailedToParse,
          `The limit field in delete objects must be 0 or 1. Got ${String(statement.limit)}`,
        );
      const collection = engine.store.collection(db, name);
      const collation = parseCollation(statement.collation);
      const matches = findDocuments(collection, { filter, limit: limit === 1 ? 1 : undefined, variables, collation });
      for (const doc of matches) collection!.remove(doc, ops);
      n += matches.length;
    } catch (error) {
      writeErrors.push(asCommandError(error).toWriteError(i));
      if (ordered) break;
    }
  }
  return ok({ n, ...(writeErrors.length ? { writeErrors } : {}) });
}

function findAndModify(command: Document, { db, engine, ops }: CommandContext): Doc {
  const name = collectionName(command, Object.keys(command)[0]);
  const filter = optionalObject(command, 'query', 'findAndModify');
  const sort = optionalObject(command, 'sort', 'findAndModify');
  const fields = optionalObject(command, 'fields', 'findAndModify');
  const removeDoc = command.remove === true;
  const upsert = command.upsert === true;
  const returnNew = command.new === true;
  if (removeDoc && command.update !== undefined)
    throw new CommandError(ErrorCode.FailedToParse, 'Cannot specify both an update and remove=true');
  if (!removeDoc && command.update === undefined)
    throw new CommandError(ErrorCode.FailedToParse, 'Either an update or remove=true must be specified');
  if (removeDoc && (upsert || returnNew))
    throw new CommandError(
      ErrorCode.FailedToParse,
      'Cannot specify both upsert=true and remove=true or new=true and remove=true',
    );
  const project = compileProjection(fields);
  const variables = letVariables(command, 'findAndModify');
  const collation = parseCollation(command.collation);
  if (collation && !removeDoc) checkCollatedUpdate(command.update, command.arrayFilters);
  const collection = engine.store.collection(db, name);
  let value: Doc | null = null;
  let lastErrorObject: Doc;
  if (removeDoc) {
    const [doc] = findDocuments(collection, { filter, sort, limit: 1, variables, collation });
    if (doc) collection!.remove(doc, ops);
    value = doc ?? null;
    lastErrorObject = { n: doc ? 1 : 0 };
  } else {
    const compiled = compileUpdate(command.update, command.arrayFilters, variables);
    const outcome = updateStatement(
      collection,
      engine.store,
      db,
      name,
      filter,
      compiled,
      { multi: false, upsert, sort, returnNew, variables, collation },
      ops,
    );
    value = outcome.value ?? null;
    lastErrorObject =
      outcome.upsertedId !== undefined
        ? { n: 1, updatedExisting: false, upserted: outcome.upsertedId }
        : { n: outcome.matched, updatedExisting: outcome.matched > 0 };
  }
  return ok({ lastErrorObject, value: value && project ? project(value, filter) : value });
}

// ---------- catalog ----------

/** Fields of any command that are not options of the collection `create` makes. */
const COMMAND_ONLY_FIELDS = new Set([
  'comment',
  'writeConcern',
  'lsid',
  '$clusterTime',
  '$db',
  '$readPreference',
  'apiVersion',
  'apiStrict',
  'apiDeprecationErrors',
]);

/** Options `create` accepts and stores; anything else is rejected like an unknown field. */
const COLLECTION_OPTIONS = new Set([
  'capped',
  'size',
  'max',
  'validator',
  'validationLevel',
  'validationAction',
  'collation',
  'timeseries',
  'expireAfterSeconds',
  'clusteredIndex',
  'changeStreamPreAndPostImages',
  'storageEngine',
  'indexOptionDefaults',
  'viewOn',
  'pipeline',
  ...COMMAND_ONLY_FIELDS,
]);

function create(command: Document, { db, engine, ops }: CommandContext): Doc {
  const name = collectionName(command, 'create');
  const options: Doc = {};
  for (const [key, value] of Object.entries(command)) {
    if (key === 'create' || COMMAND_ONLY_FIELDS.has(key)) continue;
    if (!COLLECTION_OPTIONS.has(key)) throw new CommandError(40415, `BSON field 'create.${key}' is an unknown field.`);
    options[key] = value;
  }
  if (options.viewOn !== undefined || options.timeseries !== undefined || options.capped === true) {
    throw new CommandError(
      ErrorCode.NotImplemented,
      'views, time series and capped collections are not supported by the embedded engine',
    );
  }
  const existing = engine.store.collection(db, name);
  if (existing) {
    // mongod 7 treats re-creating with identical options as success.
    if (sameDocument(existing.options, options)) return ok();
    throw new CommandError(ErrorCode.NamespaceExists, `Collection already exists. NS: ${db}.${name}`);
  }
  engine.store.createCollection(db, name, options, ops);
  return ok();
}

function drop(command: Document, { db, engine, ops }: CommandContext): Doc {
  const name = collectionName(command, 'drop');
  const collection = engine.store.collection(db, name);
  if (!collection) throw new CommandError(ErrorCode.NamespaceNotFound, 'ns not found');
  const nIndexesWas = collection.indexes.size + 1;
  engine.store.dropCollection(db, name, ops);
  engine.cursors.killNamespace(collection.ns);
  return ok({ nIndexesWas, ns: collection.ns });
}

/** `renameCollection` (an admin command with full namespaces), journaled as copy-then-drop. */
function renameCollection(command: Document, { db, engine, ops }: CommandContext): Doc {
  if (db !== 'admin')
    throw new CommandError(ErrorCode.Unauthorized, 'renameCollection may only be run against the admin database.');
  const parse = (ns: unknown, field: string): [string, string] => {
    const dot = typeof ns === 'string' ? ns.indexOf('.') : -1;
    if (dot <= 0 || dot === (ns as string).length - 1)
      throw new CommandError(ErrorCode.InvalidNamespace, `Invalid ${field} namespace: ${String(ns)}`);
    return [(ns as string).slice(0, dot), (ns as string).slice(dot + 1)];
  };
  const [fromDb, fromName] = parse(command.renameCollection, 'source');
  const [toDb, toName] = parse(command.to, 'target');
  const source = engine.store.collection(fromDb, fromName);
  if (!source)
    throw new CommandError(ErrorCode.NamespaceNotFound, `Source collection ${fromDb}.${fromName} does not exist`);
  if (source.ns === `${toDb}.${toName}`)
    throw new CommandError(ErrorCode.IllegalOperation, "Can't rename a collection to itself");
  if (engine.store.collection(toDb, toName)) {
    if (command.dropTarget !== true) throw new CommandError(ErrorCode.NamespaceExists, 'target namespace exists');
    engine.store.dropCollection(toDb, toName, ops);
    engine.cursors.killNamespace(`${toDb}.${toName}`);
  }
  const target = engine.store.createCollection(toDb, toName, source.options, ops);
  for (const index of source.indexes.values()) target.addIndex(index.spec, ops);
  for (const doc of source.docs.values()) target.insert(doc, ops, true);
  engine.store.dropCollection(fromDb, fromName, ops, { db: toDb, coll: toName });
  engine.cursors.killNamespace(source.ns);
  return ok();
}

function dropDatabase(command: Document, { db, engine, ops }: CommandContext): Doc {
  // Collection by collection first, as mongod does: watchers of a collection see its drop.
  for (const collection of engine.store.collections(db)) engine.store.dropCollection(db, collection.name, ops);
  if (ops.length) ops.push({ t: 'dropDb', db });
  engine.store.dropDatabase(db, null);
  engine.cursors.killNamespace(db);
  return ok({ dropped: db });
}

function listCollections(command: Document, { db, engine }: CommandContext): Doc {
  const filter = optionalObject(command, 'filter', 'listCollections');
  const nameOnly = command.nameOnly === true;
  const match = compileFilter(filter);
  const infos = engine.store
    .collections(db)
    .map((collection): Doc =>
      nameOnly
        ? { name: collection.name, type: 'collection' }
        : {
            name: collection.name,
            type: 'collection',
            options: collection.options,
            info: { readOnly: false, uuid: collection.uuid },
            idIndex: { v: 2, key: { _id: 1 }, name: '_id_' },
          },
    )
    .filter((info) => match(info));
  const cursorOptions = optionalObject(command, 'cursor', 'listCollections');
  const batchSize = nonNegative(optionalCount(cursorOptions ?? {}, 'batchSize', 'listCollections.cursor'), 'batchSize');
  return engine.cursors.firstBatch(`${db}.$cmd.listCollections`, { docs: infos }, batchSize ?? Infinity, false);
}

function listDatabases(command: Document, { engine }: CommandContext): Doc {
  const filter = optionalObject(command, 'filter', 'listDatabases');
  const match = compileFilter(filter);
  const databases: Doc[] = [];
  let totalSize = 0;
  for (const [name, collections] of engine.store.databases) {
    let docs = 0;
    for (const collection of collections.values()) docs += collection.docs.size;
    // Sizes are not tracked; a nominal figure keeps clients that sort or sum by size working.
    const sizeOnDisk = 4096 * (collections.size + docs);
    const info = command.nameOnly === true ? { name } : { name, sizeOnDisk, empty: docs === 0 };
    if (!match(info)) continue;
    totalSize += sizeOnDisk;
    databases.push(info);
  }
  databases.sort((a, b) => compareValues(a.name, b.name));
  return command.nameOnly === true
    ? ok({ databases })
    : ok({ databases, totalSize, totalSizeMb: Math.round(totalSize / 1048576) });
}

const INDEX_OPTIONS = new Set([
  'key',
  'name',
  'unique',
  'sparse',
  'partialFilterExpression',
  'expireAfterSeconds',
  'background',
  'hidden',
  'collation',
  'v',
  'ns',
  'weights',
  'default_language',
  'language_override',
  'textIndexVersion',
  '2dsphereIndexVersion',
  'bits',
  'min',
  'max',
  'wildcardProjection',
  'storageEngine',
]);
/** Options that make two indexes on the same key different indexes (mongod's "index options" comparison). */
const SIGNIFICANT_OPTIONS = [
  'unique',
  'sparse',
  'partialFilterExpression',
  'expireAfterSeconds',
  'collation',
  'hidden',
];

function normalizeIndexSpec(raw: unknown): IndexSpec {
  if (!isPlainObject(raw)) throw typeMismatch('index specification must be an object');
  for (const key of Object.keys(raw)) {
    if (!INDEX_OPTIONS.has(key))
      throw new CommandError(
        ErrorCode.InvalidIndexSpecificationOption,
        `The field '${key}' is not valid for an index specification. Specification: ${JSON.stringify(raw)}`,
      );
  }
  const key = raw.key;
  if (!isPlainObject(key) || !Object.keys(key).length)
    throw new CommandError(ErrorCode.CannotCreateIndex, 'Index keys cannot be empty.');
  for (const [field, direction] of Object.entries(key)) {
    if (typeof direction === 'string') {
      if (direction !== 'hashed') {
        throw new CommandError(
          ErrorCode.CannotCreateIndex,
          `Index type '${direction}' on field '${field}' is not supported by the embedded engine (no text, geo or wildcard indexes)`,
        );
      }
    } else {
      const n = toNumber(direction);
      if (n === undefined || n === 0 || Number.isNaN(n)) {
        throw new CommandError(
          ErrorCode.CannotCreateIndex,
          `Values in the index key pattern can only be numbers > 0, numbers < 0, or strings. Found ${String(direction)} for field ${field}`,
        );
      }
    }
    if (field.startsWith('$'))
      throw new CommandError(
        ErrorCode.CannotCreateIndex,
        `Index key contains an illegal field name: field name starts with '$'.`,
      );
  }
  const name = raw.name ?? defaultIndexName(key);
  if (typeof name !== 'string' || !name) throw typeMismatch('The index name must be a non-empty string');
  if (raw.partialFilterExpression !== undefined) compileFilter(raw.partialFilterExpression);
  // A collated index would compare its keys (uniqueness) by the collation; the engine's indexes compare binary.
  if (raw.collation !== undefined && parseCollation(raw.collation)) {
    throw new CommandError(
      ErrorCode.NotImplemented,
      'an index with a non-simple collation is not supported by the embedded engine',
    );
  }
  const spec: IndexSpec = { v: 2, key, name };
  for (const [option, value] of Object.entries(raw)) {
    if (option === 'key' || option === 'name' || option === 'v' || option === 'ns' || option === 'background') continue;
    if (option === 'unique' || option === 'sparse' || option === 'hidden') {
      if (value) spec[option] = true;
      continue;
    }
    spec[option] = value;
  }
  if (name === '_id_' || (Object.keys(key).length === 1 && key._id !== undefined && spec.unique === undefined)) {
    if (spec.unique || spec.sparse)
      throw new CommandError(
        ErrorCode.InvalidIndexSpecificationOption,
        `The field 'unique' is not valid for an _id index specification. Specification: ${JSON.stringify(raw)}`,
      );
  }
  return spec;
}

function createIndexes(command: Document, { db, engine, ops }: CommandContext): Doc {
  const name = collectionName(command, 'createIndexes');
  const specs = requireArray(command, 'indexes', 'createIndexes').map(normalizeIndexSpec);
  if (!specs.length) throw badValue('Must specify at least one index to create');
  const existed = engine.store.collection(db, name) !== undefined;
  const collection = engine.store.ensureCollection(db, name, ops);
  const before = collection.indexes.size + 1;
  const fresh: IndexSpec[] = [];
  for (const spec of specs) {
    const isIdIndex = Object.keys(spec.key).length === 1 && spec.key._id !== undefined && !spec.partialFilterExpression;
    const existing = isIdIndex
      ? { name: '_id_', key: { _id: 1 } as Doc }
      : [...collection.indexes.values()]
          .map((index) => index.spec)
          .find((index) => index.name === spec.name || sameDocument(index.key, spec.key));
    if (!existing) {
      if (fresh.some((other) => other.name === spec.name))
        throw new CommandError(
          ErrorCode.IndexKeySpecsConflict,
          `Index with name: ${spec.name} already exists with a different key spec`,
        );
      fresh.push(spec);
      continue;
    }
    if (existing.name === spec.name && !sameDocument(existing.key, spec.key)) {
      throw new CommandError(
        ErrorCode.IndexKeySpecsConflict,
        `An existing index has the same name as the requested index. When index names are not explicitly specified, they are auto-generated and can become too long, especially for compound indexes. Requested index: ${JSON.stringify(spec)}, existing index: ${JSON.stringify(existing)}`,
      );
    }
    if (isIdIndex) continue;
    const sameOptions = SIGNIFICANT_OPTIONS.every((option) => sameDocument((existing as Doc)[option], spec[option]));
    if (existing.name !== spec.name) {
      if (sameOptions)
        throw new CommandError(
          ErrorCode.IndexOptionsConflict,
          `Index already exists with a different name: ${existing.name}`,
        );
      throw new CommandError(
        ErrorCode.IndexOptionsConflict,
        `An equivalent index already exists with the same name but different options. Requested index: ${JSON.stringify(spec)}, existing index: ${JSON.stringify(existing)}`,
      );
    }
    if (!sameOptions) {
      throw new CommandError(
        ErrorCode.IndexOptionsConflict,
        `An equivalent index already exists with the same name but different options. Requested index: ${JSON.stringify(spec)}, existing index: ${JSON.stringify(existing)}`,
      );
    }
  }
  const mark = ops.length;
  try {
    for (const spec of fresh) collection.addIndex(spec, ops);
  } catch (error) {
    // A failed build adds none of the requested indexes (an implicitly created collection stays, as in mongod).
    for (const spec of fresh) collection.dropIndex(spec.name, null);
    ops.length = mark;
    throw error;
  }
  return ok({
    numIndexesBefore: before,
    numIndexesAfter: collection.indexes.size + 1,
    createdCollectionAutomatically: !existed,
    ...(fresh.length ? {} : { note: 'all indexes already exist' }),
  });
}

function listIndexes(command: Document, { db, engine }: CommandContext): Doc {
  const name = collectionName(command, 'listIndexes');
  const collection = engine.store.collection(db, name);
  if (!collection) throw new CommandError(ErrorCode.NamespaceNotFound, `ns does not exist: ${db}.${name}`);
  const cursorOptions = optionalObject(command, 'cursor', 'listIndexes');
  const batchSize = nonNegative(optionalCount(cursorOptions ?? {}, 'batchSize', 'listIndexes.cursor'), 'batchSize');
  return engine.cursors.firstBatch(
    `${db}.$cmd.listIndexes.${name}`,
    { docs: collection.indexSpecs() },
    batchSize ?? Infinity,
    false,
  );
}

function dropIndexes(command: Document, { db, engine, ops }: CommandContext): Doc {
  const name = collectionName(command, Object.keys(command)[0]);
  const collection = engine.store.collection(db, name);
  if (!collection) throw new CommandError(ErrorCode.NamespaceNotFound, `ns not found ${db}.${name}`);
  const target = command.index;
  const nIndexesWas = collection.indexes.size + 1;
  let names: string[];
  if (target === '*') {
    names = [...collection.indexes.keys()];
  } else if (typeof target === 'string') {
    names = [target];
  } else if (Array.isArray(target)) {
    names = target.map(String);
  } else if (isPlainObject(target)) {
    if (sameDocument(target, { _id: 1 })) throw new CommandError(ErrorCode.InvalidOptions, 'cannot drop _id index');
    const found = [...collection.indexes.values()].find((index) => sameDocument(index.spec.key, target));
    if (!found) throw new CommandError(ErrorCode.IndexNotFound, `can't find index with key: ${JSON.stringify(target)}`);
    names = [found.spec.name];
  } else {
    throw typeMismatch(
      `BSON field 'dropIndexes.index' is the wrong type '${bsonTypeName(target)}', expected types '[string, object, array]'`,
    );
  }
  for (const index of names) {
    if (index === '_id_') throw new CommandError(ErrorCode.InvalidOptions, 'cannot drop _id index');
    if (!collection.indexes.has(index))
      throw new CommandError(ErrorCode.IndexNotFound, `index not found with name [${index}]`);
  }
  for (const index of names) collection.dropIndex(index, ops);
  return ok({ nIndexesWas });
}

/** mongod's bounds of expireAfterSeconds (a 32-bit signed count of seconds). */
const MAX_EXPIRE_AFTER_SECONDS = 2_147_483_647;

/**
 * `collMod` with `index: { name | keyPattern, expireAfterSeconds?, hidden? }`, as mongod 5.1+ has it: changes a TTL
 * index's expiry or makes a single-field index a TTL index. The change is journaled as the index's drop and
 * re-creation with the new options. Other collection options are not modifiable here (NotImplemented).
 */
function collMod(command: Document, { db, engine, ops }: CommandContext): Doc {
  const name = collectionName(command, 'collMod');
  const unsupported = Object.keys(command).filter(
    (key) => key !== 'collMod' && key !== 'index' && !COMMAND_ONLY_FIELDS.has(key),
  );
  if (unsupported.length)
    throw new CommandError(
      ErrorCode.NotImplemented,
      `collMod options not supported by the embedded engine: ${unsupported.join(', ')}`,
    );
  const collection = engine.store.collection(db, name);
  if (!collection) throw new CommandError(ErrorCode.NamespaceNotFound, `ns does not exist: ${db}.${name}`);
  const change = optionalObject(command, 'index', 'collMod');
  if (!change) return ok();
  const byName = typeof change.name === 'string' ? collection.indexes.get(change.name) : undefined;
  const index =
    byName ??
    (isPlainObject(change.keyPattern)
      ? [...collection.indexes.values()].find((candidate) => sameDocument(candidate.spec.key, change.keyPattern))
      : undefined);
  if (!index) {
    const wanted = change.name ?? JSON.stringify(change.keyPattern);
    throw new CommandError(ErrorCode.IndexNotFound, `cannot find index ${String(wanted)} for ns ${db}.${name}`);
  }
  const spec: IndexSpec = { ...index.spec };
  const reply: Doc = {};
  if (change.expireAfterSeconds !== undefined) {
    const seconds = toNumber(change.expireAfterSeconds);
    if (seconds === undefined || !Number.isInteger(seconds) || seconds < 0 || seconds > MAX_EXPIRE_AFTER_SECONDS)
      throw new CommandError(
        ErrorCode.InvalidOptions,
        `expireAfterSeconds must be an integer from 0 to ${MAX_EXPIRE_AFTER_SECONDS}`,
      );
    if (index.fields.length !== 1)
      throw new CommandError(ErrorCode.InvalidOptions, 'a TTL index must be a single-field index');
    if (spec.expireAfterSeconds !== undefined) reply.expireAfterSeconds_old = spec.expireAfterSeconds;
    reply.expireAfterSeconds_new = seconds;
    spec.expireAfterSeconds = seconds;
  }
  if (change.hidden !== undefined) {
    reply.hidden_old = spec.hidden === true;
    reply.hidden_new = change.hidden === true;
    if (change.hidden === true) spec.hidden = true;
    else delete spec.hidden;
  }
  if (!sameDocument(spec, index.spec)) {
    collection.dropIndex(spec.name, ops);
    collection.addIndex(spec, ops, false);
  }
  return ok(reply);
}

function dbStats(command: Document, { db, engine }: CommandContext): Doc {
  const collections = engine.store.collections(db);
  const objects = collections.reduce((sum, collection) => sum + collection.docs.size, 0);
  const indexes = collections.reduce((sum, collection) => sum + collection.indexes.size + 1, 0);
  return ok({ db, collections: collections.length, views: 0, objects, indexes, scaleFactor: 1 });
}

function transactionCommand(): Doc {
  throw new CommandError(
    ErrorCode.IllegalOperation,
    'Transaction numbers are only allowed on a replica set member or mongos',
  );
}

/** `configureFailPoint` (a test command): only `failCommand`, with the modes `off`, `alwaysOn` and `{times}`. */
function configureFailPoint(command: Document, { db, engine }: CommandContext): Doc {
  if (!engine.options.enableTestCommands)
    throw new CommandError(ErrorCode.CommandNotFound, "no such command: 'configureFailPoint'");
  if (db !== 'admin')
    throw new CommandError(ErrorCode.Unauthorized, 'configureFailPoint may only be run against the admin database.');
  const name = command.configureFailPoint;
  if (name !== 'failCommand')
    throw new CommandError(
      ErrorCode.NotImplemented,
      `fail point '${String(name)}' is not supported by the embedded engine`,
    );
  const mode = command.mode;
  if (mode === 'off') {
    engine.failCommand = undefined;
    return ok({ count: 0 });
  }
  const times =
    mode === 'alwaysOn'
      ? Infinity
      : isPlainObject(mode) && Object.keys(mode).join() === 'times'
        ? toNumber(mode.times)
        : undefined;
  if (times === undefined || !(times > 0)) throw badValue(`unsupported fail point mode ${JSON.stringify(mode)}`);
  const data = optionalObject(command, 'data', 'configureFailPoint') ?? {};
  const unsupported = Object.keys(data).filter((field) => !FAIL_COMMAND_FIELDS.has(field));
  if (unsupported.length)
    throw new CommandError(
      ErrorCode.NotImplemented,
      `failCommand data fields not supported by the embedded engine: ${unsupported.join(', ')}`,
    );
  if (!Array.isArray(data.failCommands) || !data.failCommands.every((c: unknown) => typeof c === 'string')) {
    throw badValue("'failCommands' must be an array of command names");
  }
  engine.failCommand = {
    remaining: times,
    commands: new Set(data.failCommands as string[]),
    errorCode: toNumber(data.errorCode),
    errorLabels: Array.isArray(data.errorLabels) ? (data.errorLabels as string[]) : undefined,
    closeConnection: data.closeConnection === true,
  };
  return ok({ count: 0 });
}

/** `createBackup` (Percona Server for MongoDB's name and field): a consistent copy of the data in a new directory. */
async function createBackup(command: Document, { db, engine }: CommandContext): Promise<Document> {
  if (db !== 'admin')
    throw new CommandError(ErrorCode.Unauthorized, 'createBackup may only be run against the admin database.');
  const dir = command.backupDir;
  if (typeof dir !== 'string' || !isAbsolute(dir))
    throw badValue("createBackup needs 'backupDir': the absolute path of a directory that does not exist yet");
  return ok(await engine.backup(dir));
}

/**
 * `compact` (mongod's name): mongod compacts the named collection's files; this engine keeps one snapshot and journal
 * for all, so any collection name rewrites the whole data directory (`Engine.compact`). Answers once it is on disk.
 */
async function compact(command: Document, { engine }: CommandContext): Promise<Document> {
  collectionName(command, 'compact');
  await engine.compact();
  return ok();
}

const HANDLERS: Record<string, Handler> = {
  configureFailPoint,
  hello: (command, context) => hello(context.connectionId, false),
  isMaster: (command, context) => hello(context.connectionId, true),
  ismaster: (command, context) => hello(context.connectionId, true),
  buildInfo,
  buildinfo: buildInfo,
  ping: () => ok(),
  createBackup,
  compact,
  endSessions: () => ok(),
  killSessions: () => ok(),
  refreshSessions: () => ok(),
  getParameter: (command) =>
    ok(command.featureCompatibilityVersion !== undefined ? { featureCompatibilityVersion: { version: '7.0' } } : {}),
  connectionStatus: () => ok({ authInfo: { authenticatedUsers: [], authenticatedUserRoles: [] } }),
  whatsmyuri: (command, context) => ok({ you: `connection ${context.connectionId}` }),
  serverStatus: () =>
    ok({
      host: 'localhost',
      version: SERVER_VERSION,
      process: 'hindsight-embedded',
      uptime: Math.floor(process.uptime()),
      localTime: new Date(),
    }),
  hostInfo: () => ok({ system: { currentTime: new Date(), hostname: 'localhost' }, os: { type: process.platform } }),
  dbStats,
  find,
  getMore,
  killCursors,
  count,
  distinct,
  aggregate,
  insert,
  update,
  delete: remove,
  findAndModify,
  findandmodify: findAndModify,
  create,
  drop,
  dropDatabase,
  renameCollection,
  listCollections,
  listDatabases,
  createIndexes,
  listIndexes,
  dropIndexes,
  deleteIndexes: dropIndexes,
  collMod,
  createSearchIndexes: (command, { db, engine, ops }) => ok(createSearchIndexes(engine.store, db, command, ops)),
  updateSearchIndex: (command, { db, engine, ops }) => ok(updateSearchIndex(engine.store, db, command, ops)),
  dropSearchIndex: (command, { db, engine, ops }) => ok(dropSearchIndex(engine.store, db, command, ops)),
  commitTransaction: transactionCommand,
  abortTransaction: transactionCommand,
};
