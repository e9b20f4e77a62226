import { BSON, Binary, Decimal128, Double, Int32, Long, ObjectId, Timestamp, type Document } from 'bson';

/** Plain object as stored: field order matters, values are JS primitives, arrays, Dates or bson classes. */
export type Doc = Document;

/**
 * The value of `doc`'s own field `key`, undefined when it has none: a field path must never reach a member of
 * Object.prototype (`constructor`, `toString`...), which a stored document that lacks such a field would otherwise
 * appear to hold.
 */
export function ownField(doc: Doc, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(doc, key) ? doc[key] : undefined;
}

export function isPlainObject(value: unknown): value is Doc {
  if (value === null || typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Numeric value of a number or a bson numeric wrapper, else undefined. */
export function toNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof Long) return value.toNumber();
  if (value instanceof Int32 || value instanceof Double) return value.valueOf();
  if (value instanceof Decimal128) return Number(value.toString());
  return undefined;
}

export function isNumeric(value: unknown): boolean {
  return (
    typeof value === 'number' ||
    typeof value === 'bigint' ||
    value instanceof Long ||
    value instanceof Int32 ||
    value instanceof Double ||
    value instanceof Decimal128
  );
}

/** BSON type name as mongod prints it in error messages. */
export function bsonTypeName(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return Number.isInteger(value) && Math.abs(value) < 2 ** 31 ? 'int' : 'double';
  if (typeof value === 'bigint' || value instanceof Long) return 'long';
  if (value instanceof Int32) return 'int';
  if (value instanceof Double) return 'double';
  if (value instanceof Decimal128) return 'decimal';
  if (Array.isArray(value)) return 'array';
  if (value instanceof Date) return 'date';
  if (value instanceof ObjectId) return 'objectId';
  if (value instanceof RegExp) return 'regex';
  if (value instanceof Binary) return 'binData';
  if (value instanceof Timestamp) return 'timestamp';
  if (isPlainObject(value)) return 'object';
  const bsontype = (value as { _bsontype?: string })._bsontype;
  return bsontype ? bsontype.charAt(0).toLowerCase() + bsontype.slice(1) : 'object';
}

// BSON comparison order (https://www.mongodb.com/docs/manual/reference/bson-type-comparison-order/).
/** Rank of a value's type in BSON comparison order; query comparisons only match values of the same rank. */
export function typeRank(value: unknown): number {
  if (value === undefined || value === null) return 2;
  if (isNumeric(value)) return 3;
  if (typeof value === 'string') return 4;
  if (Array.isArray(value)) return 6;
  if (isPlainObject(value)) return 5;
  if (value instanceof Binary || ArrayBuffer.isView(value)) return 7;
  if (value instanceof ObjectId) return 8;
  if (typeof value === 'boolean') return 9;
  if (value instanceof Date) return 10;
  if (value instanceof Timestamp) return 11;
  if (value instanceof RegExp) return 12;
  const bsontype = (value as { _bsontype?: string })._bsontype;
  if (bsontype === 'MinKey') return 1;
  if (bsontype === 'MaxKey') return 100;
  return 50;
}

function cmp<T extends number | string | bigint>(a: T, b: T): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareNumbers(a: unknown, b: unknown): number {
  // Longs beyond 2^53 keep their precision when both sides are integral.
  if ((a instanceof Long || typeof a === 'bigint') && (b instanceof Long || typeof b === 'bigint')) {
    return cmp(BigInt(a.toString()), BigInt(b.toString()));
  }
  const x = toNumber(a) as number;
  const y = toNumber(b) as number;
  if (Number.isNaN(x)) return Number.isNaN(y) ? 0 : -1;
  if (Number.isNaN(y)) return 1;
  return cmp(x, y);
}

const binaryOrder = (a: string, b: string): number => cmp(a, b);

/**
 * Total order over BSON values as mongod sorts them (arrays compared element-wise, as inside documents).
 * `compareStrings` orders string values (a collation's; binary by default); field names always compare binary.
 */
