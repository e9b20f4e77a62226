import { BSON, Long, ObjectId, type Db, type Document } from 'mongodb';

/**
 * The driver's decoding options (its defaults, as `MongoClient` is configured here): longs within ±2^53 become numbers,
 * strings are checked to be UTF-8. `decodeDocument` falls back to `BSON.deserialize` with these, so that whatever it
 * does not decode itself comes out exactly as the driver would hand it over.
 */
const DRIVER_OPTIONS: BSON.DeserializeOptions = {
  promoteLongs: true,
  promoteValues: true,
  promoteBuffers: false,
  bsonRegExp: false,
  useBigInt64: false,
  validation: { utf8: true },
};

const MAX_SAFE = 2 ** 53;
const TWO_TO_32 = 2 ** 32;

/** Thrown inside the fast decoder for what only the full decoder handles; never escapes `decodeDocument`. */
const UNSUPPORTED = Symbol('unsupported');

/**
 * Field names seen before, by a hash of their bytes: decoding a name is then a lookup, not a new string (the same
 * names recur in every document of a reply). Bounded; cleared when full.
 */
const names = new Map<number, string>();
const MAX_NAMES = 4096;

function nameAt(bytes: Buffer, start: number, end: number, hash: number): string {
  const known = names.get(hash);
  if (known !== undefined && known.length === end - start) {
    let same = true;
    for (let i = 0; i < known.length; i++) {
      if (known.charCodeAt(i) !== bytes[start + i]) {
        same = false;
        break;
      }
    }
    if (same) return known;
  }
  const name = bytes.toString('utf8', start, end);
  if (name.length === end - start) {
    if (names.size >= MAX_NAMES) names.clear();
    names.set(hash, name);
  }
  return name;
}

function stringAt(bytes: Buffer, start: number, end: number): string {
  const value = bytes.toString('utf8', start, end);
  // Invalid UTF-8 comes out as U+FFFD, which the driver rejects: the full decoder decides (a real U+FFFD passes).
  if (value.includes('\uFFFD')) throw UNSUPPORTED;
  return value;
}

/** Reads the document (or array) whose length prefix is at `start`. */
function readDocument(bytes: Buffer, start: number, isArray: boolean): Document | unknown[] {
  const end = start + bytes.readInt32LE(start) - 1;
  if (end >= bytes.length || bytes[end] !== 0) throw UNSUPPORTED;
  const result: Document | unknown[] = isArray ? [] : {};
  let index = start + 4;
  while (index < end) {
    const type = bytes[index++];
    const nameStart = index;
    let hash = 0x811c9dc5;
    while (bytes[index] !== 0) {
      hash = Math.imul(hash ^ bytes[index], 0x01000193);
      index++;
      if (index >= end) throw UNSUPPORTED;
    }
    const nameEnd = index++;
    let value: unknown;
    switch (type) {
      case 0x01: // double
        value = bytes.readDoubleLE(index);
        index += 8;
        break;
      case 0x02: {
        // string
        const length = bytes.readInt32LE(index);
        if (length <= 0 || index + 4 + length > end || bytes[index + 3 + length] !== 0) throw UNSUPPORTED;
        value = stringAt(bytes, index + 4, index + 3 + length);
        index += 4 + length;
        break;
      }
      case 0x03: // embedded document
      case 0x04: // array
        value = readDocument(bytes, index, type === 0x04);
        index += bytes.readInt32LE(index);
        break;
      case 0x07: // ObjectId
        value = new ObjectId(bytes.subarray(index, index + 12));
        index += 12;
        break;
      case 0x08: // boolean
        if (bytes[index] > 1) throw UNSUPPORTED;
        value = bytes[index++] === 1;
        break;
      case 0x09: // UTC datetime
        value = new Date(bytes.readInt32LE(index + 4) * TWO_TO_32 + bytes.readUInt32LE(index));
        index += 8;
        break;
      case 0x0a: // null
        value = null;
        break;
      case 0x10: // int32
        value = bytes.readInt32LE(index);
        index += 4;
        break;
      case 0x12: {
        // int64: a number strictly within ±2^53 (the bounds, where the sum may have rounded, go to the full decoder)
        const long = bytes.readInt32LE(index + 4) * TWO_TO_32 + bytes.readUInt32LE(index);
        if (long >= MAX_SAFE || long <= -MAX_SAFE) throw UNSUPPORTED;
        value = long;
        index += 8;
        break;
      }
      default:
        // Binary, decimal, regex, timestamp and the rest: the full decoder.
        throw UNSUPPORTED;
    }
    if (isArray) {
      (result as unknown[]).push(value);
    } else {
      const first = bytes[nameStart];
      // `$`-names may make a DBRef and `__proto__` needs defining: the full decoder does both.
      if (
        first === 0x24 ||
        (first === 0x5f && nameEnd - nameStart === 9 && bytes.toString('latin1', nameStart, nameEnd) === '__proto__')
      )
        throw UNSUPPORTED;
      (result as Document)[nameAt(bytes, nameStart, nameEnd, hash)] = value;
    }
  }
  if (index !== end) throw UNSUPPORTED;
  return result;
}

