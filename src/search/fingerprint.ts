import { BSON, BSONType, Binary, ObjectId, type Document } from 'mongodb';
import { spaceProjection, type SpaceDefinition } from './space';

/** Leading vector components a fingerprint covers: two embeddings that agree on all of them are taken as equal. */
export const FINGERPRINT_HEAD = 4;

/**
 * The projection that reads what the fingerprints of spaces of one collection need: the id, the texts and only the
 * first {@link FINGERPRINT_HEAD} components of each vector, so comparing a whole collection costs a fraction of
 * loading it. Without `withVectors` (atlas mode: the database holds the vectors) no vector is read, and fingerprints
 * cover the texts only.
 */
export function fingerprintProjection(definitions: readonly SpaceDefinition[], withVectors: boolean): Document {
  const projection: Document = {};
  for (const definition of definitions) {
    Object.assign(projection, spaceProjection(definition, false));
    if (withVectors) projection[definition.vectorPath] = { $slice: FINGERPRINT_HEAD };
  }
  // For the document keys (see documentKey).
  projection._id = 1;
  return projection;
}

/** The document key of an id whose document's `_id` is not known (see {@link documentKey}). */
export const UNKNOWN_DOCUMENT = -1;

/**
 * A 30-bit hash of a document's `_id` as the driver deserialises it: a snapshot keeps it by id, so that a delete event,
 * which carries only `_id`, finds the ids it may have removed without listing the collection. Equal `_id`s hash
 * alike; different ones may too, so a match is only a candidate, checked against MongoDB. {@link RawFingerprints}
 * gives the same hash from BSON for ObjectId and string `_id`s.
 */
export function documentKey(id: unknown): number {
  startHash();
  if (id instanceof ObjectId) {
    hashText(id.id, 0, id.id.length);
    return finishKey(BSONType.objectId);
  }
  const text = typeof id === 'string' ? id : BSON.EJSON.stringify({ id }, { relaxed: false });
  if (text.length * 3 > scratch.length) scratch = new Uint8Array(text.length * 3);
  hashText(scratch, 0, encoder.encodeInto(text, scratch).written);
  return finishKey(typeof id === 'string' ? BSONType.string : 0);
}

function finishKey(type: number): number {
  mix(type);
  return (Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909)) & 0x3fffffff;
}

/**
 * A 53-bit hash of what a document gives a space: the UTF-8 bytes of its texts by path (as `textOf` reads them) and
 * the leading components of its vector (as f32, which is how the index holds them; null: no vector). Equal
 * fingerprints mean the index entry is current; a write made behind the server's back changes the document's
 * fingerprint, which is how a restored snapshot finds it. {@link RawFingerprints} gives the same hash from BSON.
 */
export function fingerprint(
  definition: SpaceDefinition,
  texts: Readonly<Record<string, string>> | null,
  vector: Float32Array | null,
): number {
  startHash();
  for (const path of definition.textPaths ?? []) {
    const text = texts?.[path] ?? '';
    if (text.length * 3 > scratch.length) scratch = new Uint8Array(text.length * 3);
    hashText(scratch, 0, encoder.encodeInto(text, scratch).written);
  }
  headBits.fill(0);
  if (vector) for (let i = 0; i < FINGERPRINT_HEAD && i < vector.length; i++) headFloats[i] = vector[i];
  return finishHash(vector ? Math.min(vector.length, FINGERPRINT_HEAD) : NO_VECTOR);
}

/**
 * Fingerprints of spaces of one collection (same id field) read straight from documents' BSON bytes, as a cursor
 * with `raw: true` returns them: a pass over a whole collection then decodes nothing but the ids, which is most of
 * what a restart costs. Gives exactly what {@link fingerprint} gives for the deserialised document (a difference
 * would only make a catch-up re-read that document).
 */
export class RawFingerprints {
  private readonly idPath: RawPath;
  private readonly keyPath: RawPath;
  private readonly spaces: Array<{ textPaths: RawPath[]; vectorPath: RawPath }>;
  /** The distinct first keys of the paths read, and where each is in the current document (-1: absent) with its type. */
  private readonly topKeys: Uint8Array[] = [];
  private readonly topOffsets: Int32Array;
  private readonly topTypes: Uint8Array;
  private current: Uint8Array | null = null;
  private view: DataView = new DataView(new ArrayBuffer(0));

  constructor(definitions: readonly SpaceDefinition[]) {
    const pathOf = (dotted: string): RawPath => {
      const [first, ...rest] = dotted.split('.').map((key) => encoder.encode(key));
      let top = this.topKeys.findIndex((key) => key.length === first.length && sameBytes(key, 0, first));
      if (top < 0) top = this.topKeys.push(first) - 1;
      return { top, rest };
    };
    this.idPath = pathOf(definitions[0].idField);
    this.keyPath = pathOf('_id');
    this.spaces = definitions.map((definition) => ({
      textPaths: (definition.textPaths ?? []).map(pathOf),
      vectorPath: pathOf(definition.vectorPath),
    }));
    this.topOffsets = new Int32Array(this.topKeys.length);
    this.topTypes = new Uint8Array(this.topKeys.length);
  }

