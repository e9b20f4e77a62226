/**
 * Long numeric arrays (embedding vectors) as packed bytes, the form a snapshot stores them in. Decoding a vector of
 * 384 numbers from BSON costs 384 typed elements with their index names and a JS array; as packed float32 bytes it is
 * one copy, and a store with a spill file (spill.ts) reads them where the snapshot holds them, without making an array
 * at all.
 *
 * Which arrays: those the spill keeps out of the heap, i.e. arrays of at least MIN_PACKED_LENGTH numbers at the top
 * level of a document or of one of its top-level subdocuments (`embeddings.<field>`). Numbers come back as the same
 * JS numbers (float32 only when every element survives it), as BSON decoding gives them: a number array's elements
 * are doubles or int32s in BSON, and JS numbers either way.
 */
import { Binary } from 'bson';
import { isPlainObject, type Doc } from './values';

/** Arrays shorter than this are not worth packing (nor spilling): the bookkeeping would cost more than it saves. */
export const MIN_PACKED_LENGTH = 64;

/** How `value` would be packed: not at all (undefined), as float32 (true) or as float64 (false). */
export function numberEncoding(value: unknown): boolean | undefined {
  if (value instanceof PackedNumbers) return value.float32;
  if (!Array.isArray(value) || value.length < MIN_PACKED_LENGTH) return undefined;
  let float32 = true;
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i];
    if (typeof item !== 'number') return undefined;
    if (float32 && !Object.is(Math.fround(item), item)) float32 = false;
  }
  return float32;
}

/**
 * A numeric array as little-endian float32 or float64 bytes, standing in a document decoded from a snapshot until the
 * store spills it (or turns it back into an array: {@link unpackDocument}). Never seen by a reader of the store.
 */
export class PackedNumbers {
  constructor(
    /** Holds the elements from `offset`, at any alignment (a snapshot record, as read). */
    private readonly data: Uint8Array,
    private readonly offset: number,
    readonly byteLength: number,
    readonly float32: boolean,
    /** The snapshot file that holds the same bytes at `position`, when they were read from one. */
    readonly file?: string,
    readonly position = 0,
  ) {}

  get length(): number {
    return this.byteLength / (this.float32 ? 4 : 8);
  }

  /** The elements' bytes (a view, not a copy). */
  get bytes(): Uint8Array {
    return this.data.subarray(this.offset, this.offset + this.byteLength);
  }

  static fromArray(values: readonly number[], float32: boolean): PackedNumbers {
    const typed = float32 ? Float32Array.from(values) : Float64Array.from(values);
    return new PackedNumbers(new Uint8Array(typed.buffer), 0, typed.byteLength, float32);
  }

  /** The elements as a JS array. */
  toArray(): number[] {
    // A copy: the bytes may sit at an offset a typed array of this width cannot start at.
    const aligned = Uint8Array.prototype.slice.call(this.bytes); // Buffer's slice would be a view
    const view = this.float32 ? new Float32Array(aligned.buffer) : new Float64Array(aligned.buffer);
    const values = new Array<number>(view.length);
    for (let i = 0; i < view.length; i++) values[i] = view[i];
    return values;
  }
}

/**
 * Where a packed array stands in a document and what it holds: `[field, null, width, length]` for a field of the
 * document, `[field, subfield, width, length]` for a field of a top-level subdocument; `width` is 4 (float32) or 8
 * (float64) bytes, `length` the element count.
 */
export type PackedEntry = [string, string | null, 4 | 8, number];

/**
 * A document as a snapshot stores it: `{d, p, v}`, `d` the document with `null` where each array of `p` stands and `v`
 * their bytes, back to back in `p`'s order (Binary subtype 0); only `{d}` when it has no packed array. The bytes of
 * one document are one Binary, so that loading one costs no object per array.
 */
export function packedForSnapshot(doc: Doc, arrays: (container: Doc, key: string) => PackedNumbers | undefined): Doc {
  const entries: PackedEntry[] = [];
  const parts: Uint8Array[] = [];
  const packed = packContainer(doc, null, entries, parts, arrays);
  return entries.length === 0 ? { d: doc } : { d: packed, p: entries, v: new Binary(Buffer.concat(parts)) };
}

/** A copy of `container` with `null` for its packed arrays (added to `entries` and `parts`), or itself if none. */
function packContainer(
  container: Doc,
  parent: string | null,
  entries: PackedEntry[],
  parts: Uint8Array[],
  arrays: (container: Doc, key: string) => PackedNumbers | undefined,
): Doc {
  let copy: Doc | undefined;
  const keys = Object.keys(container);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    let value: unknown;
    let changed = true;
    const numbers = arrays(container, key);
    if (numbers) {
      value = null;
      entries.push(
        parent === null
          ? [key, null, numbers.float32 ? 4 : 8, numbers.length]
          : [parent, key, numbers.float32 ? 4 : 8, numbers.length],
      );
      parts.push(numbers.bytes);
    } else {
      value = container[key];
      if (parent === null && isPlainObject(value)) {
        const inner = packContainer(value, key, entries, parts, arrays);
        changed = inner !== value;
        value = inner;
      } else changed = false;
    }
    if (changed && !copy) {
      copy = {};
      for (let j = 0; j < i; j++) setField(copy, keys[j], container[keys[j]]);
    }
    if (copy) setField(copy, key, value);
  }
  return copy ?? container;
}