export function compareValues(
  a: unknown,
  b: unknown,
  compareStrings: (a: string, b: string) => number = binaryOrder,
): number {
  if (a === b) return 0;
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return cmp(ra, rb);
  switch (ra) {
    case 3:
      return compareNumbers(a, b);
    case 4:
      return compareStrings(a as string, b as string);
    case 5: {
      const ka = Object.keys(a as Doc);
      const kb = Object.keys(b as Doc);
      for (let i = 0; i < Math.min(ka.length, kb.length); i++) {
        const va = (a as Doc)[ka[i]];
        const vb = (b as Doc)[kb[i]];
        const byType = cmp(typeRank(va), typeRank(vb));
        if (byType) return byType;
        const byName = cmp(ka[i], kb[i]);
        if (byName) return byName;
        const byValue = compareValues(va, vb, compareStrings);
        if (byValue) return byValue;
      }
      return cmp(ka.length, kb.length);
    }
    case 6: {
      const xa = a as unknown[];
      const xb = b as unknown[];
      for (let i = 0; i < Math.min(xa.length, xb.length); i++) {
        const c = compareValues(xa[i], xb[i], compareStrings);
        if (c) return c;
      }
      return cmp(xa.length, xb.length);
    }
    case 7: {
      const ba = a instanceof Binary ? a.value() : (a as Uint8Array);
      const bb = b instanceof Binary ? b.value() : (b as Uint8Array);
      if (ba.length !== bb.length) return cmp(ba.length, bb.length);
      return Buffer.compare(Buffer.from(ba), Buffer.from(bb));
    }
    case 8:
      return cmp((a as ObjectId).toHexString(), (b as ObjectId).toHexString());
    case 9:
      return cmp(Number(a), Number(b));
    case 10:
      return cmp((a as Date).getTime(), (b as Date).getTime());
    case 11:
      return (a as Timestamp).compare(b as Timestamp);
    case 12:
      return cmp(String(a), String(b));
    default:
      return cmp(canonicalKey(a), canonicalKey(b));
  }
}

/** BSON equality as mongod applies it to values ($addToSet, $pull, index keys): numbers compare by value. */
export function valuesEqual(a: unknown, b: unknown): boolean {
  return a === b || compareValues(a, b) === 0;
}

function numberKey(value: unknown): string {
  if (value instanceof Long && !value.lessThanOrEqual(Long.fromNumber(Number.MAX_SAFE_INTEGER)))
    return value.toString();
  if (value instanceof Long && !value.greaterThanOrEqual(Long.fromNumber(Number.MIN_SAFE_INTEGER)))
    return value.toString();
  if (typeof value === 'bigint') return value.toString();
  const n = toNumber(value) as number;
  return Object.is(n, -0) ? '0' : String(n);
}

/**
 * A string that is equal for two values exactly when mongod considers them equal as index keys
 * (1, 1.0 and Long(1) are one key; field order inside embedded documents matters).
 */
export function canonicalKey(value: unknown): string {
  if (value === undefined || value === null) return 'z';
  switch (typeof value) {
    case 'string':
      return 's' + value;
    case 'number':
    case 'bigint':
      return 'n' + numberKey(value);
    case 'boolean':
      return value ? 'b1' : 'b0';
  }
  if (value instanceof ObjectId) return 'o' + value.toHexString();
  if (isNumeric(value)) return 'n' + numberKey(value);
  if (value instanceof Date) return 'd' + value.getTime();
  if (Array.isArray(value)) return '[' + value.map((item) => canonicalKey(item) + '\u0000').join('') + ']';
  if (isPlainObject(value)) {
    let out = '{';
    for (const key of Object.keys(value)) out += key + '\u0001' + canonicalKey(value[key]) + '\u0000';
    return out + '}';
  }
  if (value instanceof Binary) return 'x' + value.sub_type + ':' + Buffer.from(value.value()).toString('base64');
  if (value instanceof RegExp) return 'r' + value.source + '/' + value.flags;
  if (value instanceof Timestamp) return 't' + value.toString();
  const bsontype = (value as { _bsontype?: string })._bsontype ?? 'unknown';
  return '?' + bsontype + ':' + JSON.stringify(value);
}