  /** The document's id: null unless it is a non-empty string (such documents are in no space). */
  id(document: Uint8Array): string | null {
    const at = this.locate(document, this.idPath);
    if (at < 0 || foundType !== BSONType.string) return null;
    const length = this.int32(document, at) - 1;
    if (length <= 0) return null;
    return decoder.decode(document.subarray(at + 4, at + 4 + length));
  }

  /** {@link documentKey} of the document's `_id` (read when the projection holds it); unknown unless an ObjectId or a string. */
  documentKey(document: Uint8Array): number {
    const at = this.locate(document, this.keyPath);
    if (at < 0) return UNKNOWN_DOCUMENT;
    startHash();
    if (foundType === BSONType.objectId) {
      hashText(document, at, at + 12);
      return finishKey(BSONType.objectId);
    }
    if (foundType !== BSONType.string) return UNKNOWN_DOCUMENT;
    hashText(document, at + 4, at + 3 + this.int32(document, at));
    return finishKey(BSONType.string);
  }

  /** The document's fingerprint in the `space`-th definition. */
  fingerprint(document: Uint8Array, space: number): number {
    const { textPaths, vectorPath } = this.spaces[space];
    startHash();
    for (const path of textPaths) this.hashTextAt(document, this.locate(document, path));
    return finishHash(this.readHead(document, this.locate(document, vectorPath)));
  }

  /** Hashes the text at `at` (a value of type `foundType`) as `textOf` reads it: a string, or an array's strings joined by newlines. */
  private hashTextAt(document: Uint8Array, at: number): void {
    if (at >= 0 && foundType === BSONType.string) {
      hashText(document, at + 4, at + 3 + this.int32(document, at));
      return;
    }
    let length = 0;
    if (at >= 0 && foundType === BSONType.array) {
      const end = at + this.int32(document, at) - 1;
      let strings = 0;
      for (let p = at + 4; p < end;) {
        const type = document[p];
        p = skipName(document, p + 1, end);
        if (type === BSONType.string) {
          const bytes = this.int32(document, p) - 1;
          if (length + bytes + 1 > scratch.length) scratch = grownScratch(length + bytes + 1);
          if (strings++ > 0) scratch[length++] = NEWLINE;
          scratch.set(document.subarray(p + 4, p + 4 + bytes), length);
          length += bytes;
        }
        p = this.skipValue(document, type, p);
      }
    }
    hashText(scratch, 0, length);
  }

  /** Fills the head with the leading components of the vector at `at` as `fromStoredVector` reads it; returns its marker. */
  private readHead(document: Uint8Array, at: number): number {
    headBits.fill(0);
    if (at < 0) return NO_VECTOR;
    if (foundType === BSONType.binData) {
      const bytes = this.int32(document, at);
      const data = at + 5;
      if (document[at + 4] !== Binary.SUBTYPE_VECTOR || bytes < 2 || document[data] !== Binary.VECTOR_TYPE.Float32)
        return NO_VECTOR;
      const count = Math.floor((bytes - 2) / 4);
      for (let i = 0; i < FINGERPRINT_HEAD && i < count; i++)
        headFloats[i] = this.view.getFloat32(document.byteOffset + data + 2 + 4 * i, true);
      return Math.min(count, FINGERPRINT_HEAD);
    }
    if (foundType !== BSONType.array) return NO_VECTOR;
    const end = at + this.int32(document, at) - 1;
    let count = 0;
    for (let p = at + 4; p < end;) {
      const type = document[p];
      p = skipName(document, p + 1, end);
      const offset = document.byteOffset + p;
      let value: number;
      if (type === BSONType.double) value = this.view.getFloat64(offset, true);
      else if (type === BSONType.int) value = this.view.getInt32(offset, true);
      else if (type === BSONType.long) value = Number(this.view.getBigInt64(offset, true));
      else value = NaN;
      // Like fromStoredVector: one item that is not a finite number and the document has no vector.
      if (!Number.isFinite(value)) {
        headBits.fill(0);
        return NO_VECTOR;
      }
      if (count < FINGERPRINT_HEAD) headFloats[count] = value;
      count++;
      p = this.skipValue(document, type, p);
    }
    return count === 0 ? NO_VECTOR : Math.min(count, FINGERPRINT_HEAD);
  }

  /** The offset of the value at `path` (one key per step, through embedded documents and arrays), -1 when missing; its type in `foundType`. */
  private locate(document: Uint8Array, path: RawPath): number {
    if (document !== this.current) this.readTop(document);
    let found = this.topOffsets[path.top];
    foundType = this.topTypes[path.top];
    for (const key of path.rest) {
      if (found < 0 || (foundType !== BSONType.object && foundType !== BSONType.array)) return -1;
      found = this.find(document, found, key);
    }
    return found;
  }