/** Sets a field as data, even one named `__proto__`. */
function setField(doc: Doc, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(doc, key, { value, enumerable: true, writable: true, configurable: true });
  else doc[key] = value;
}

/**
 * Puts the packed arrays of `wrapper` (as {@link packedForSnapshot} made it, decoded) back into its document as
 * PackedNumbers and returns the document; `source` says where `record`, the bytes it was decoded from, starts in
 * its snapshot file. Returns a description of what is wrong with a malformed one instead.
 */
export function unwrapPacked(
  wrapper: Doc,
  record: Uint8Array,
  source?: { file: string; position: number },
): Doc | string {
  const { d: doc, p: entries, v: bytes } = wrapper;
  if (!isPlainObject(doc)) return 'a packed document without its document';
  if (entries === undefined && bytes === undefined) return doc;
  if (!Array.isArray(entries) || !(bytes instanceof Binary)) return 'packed arrays without their list or bytes';
  const data = bytes.buffer.subarray(0, bytes.position);
  const position =
    source && data.buffer === record.buffer ? source.position + data.byteOffset - record.byteOffset : undefined;
  let at = 0;
  for (const entry of entries as unknown[]) {
    if (!Array.isArray(entry) || entry.length !== 4) return 'a malformed packed array entry';
    const [field, subfield, width, length] = entry as unknown[];
    const container = subfield === null ? doc : ownValue(doc, field);
    const key = subfield === null ? field : subfield;
    const byteLength = (width as number) * (length as number);
    if (
      typeof key !== 'string' ||
      !isPlainObject(container) ||
      ownValue(container, key) !== null ||
      (width !== 4 && width !== 8) ||
      !Number.isInteger(length) ||
      at + byteLength > data.length
    )
      return `no packed array at ${String(field)}${subfield === null ? '' : `.${String(subfield)}`}`;
    container[key] = new PackedNumbers(
      data,
      at,
      byteLength,
      width === 4,
      position === undefined ? undefined : source!.file,
      position === undefined ? 0 : position + at,
    );
    at += byteLength;
  }
  return at === data.length ? doc : 'packed bytes beyond the arrays listed';
}

/**
 * The same for a document of a format 2 snapshot (written for a few minutes by the commit that introduced packed
 * arrays): `{d, p}`, `p` listing paths (`[field]` or `[field, subfield]`) where `d` holds each array as a Binary,
 * float32 as a BSON vector (subtype 9, dtype 0x27), float64 as subtype 0x80.
 */
export function unwrapPackedV2(
  wrapper: Doc,
  record: Uint8Array,
  source: { file: string; position: number },
): Doc | string {
  const { d: doc, p: paths } = wrapper;
  if (!isPlainObject(doc)) return 'a packed document without its document';
  for (const path of (paths ?? []) as unknown[]) {
    const [field, subfield] = Array.isArray(path) ? (path as unknown[]) : [];
    const container = subfield === undefined ? doc : ownValue(doc, field);
    const key = subfield === undefined ? field : subfield;
    const value = isPlainObject(container) ? ownValue(container, key) : undefined;
    if (!(value instanceof Binary)) return `no packed array at ${String(path)}`;
    let data = value.buffer.subarray(0, value.position);
    let float32: boolean;
    if (value.sub_type === 0x80 && data.length % 8 === 0) float32 = false;
    else if (value.sub_type === 9 && data[0] === 0x27 && data[1] === 0 && data.length % 4 === 2) {
      float32 = true;
      data = data.subarray(2);
    } else return `no packed array at ${String(path)}`;
    const inFile = data.buffer === record.buffer;
    const position = source.position + data.byteOffset - record.byteOffset;
    (container as Doc)[key as string] = new PackedNumbers(
      data,
      0,
      data.length,
      float32,
      inFile ? source.file : undefined,
      inFile ? position : 0,
    );
  }
  return doc;
}

function ownValue(doc: Doc, key: unknown): unknown {
  return typeof key === 'string' && Object.prototype.hasOwnProperty.call(doc, key) ? doc[key] : undefined;
}

/** The containers whose arrays are packed: the document, then its top-level subdocuments, each with its path. */
export function* packedContainers(doc: Doc): Generator<[Doc, string[]]> {
  yield [doc, []];
  for (const key of Object.keys(doc)) {
    const value = Object.getOwnPropertyDescriptor(doc, key)?.value;
    if (isPlainObject(value)) yield [value, [key]];
  }
}

/** Puts back, in place, the arrays of a document decoded with packed ones (for a store without a spill file). */
export function unpackDocument(doc: Doc): void {
  for (const [container] of packedContainers(doc))
    for (const key of Object.keys(container)) {
      const value = container[key];
      if (value instanceof PackedNumbers) container[key] = value.toArray();
    }
}