/**
 * One BSON document as the driver decodes it by default, with far fewer allocations for the common types (strings,
 * numbers, dates, booleans, null, ObjectIds, documents and arrays): the driver's decoder builds each short string from
 * an array of its bytes and copies its options for every document, ~2 KB per small document. Documents with any other
 * type are decoded by `BSON.deserialize` with the driver's options.
 */
export function decodeDocument<T = Document>(bytes: Buffer): T {
  try {
    return readDocument(bytes, 0, false) as T;
  } catch (error) {
    if (error !== UNSUPPORTED && !(error instanceof RangeError)) throw error;
    return BSON.deserialize(bytes, DRIVER_OPTIONS) as T;
  }
}

/** A cursor's reply as decoded by `decodeDocument` (an id past ±2^53 stays a Long). */
interface ReplyCursor {
  id: number | Long;
  firstBatch?: Document[];
  nextBatch?: Document[];
}

/**
 * All documents of a `find` or `aggregate` command, run as plain commands: the reply's batches are decoded by
 * `decodeDocument` without the driver's cursor, which parses every document's elements into arrays first (a page of
 * 51 experiences allocated 144 KB through a raw cursor, 63 KB this way, in a scratch loop). A reply that leaves the
 * cursor open is read on with getMore in the same session, as mongod requires.
 */
export async function commandDocuments<T>(db: Db, collection: string, command: Document): Promise<T[]> {
  const session = db.client.startSession();
  try {
    let cursor = decodeDocument<ReplyCursor>((await db.command(command, { session, raw: true })).cursor as Buffer);
    const documents = (cursor.firstBatch ?? []) as T[];
    while (typeof cursor.id === 'number' ? cursor.id !== 0 : !cursor.id.isZero()) {
      const id = typeof cursor.id === 'number' ? Long.fromNumber(cursor.id) : cursor.id;
      cursor = decodeDocument<ReplyCursor>(
        (await db.command({ getMore: id, collection }, { session, raw: true })).cursor as Buffer,
      );
      for (const document of cursor.nextBatch ?? []) documents.push(document as T);
    }
    return documents;
  } finally {
    await session.endSession();
  }
}

/** `find` as `commandDocuments`; `sort` is a document whose keys are in sort order. */
export function findDocuments<T>(
  db: Db,
  collection: string,
  filter: Document,
  options: { projection?: Document; sort?: Document; limit?: number } = {},
): Promise<T[]> {
  const command: Document = { find: collection, filter };
  if (options.projection) command.projection = options.projection;
  if (options.sort) command.sort = options.sort;
  if (options.limit) command.limit = options.limit;
  return commandDocuments<T>(db, collection, command);
}

/** `aggregate` as `commandDocuments`. */
export function aggregateDocuments<T>(db: Db, collection: string, pipeline: Document[]): Promise<T[]> {
  return commandDocuments<T>(db, collection, { aggregate: collection, pipeline, cursor: {} });
}