  /** One walk over the document's top-level fields records where each first key of the paths read is. */
  private readTop(document: Uint8Array): void {
    this.current = document;
    // Documents of one batch share a buffer: one view serves them all.
    if (this.view.buffer !== document.buffer) this.view = new DataView(document.buffer, 0, document.buffer.byteLength);
    this.topOffsets.fill(-1);
    const end = this.int32(document, 0) - 1;
    for (let p = 4; p < end;) {
      const type = document[p];
      const name = p + 1;
      p = skipName(document, name, end);
      for (let k = 0; k < this.topKeys.length; k++) {
        const key = this.topKeys[k];
        if (this.topOffsets[k] < 0 && p - name - 1 === key.length && sameBytes(document, name, key)) {
          this.topOffsets[k] = p;
          this.topTypes[k] = type;
        }
      }
      p = this.skipValue(document, type, p);
    }
  }

  /** The offset of field `key`'s value in the embedded document (or array) at `start`, -1 when missing; its type in `foundType`. */
  private find(document: Uint8Array, start: number, key: Uint8Array): number {
    const end = start + this.int32(document, start) - 1;
    for (let p = start + 4; p < end;) {
      const type = document[p];
      const name = p + 1;
      p = skipName(document, name, end);
      if (p - name - 1 === key.length && sameBytes(document, name, key)) {
        foundType = type;
        return p;
      }
      p = this.skipValue(document, type, p);
    }
    return -1;
  }

  /** The offset just past a value of `type` at `p`. */
  private skipValue(document: Uint8Array, type: number, p: number): number {
    const fixed = FIXED_SIZES[type];
    if (fixed !== undefined) return p + fixed;
    switch (type) {
      case BSONType.string:
      case 0x0d: // JavaScript code
      case 0x0e: // symbol
        return p + 4 + this.int32(document, p);
      case BSONType.object:
      case BSONType.array:
      case 0x0f: // code with scope
        return p + this.int32(document, p);
      case BSONType.binData:
        return p + 5 + this.int32(document, p);
      case 0x0b: // regular expression: pattern and options
        return skipName(document, skipName(document, p, document.length), document.length);
      case 0x0c: // DBPointer
        return p + 4 + this.int32(document, p) + 12;
      default:
        throw new Error(`unknown BSON type ${type}`);
    }
  }

  private int32(document: Uint8Array, p: number): number {
    return this.view.getInt32(document.byteOffset + p, true);
  }
}

/** Sizes of the values of fixed size, by type. */
const FIXED_SIZES: Readonly<Record<number, number>> = {
  [BSONType.double]: 8,
  [BSONType.undefined]: 0,
  [BSONType.objectId]: 12,
  [BSONType.bool]: 1,
  [BSONType.date]: 8,
  [BSONType.null]: 0,
  [BSONType.int]: 4,
  [BSONType.timestamp]: 8,
  [BSONType.long]: 8,
  [BSONType.decimal]: 16,
  [BSONType.maxKey]: 0,
  [BSONType.minKey & 0xff]: 0, // -1 in BSONType, 0xff on the wire
};
const NEWLINE = 0x0a;

/** The type of the value `locate` last found. */
let foundType = 0;

const encoder = new TextEncoder();
const decoder = new TextDecoder();
/** Where texts are encoded (or an array's strings joined) before hashing. */
let scratch: Uint8Array = new Uint8Array(4096);

function grownScratch(bytes: number): Uint8Array {
  const grown = new Uint8Array(Math.max(bytes, scratch.length * 2));
  grown.set(scratch);
  return grown;
}

/** The offset just past the NUL-terminated name at `p`. */
function skipName(bytes: Uint8Array, p: number, end: number): number {
  while (p < end && bytes[p] !== 0) p++;
  return p + 1;
}

function sameBytes(bytes: Uint8Array, at: number, key: Uint8Array): boolean {
  for (let i = 0; i < key.length; i++) if (bytes[at + i] !== key[i]) return false;
  return true;
}

/** A dot path: its first key (an index into the reader's top-level keys) and the keys after it. */
interface RawPath {
  top: number;
  rest: Uint8Array[];
}

// cyrb53, over the texts' bytes (4 at a time, then each text's length) and the head's bit patterns.
let h1 = 0;
let h2 = 0;
const headBits = new Uint32Array(FINGERPRINT_HEAD);
const headFloats = new Float32Array(headBits.buffer);
/** The head marker of a document without a vector (a vector's is its length, at most FINGERPRINT_HEAD). */
const NO_VECTOR = 0x110001;

function startHash(): void {
  h1 = 0xdeadbeef;
  h2 = 0x41c6ce57;
}

function mix(value: number): void {
  h1 = Math.imul(h1 ^ value, 2654435761);
  h2 = Math.imul(h2 ^ value, 1597334677);
}

function hashText(bytes: Uint8Array, from: number, to: number): void {
  let i = from;
  for (; i + 4 <= to; i += 4) mix(bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24));
  for (; i < to; i++) mix(bytes[i]);
  // Each text ends with its length: moving bytes from one text to the next changes the hash.
  mix(0x80000000 | (to - from));
}

/** Mixes the head (with its marker) and returns the 53-bit hash. */
function finishHash(marker: number): number {
  mix(marker);
  for (let i = 0; i < FINGERPRINT_HEAD; i++) mix(headBits[i]);
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}