/** A value rendered as mongod prints it in messages such as `dup key: { email: "a@b.c" }`. */
export function formatValue(value: unknown): string {
  if (value === undefined || value === null) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value instanceof ObjectId) return `ObjectId('${value.toHexString()}')`;
  if (value instanceof Date) return `new Date(${value.getTime()})`;
  if (value instanceof Long || value instanceof Int32 || value instanceof Double) return value.toString();
  if (value instanceof Decimal128) return `NumberDecimal("${value.toString()}")`;
  if (Array.isArray(value)) return value.length ? `[ ${value.map(formatValue).join(', ')} ]` : '[]';
  if (isPlainObject(value)) {
    const entries = Object.keys(value).map((key) => `${key}: ${formatValue(value[key])}`);
    return entries.length ? `{ ${entries.join(', ')} }` : '{}';
  }
  if (value instanceof RegExp) return `/${value.source}/${value.flags}`;
  return String(value);
}

// Stored documents never change (updates copy on write), and a new version shares every unchanged subtree
// with the old one. Sizes are therefore cached per subtree, so measuring a new version only re-measures the
// containers the update copied (an append to a 1 MB session costs microseconds, not a full re-encode).
const subtreeSizes = new WeakMap<object, number>();
const stored = new WeakSet<Doc>();
const EMPTY_SIZE = 5; // an empty document or array

/** Arrays an update built as another array followed by more items (`$concatArrays`), with that array. */
const extensions = new WeakMap<unknown[], unknown[]>();

/**
 * Records that `result` is `base`'s items followed by more, so its size and depth are measured from `base`'s cached
 * figures and its new items only (an append to a 2,500-message list measures one message). Only for arrays that,
 * like `base`, will never be mutated again.
 */
export function markExtension(result: unknown[], base: unknown[]): void {
  if (base.length) extensions.set(result, base);
}

/** Marks a document as stored: from now on it and its subtrees are immutable, and their sizes may be cached. */
export function markStored(doc: Doc): void {
  stored.add(doc);
}

/**
 * BSON-encoded size of an immutable document or array, computed from the cached sizes of its subtrees.
 * Only for values that will never be mutated again: stored documents and freshly built update results.
 */
export function immutableSize(value: Doc | unknown[]): number {
  let size = subtreeSizes.get(value);
  if (size !== undefined) return size;
  size = EMPTY_SIZE;
  if (Array.isArray(value)) {
    const base = extensions.get(value);
    // The base's size already counts its items and the array's own 5 bytes.
    if (base) size = immutableSize(base);
    for (let i = base ? base.length : 0; i < value.length; i++) {
      // Index names are ASCII digits. bson writes a missing element as null; an undefined field it leaves out.
      const name = 2 + (i < 10 ? 1 : i < 100 ? 2 : String(i).length);
      size += value[i] === undefined ? name : elementSize(name, i, value[i]);
    }
  } else {
    for (const key of Object.keys(value)) size += elementSize(2 + utf8Length(key), key, value[key]);
  }
  subtreeSizes.set(value, size);
  return size;
}

/** Nesting levels of immutable documents and arrays (see nestingDepth), cached like their sizes. */
const subtreeDepths = new WeakMap<object, number>();

const nonEmptyContainer = (value: unknown): value is object =>
  Array.isArray(value) ? value.length > 0 : isPlainObject(value) && Object.keys(value).length > 0;

interface DepthFrame {
  value: object;
  items: unknown[];
  next: number;
  depth: number;
}

/**
 * The nesting depth of an immutable document or array: itself is level 1, and each non-empty document or array
 * within adds one (an empty one adds none). Undefined as soon as it is known to exceed `limit`. Iterative, so a
 * hostile document cannot exhaust the stack; subtrees measured before (unchanged parts of a stored document) are
 * not walked again.
 */
