/**
 * A runner for MongoDB's unified test format (mongodb/specifications `source/unified-test-format`), covering what the
 * CRUD tests use: client/database/collection entities, `initialData`, the CRUD operations, `expectResult`,
 * `expectError`, `expectEvents` (command events) and `outcome`, with the format's matching rules.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { EJSON, type Document } from 'bson';
import {
  type Collection,
  type CommandStartedEvent,
  type CommandSucceededEvent,
  type Db,
  MongoBulkWriteError,
  MongoClient,
  type MongoClientOptions,
  MongoServerError,
  ReadPreference,
} from 'mongodb';

/** What the server under test claims to be: a standalone 7.0 without auth, serverless or client-side encryption. */
export const SERVER = { version: '7.0.0', topology: 'single', auth: false, serverless: false, csfle: false } as const;

export interface SpecFile {
  file: string;
  description: string;
  schemaVersion: string;
  runOnRequirements?: Document[];
  createEntities?: Document[];
  initialData?: Document[];
  tests: SpecTest[];
}

export interface SpecTest {
  description: string;
  runOnRequirements?: Document[];
  skipReason?: string;
  operations: Document[];
  expectEvents?: Document[];
  outcome?: Document[];
}

/** Reads every `*.json` of `dir` as a unified test file (Extended JSON, relaxed: plain numbers stay numbers). */
export function loadSpecFiles(dir: string): SpecFile[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => ({
      file: name.replace(/\.json$/, ''),
      ...(EJSON.parse(readFileSync(path.join(dir, name), 'utf8'), { relaxed: true }) as Omit<SpecFile, 'file'>),
    }));
}

// ---------------------------------------------------------------------------------------------------------------
// runOnRequirements

function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

/** Whether one runOnRequirement is met by SERVER; undefined when met, else why not. */
function unmetRequirement(req: Document): string | undefined {
  if (req.minServerVersion && compareVersions(SERVER.version, req.minServerVersion) < 0)
    return `needs server ≥ ${req.minServerVersion}`;
  if (req.maxServerVersion && compareVersions(SERVER.version, req.maxServerVersion) > 0)
    return `needs server ≤ ${req.maxServerVersion}`;
  if (req.topologies && !req.topologies.includes(SERVER.topology)) return `needs topology ${req.topologies.join('|')}`;
  if (req.serverless === 'require' && !SERVER.serverless) return 'needs serverless';
  if (req.serverless === 'forbid' && SERVER.serverless) return 'forbids serverless';
  if (req.auth === true && !SERVER.auth) return 'needs auth';
  if (req.auth === false && SERVER.auth) return 'needs no auth';
  if (req.csfle === true && !SERVER.csfle) return 'needs csfle';
  if (req.serverParameters) return 'needs server parameters';
  return undefined;
}

/** Undefined when any of `reqs` is met (or there are none), else the reason the first one is not. */
export function unmetRequirements(reqs: Document[] | undefined): string | undefined {
  if (!reqs || reqs.length === 0) return undefined;
  const reasons = reqs.map(unmetRequirement);
  return reasons.includes(undefined) ? undefined : reasons[0];
}

// ---------------------------------------------------------------------------------------------------------------
// matching

const isPlainObject = (v: unknown): v is Document =>
  typeof v === 'object' &&
  v !== null &&
  !Array.isArray(v) &&
  !('_bsontype' in v) &&
  !(v instanceof Date) &&
  !(v instanceof RegExp) &&
  !Buffer.isBuffer(v);

const bsonType = (v: unknown): string | undefined =>
  typeof v === 'object' && v !== null && '_bsontype' in v ? String((v as { _bsontype: string })._bsontype) : undefined;

function numeric(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  const t = bsonType(v);
  if (t === 'Int32' || t === 'Double') return (v as { valueOf(): number }).valueOf();
  if (t === 'Long') return (v as { toNumber(): number }).toNumber();
  return undefined;
}

function typesOf(v: unknown): string[] {
  if (v === undefined) return ['undefined'];
  if (v === null) return ['null'];
  if (typeof v === 'string') return ['string'];
  if (typeof v === 'boolean') return ['bool'];
  // A promoted number has lost its BSON type: an integer may have been an int, a long or an integral double.
  if (typeof v === 'number') return Number.isInteger(v) ? ['int', 'long', 'double'] : ['double'];
  if (typeof v === 'bigint') return ['long'];
  if (Array.isArray(v)) return ['array'];
  if (v instanceof Date) return ['date'];
  if (v instanceof RegExp) return ['regex'];
  const t = bsonType(v);
  const names: Record<string, string> = {
    Int32: 'int',
    Long: 'long',
    Double: 'double',
    Decimal128: 'decimal',
    ObjectId: 'objectId',
    Binary: 'binData',
    Timestamp: 'timestamp',
    BSONRegExp: 'regex',
    MinKey: 'minKey',
    MaxKey: 'maxKey',
    Code: 'javascript',
    BSONSymbol: 'symbol',
    DBRef: 'dbPointer',
  };
  if (t) return [names[t] ?? t];
  return ['object'];
}