export function nestingDepth(root: Doc | unknown[], limit: number): number | undefined {
  const known = subtreeDepths.get(root);
  if (known !== undefined) return known <= limit ? known : undefined;
  const frame = (value: object, level: number): DepthFrame | undefined => {
    if (!Array.isArray(value)) return { value, items: Object.values(value), next: 0, depth: 1 };
    const base = extensions.get(value);
    const baseDepth = base && subtreeDepths.get(base);
    // An extension's base holds its first items at the same level: its depth stands for theirs.
    if (baseDepth === undefined) return { value, items: value, next: 0, depth: 1 };
    if (level - 1 + baseDepth > limit) return undefined;
    return { value, items: value, next: base!.length, depth: baseDepth };
  };
  const first = frame(root, 1);
  if (!first) return undefined;
  const stack: DepthFrame[] = [first];
  for (;;) {
    const top = stack[stack.length - 1];
    if (top.next < top.items.length) {
      const child = top.items[top.next++];
      if (!nonEmptyContainer(child)) continue;
      // The child is at level stack.length + 1; its deepest container `depth - 1` levels below it.
      const depth = subtreeDepths.get(child);
      if (depth !== undefined) {
        if (stack.length + depth > limit) return undefined;
        if (depth + 1 > top.depth) top.depth = depth + 1;
        continue;
      }
      if (stack.length >= limit) return undefined;
      const pushed = frame(child, stack.length + 1);
      if (!pushed) return undefined;
      stack.push(pushed);
      continue;
    }
    stack.pop();
    subtreeDepths.set(top.value, top.depth);
    if (!stack.length) return top.depth;
    const parent = stack[stack.length - 1];
    if (top.depth + 1 > parent.depth) parent.depth = top.depth + 1;
  }
}

/** UTF-8 byte length; short ASCII strings (field names, most values) are counted without a native call. */
function utf8Length(text: string): number {
  if (text.length > 64) return Buffer.byteLength(text);
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return Buffer.byteLength(text);
  return text.length;
}

/**
 * Encoded size of one element: `name` bytes for its type byte and cstring name, plus its value, with bson's
 * rules for the common leaf types inlined.
 */
function elementSize(name: number, key: string | number, value: unknown): number {
  switch (typeof value) {
    case 'string':
      return name + 5 + utf8Length(value);
    case 'boolean':
      return name + 1;
    case 'number':
      return (
        name + (Number.isInteger(value) && value >= -0x80000000 && value <= 0x7fffffff && !Object.is(value, -0) ? 4 : 8)
      );
  }
  if (value === null) return name;
  if (value instanceof Date) return name + 8;
  if (Array.isArray(value) || isPlainObject(value)) return name + immutableSize(value);
  return BSON.calculateObjectSize({ [key]: value }) - EMPTY_SIZE;
}

/** The BSON-encoded size of a document (cached for stored documents, computed afresh for anything else). */
export function bsonSize(doc: Doc): number {
  return stored.has(doc) ? immutableSize(doc) : BSON.calculateObjectSize(doc);
}

/** Deep copy of plain objects and arrays; bson class instances are immutable and shared. */
export function deepCopy<T>(value: T): T {
  if (Array.isArray(value)) return value.map(deepCopy) as T;
  if (isPlainObject(value)) {
    const out: Doc = {};
    for (const key of Object.keys(value)) out[key] = deepCopy(value[key]);
    return out as T;
  }
  return value;
}

/** Structural BSON equality that also requires the same field order and numeric types to be equal values. */
export function sameDocument(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameDocument(a[i], b[i])) return false;
    return true;
  }
  if (isPlainObject(a)) {
    if (!isPlainObject(b)) return false;
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    if (ka.length !== kb.length) return false;
    for (let i = 0; i < ka.length; i++) {
      if (ka[i] !== kb[i] || !sameDocument(a[ka[i]], b[kb[i]])) return false;
    }
    return true;
  }
  if (Array.isArray(b) || isPlainObject(b)) return false;
  return bsonTypeName(a) === bsonTypeName(b) && compareValues(a, b) === 0;
}

/**
 * All values a dotted path reaches, descending into arrays the way mongod builds index keys
 * (an array at the end of the path contributes each element; an empty array contributes `undefined`).
 */
export function pathValues(doc: unknown, path: string): unknown[] {
  const segments = path.split('.');
  const out: unknown[] = [];
  const walk = (current: unknown, i: number): void => {
    if (i === segments.length) {
      if (Array.isArray(current)) {
        if (current.length === 0) out.push(undefined);
        else for (const item of current) out.push(item);
      } else {
        out.push(current);
      }
      return;
    }
    if (Array.isArray(current)) {
      if (/^\d+$/.test(segments[i])) {
        walk(current[Number(segments[i])], i + 1);
        return;
      }
      if (current.length === 0) {
        out.push(undefined);
        return;
      }
      for (const item of current) walk(isPlainObject(item) ? ownField(item, segments[i]) : undefined, i + 1);
      return;
    }
    walk(isPlainObject(current) ? ownField(current, segments[i]) : undefined, i + 1);
  };
  walk(doc, 0);
  return out;
}