const isSpecialOperator = (v: unknown): v is Document =>
  isPlainObject(v) && Object.keys(v).length === 1 && Object.keys(v)[0].startsWith('$$');

/**
 * Checks `actual` against `expected` by the unified format's rules; returns undefined on a match, else where and why
 * it differs. `extraKeys` permits fields of `actual` that `expected` does not name (root-level documents only).
 */
export function mismatch(
  expected: unknown,
  actual: unknown,
  entities: Map<string, unknown>,
  extraKeys: boolean,
  at = '$',
): string | undefined {
  // The driver keeps a find's `sort` as a Map until it serializes the command.
  if (actual instanceof Map) actual = Object.fromEntries(actual);
  if (isSpecialOperator(expected)) {
    const [op, arg] = Object.entries(expected)[0];
    switch (op) {
      case '$$exists':
        return (actual !== undefined) === arg
          ? undefined
          : `${at}: expected ${arg ? 'present' : 'absent'}, got ${show(actual)}`;
      case '$$unsetOrMatches':
        return actual === undefined ? undefined : mismatch(arg, actual, entities, extraKeys, at);
      case '$$type': {
        const wanted: string[] = Array.isArray(arg) ? arg : [arg];
        return typesOf(actual).some((t) => wanted.includes(t))
          ? undefined
          : `${at}: expected type ${wanted.join('|')}, got ${typesOf(actual)[0]}`;
      }
      case '$$matchesEntity':
        return mismatch(entities.get(arg as string), actual, entities, extraKeys, at);
      case '$$matchesHexBytes':
        return Buffer.isBuffer(actual) && actual.toString('hex') === String(arg).toLowerCase()
          ? undefined
          : `${at}: bytes differ`;
      case '$$lte': {
        const a = numeric(actual);
        return a !== undefined && a <= (numeric(arg) as number)
          ? undefined
          : `${at}: expected ≤ ${show(arg)}, got ${show(actual)}`;
      }
      default:
        throw new Error(`unsupported special operator ${op}`);
    }
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${at}: expected an array, got ${show(actual)}`;
    if (actual.length !== expected.length)
      return `${at}: expected ${expected.length} elements, got ${actual.length}: ${show(actual)}`;
    for (let i = 0; i < expected.length; i++) {
      // The documents of a root-level array (a find's results) are root-level documents themselves.
      const m = mismatch(expected[i], actual[i], entities, extraKeys, `${at}[${i}]`);
      if (m) return m;
    }
    return undefined;
  }
  if (isPlainObject(expected)) {
    if (!isPlainObject(actual)) return `${at}: expected a document, got ${show(actual)}`;
    for (const [key, value] of Object.entries(expected)) {
      const m = mismatch(value, actual[key], entities, false, `${at}.${key}`);
      if (m) return m;
    }
    if (!extraKeys) {
      const extra = Object.keys(actual).filter((k) => actual[k] !== undefined && !(k in expected));
      if (extra.length > 0) return `${at}: unexpected fields ${extra.join(', ')} in ${show(actual)}`;
    }
    return undefined;
  }
  return valuesEqual(expected, actual) ? undefined : `${at}: expected ${show(expected)}, got ${show(actual)}`;
}

function valuesEqual(expected: unknown, actual: unknown): boolean {
  const e = numeric(expected);
  const a = numeric(actual);
  if (e !== undefined || a !== undefined) return e === a || (Number.isNaN(e) && Number.isNaN(a));
  const te = bsonType(expected);
  if (te)
    return bsonType(actual) === te && EJSON.stringify(expected as Document) === EJSON.stringify(actual as Document);
  if (expected instanceof Date) return actual instanceof Date && actual.getTime() === expected.getTime();
  return isDeepStrictEqual(expected, actual);
}

export const show = (v: unknown): string => {
  if (v === undefined) return 'undefined';
  try {
    return EJSON.stringify(v as Document, { relaxed: true });
  } catch {
    return String(v);
  }
};

// ---------------------------------------------------------------------------------------------------------------
// running a test

/** Commands the format says never to observe. */
const IGNORED_COMMANDS = new Set([
  'hello',
  'ismaster',
  'isMaster',
  'saslStart',
  'saslContinue',
  'getnonce',
  'authenticate',
  'createUser',
  'updateUser',
  'copydbgetnonce',
  'copydbsaslstart',
  'copydb',
  'configureFailPoint',
]);

type ObservedEvent = { commandStartedEvent: CommandStartedEvent } | { commandSucceededEvent: CommandSucceededEvent };

class Entities {
  readonly map = new Map<string, unknown>();
  readonly clients: MongoClient[] = [];
  readonly events = new Map<string, ObservedEvent[]>();

  get<T>(id: string): T {
    if (!this.map.has(id)) throw new Error(`no entity ${id}`);
    return this.map.get(id) as T;
  }

  async close(): Promise<void> {
    await Promise.all(this.clients.map((c) => c.close()));
  }
}

function readPreference(doc: Document | undefined): ReadPreference | undefined {
  if (!doc) return undefined;
  const { mode, ...options } = doc;
  return new ReadPreference(mode, undefined, options);
}

function entityOptions(options: Document | undefined): Document {
  if (!options) return {};
  const { readPreference: rp, ...rest } = options;
  return rp ? { ...rest, readPreference: readPreference(rp) } : rest;
}

async function createEntities(uri: string, specs: Document[], entities: Entities): Promise<void> {
  for (const spec of specs) {
    const [kind, e] = Object.entries(spec)[0] as [string, Document];
    switch (kind) {
      case 'client': {
        const observe: string[] = e.observeEvents ?? [];
        const ignore = new Set<string>(e.ignoreCommandMonitoringEvents ?? []);
        const client = new MongoClient(uri, {
          monitorCommands: observe.length > 0,
          serverSelectionTimeoutMS: 5000,
          ...(e.uriOptions as MongoClientOptions),
        });
        const events: ObservedEvent[] = [];
        const keep = (name: string) => !IGNORED_COMMANDS.has(name) && !ignore.has(name);
        if (observe.includes('commandStartedEvent')) {
          client.on('commandStarted', (ev) => keep(ev.commandName) && events.push({ commandStartedEvent: ev }));
        }
        if (observe.includes('commandSucceededEvent')) {
          client.on('commandSucceeded', (ev) => keep(ev.commandName) && events.push({ commandSucceededEvent: ev }));
        }
        await client.connect();
        entities.clients.push(client);
        entities.events.set(e.id, events);
        entities.map.set(e.id, client);
        break;
      }
      case 'database':
        entities.map.set(
          e.id,
          entities.get<MongoClient>(e.client).db(e.databaseName, entityOptions(e.databaseOptions)),
        );
        break;
      case 'collection':
        entities.map.set(
          e.id,
          entities.get<Db>(e.database).collection(e.collectionName, entityOptions(e.collectionOptions)),
        );
        break;
      default:
        throw new Error(`unsupported entity type ${kind}`);
    }
  }
}

async function insertInitialData(admin: MongoClient, initialData: Document[] | undefined): Promise<void> {
  for (const { databaseName, collectionName, documents, createOptions } of initialData ?? []) {
    const db = admin.db(databaseName);
    await db.dropCollection(collectionName).catch(() => undefined);
    await db.createCollection(collectionName, createOptions ?? {});
    if (documents.length > 0) await db.collection(collectionName).insertMany(documents);
  }
}

const lowerReturnDocument = (options: Document): Document =>
  options.returnDocument ? { ...options, returnDocument: String(options.returnDocument).toLowerCase() } : options;

function plainBulkResult(r: {
  insertedCount: number;
  matchedCount: number;
  modifiedCount: number;
  deletedCount: number;
  upsertedCount: number;
  insertedIds: Document;
  upsertedIds: Document;
}): Document {
  return {
    deletedCount: r.deletedCount,
    insertedCount: r.insertedCount,
    insertedIds: { ...r.insertedIds },
    matchedCount: r.matchedCount,
    modifiedCount: r.modifiedCount,
    upsertedCount: r.upsertedCount,
    upsertedIds: { ...r.upsertedIds },
  };
}

/** Runs one operation of a test and returns its result as the format expects to see it. */
async function execute(op: Document, entities: Entities): Promise<unknown> {
  const args: Document = { ...(op.arguments ?? {}) };
  if (op.object === 'testRunner') {
    if (op.name === 'failPoint') {
      await entities.get<MongoClient>(args.client).db('admin').command(args.failPoint);
      return undefined;
    }
    throw new Error(`unsupported testRunner operation ${op.name}`);
  }
  const target = entities.get<Collection & Db & MongoClient>(op.object);
  const coll = target as Collection;
  const db = target as Db;
  switch (op.name) {
    case 'insertOne': {
      const { document, ...options } = args;
      return coll.insertOne(document, options);
    }
    case 'insertMany': {
      const { documents, ...options } = args;
      return coll.insertMany(documents, options);
    }
    case 'updateOne': {
      const { filter, update, ...options } = args;
      return coll.updateOne(filter, update, options);
    }
    case 'updateMany': {
      const { filter, update, ...options } = args;
      return coll.updateMany(filter, update, options);
    }
    case 'replaceOne': {
      const { filter, replacement, ...options } = args;
      return coll.replaceOne(filter, replacement, options);
    }
    case 'deleteOne': {
      const { filter, ...options } = args;
      return coll.deleteOne(filter, options);
    }
    case 'deleteMany': {
      const { filter, ...options } = args;
      return coll.deleteMany(filter, options);
    }
    case 'findOneAndDelete': {
      const { filter, ...options } = args;
      return coll.findOneAndDelete(filter, options);
    }
    case 'findOneAndReplace': {
      const { filter, replacement, ...options } = args;
      return coll.findOneAndReplace(filter, replacement, lowerReturnDocument(options));
    }
    case 'findOneAndUpdate': {
      const { filter, update, ...options } = args;
      return coll.findOneAndUpdate(filter, update, lowerReturnDocument(options));
    }
    case 'bulkWrite': {
      const { requests, ...options } = args;
      return plainBulkResult(await coll.bulkWrite(requests, options));
    }
    case 'find': {
      const { filter, ...options } = args;
      return coll.find(filter, options).toArray();
    }
    case 'findOne': {
      const { filter, ...options } = args;
      return coll.findOne(filter, options);
    }
    case 'aggregate': {
      const { pipeline, ...options } = args;
      return (target as { aggregate(p: Document[], o: Document): { toArray(): Promise<Document[]> } })
        .aggregate(pipeline, options)
        .toArray();
    }
    case 'countDocuments': {
      const { filter, ...options } = args;
      return coll.countDocuments(filter, options);
    }
    case 'count': {
      const { filter, ...options } = args;
      return coll.count(filter, options);
    }
    case 'estimatedDocumentCount':
      return coll.estimatedDocumentCount(args);
    case 'distinct': {
      const { fieldName, filter, ...options } = args;
      return coll.distinct(fieldName, filter, options);
    }
    case 'createIndex': {
      const { keys, ...options } = args;
      return coll.createIndex(keys, options);
    }
    case 'dropCollection': {
      const { collection, ...options } = args;
      return db.dropCollection(collection, options);
    }
    case 'createCollection': {
      const { collection, ...options } = args;
      await db.createCollection(collection, options);
      return undefined;
    }
    case 'modifyCollection': {
      const { collection, ...options } = args;
      return db.command({ collMod: collection, ...options });
    }
    default:
      throw new Error(`unsupported operation ${op.object}.${op.name}`);
  }
}

function checkError(expected: Document, error: unknown, entities: Entities): string | undefined {
  const e = error as MongoServerError & Error;
  const isServerError = error instanceof MongoServerError;
  if (expected.isClientError === true && isServerError)
    return `expected a client error, got server error ${e.code} ${e.message}`;
  if (expected.isClientError === false && !isServerError) return `expected a server error, got ${e.name}: ${e.message}`;
  if (
    expected.errorContains !== undefined &&
    !e.message.toLowerCase().includes(String(expected.errorContains).toLowerCase())
  ) {
    return `expected the error to contain "${expected.errorContains}", got "${e.message}"`;
  }
  if (expected.errorCode !== undefined && e.code !== expected.errorCode)
    return `expected error code ${expected.errorCode}, got ${e.code} (${e.message})`;
  if (expected.errorCodeName !== undefined && e.codeName !== expected.errorCodeName)
    return `expected ${expected.errorCodeName}, got ${e.codeName} (${e.message})`;
  if (expected.errorLabelsContain) {
    for (const label of expected.errorLabelsContain)
      if (!e.hasErrorLabel?.(label)) return `expected error label ${label}`;
  }
  if (expected.errorLabelsOmit) {
    for (const label of expected.errorLabelsOmit)
      if (e.hasErrorLabel?.(label)) return `unexpected error label ${label}`;
  }
  if (expected.errorResponse !== undefined) {
    const response = error instanceof MongoBulkWriteError ? (e.errorResponse ?? e) : (e.errorResponse ?? e);
    const m = mismatch(expected.errorResponse, response, entities.map, true, 'errorResponse');
    if (m) return m;
  }
  if (expected.expectResult !== undefined) {
    const partial =
      (error as { partialResult?: unknown; result?: unknown }).partialResult ?? (error as { result?: unknown }).result;
    const m = mismatch(expected.expectResult, partial, entities.map, true, 'partialResult');
    if (m) return m;
  }
  if (expected.writeErrors || expected.writeConcernErrors)
    return 'writeErrors/writeConcernErrors expectations are not supported by this runner';
  return undefined;
}

function checkEvents(expected: Document[], entities: Entities): string | undefined {
  for (const { client, events: wanted, ignoreExtraEvents, eventType } of expected) {
    if (eventType !== undefined && eventType !== 'command')
      return `event type ${eventType} is not supported by this runner`;
    const got = entities.events.get(client) ?? [];
    if (ignoreExtraEvents ? got.length < wanted.length : got.length !== wanted.length) {
      return `${client}: expected ${wanted.length} events, got ${got.length}: ${got.map((g) => Object.values(g)[0].commandName).join(', ')}`;
    }
    for (let i = 0; i < wanted.length; i++) {
      const [kind, want] = Object.entries(wanted[i] as Document)[0] as [string, Document];
      const [gotKind, ev] = Object.entries(got[i])[0] as [string, CommandStartedEvent & CommandSucceededEvent];
      if (kind !== gotKind) return `${client} event ${i}: expected ${kind}, got ${gotKind} (${ev.commandName})`;
      if (want.commandName !== undefined && want.commandName !== ev.commandName)
        return `${client} event ${i}: expected ${want.commandName}, got ${ev.commandName}`;
      if (want.databaseName !== undefined && want.databaseName !== ev.databaseName)
        return `${client} event ${i}: expected database ${want.databaseName}, got ${ev.databaseName}`;
      const m =
        kind === 'commandStartedEvent'
          ? want.command && mismatch(want.command, ev.command, entities.map, true, `${client}.events[${i}].command`)
          : want.reply && mismatch(want.reply, ev.reply, entities.map, true, `${client}.events[${i}].reply`);
      if (m) return m;
    }
  }
  return undefined;
}

/**
 * Runs one test of `file` against the server at `uri` (`admin` is the runner's own client, for initial data and
 * outcomes). Resolves to undefined when the test passes, else to why it failed.
 */
export async function runSpecTest(
  uri: string,
  admin: MongoClient,
  file: SpecFile,
  test: SpecTest,
): Promise<string | undefined> {
  await insertInitialData(admin, file.initialData);
  const entities = new Entities();
  try {
    await createEntities(uri, file.createEntities ?? [], entities);
    for (const [index, op] of test.operations.entries()) {
      let result: unknown;
      let error: unknown;
      try {
        result = await execute(op, entities);
      } catch (e) {
        error = e;
      }
      const where = `operation ${index} (${op.name})`;
      if (op.expectError) {
        if (error === undefined) return `${where}: expected an error, got ${show(result)}`;
        const m = checkError(op.expectError, error, entities);
        if (m) return `${where}: ${m}`;
        continue;
      }
      if (error !== undefined) {
        if (op.ignoreResultAndError) continue;
        const e = error as MongoServerError;
        return `${where}: unexpected error ${e.code ?? ''} ${e.codeName ?? ''} ${e.message}`;
      }
      if (op.expectResult !== undefined) {
        const m = mismatch(op.expectResult, result, entities.map, true, 'result');
        if (m) return `${where}: ${m}`;
      }
      if (op.saveResultAsEntity) entities.map.set(op.saveResultAsEntity, result);
    }
    if (test.expectEvents) {
      const m = checkEvents(test.expectEvents, entities);
      if (m) return `events: ${m}`;
    }
    for (const { databaseName, collectionName, documents } of test.outcome ?? []) {
      const actual = await admin
        .db(databaseName)
        .collection(collectionName)
        .find({}, { sort: { _id: 1 } })
        .toArray();
      const m = mismatch(documents, actual, entities.map, false, `outcome ${collectionName}`);
      if (m) return m;
    }
    return undefined;
  } finally {
    await entities.close();
  }
}
