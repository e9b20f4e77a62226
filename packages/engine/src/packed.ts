/**
 * Long numeric arrays (embedding vectors) as packed bytes, the form a snapshot stores them in. Decoding a vector of
 * 384 numbers from BSON costs 384 typed elements with their index names and a JS array; as packed float32 bytes it is
 * one copy, and a store with a spill file (spill.ts) copies them there without making an array at all.
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
    /** `length` elements of 4 (float32) or 8 bytes; may be a view into a larger buffer, at any alignment. */
    readonly bytes: Uint8Array,
    readonly float32: boolean,
    /** Where a snapshot file holds the same bytes, when they were read from one. */
    readonly source?: { file: string; position: number },
  ) {}

  get length(): number {
    return this.bytes.length / (this.float32 ? 4 : 8);
  }

  static fromArray(values: readonly number[], float32: boolean): PackedNumbers {
    const typed = float32 ? Float32Array.from(values) : Float64Array.from(values);
    return new PackedNumbers(new Uint8Array(typed.buffer), float32);
  }

  /** The elements as a JS array. */
  toArray(): number[] {
    // A copy: the bytes may sit at an offset a typed array of this width cannot start at.
    const aligned = this.bytes.slice();
    const view = this.float32 ? new Float32Array(aligned.buffer) : new Float64Array(aligned.buffer);
    const values = new Array<number>(view.length);
    for (let i = 0; i < view.length; i++) values[i] = view[i];
    return values;
  }

  /**
   * As a BSON value for a snapshot: float32 as a BSON vector (Binary subtype 9, dtype float32, as MongoDB defines
   * it), float64 as user-defined subtype 0x80 holding the bytes. The snapshot lists where they stand, so a Binary a
   * document really holds is never taken for one.
   */
  toBinary(): Binary {
    if (!this.float32) return new Binary(this.bytes, FLOAT64_SUBTYPE);
    const data = new Uint8Array(2 + this.bytes.length);
    data[0] = FLOAT32_DTYPE;
    data.set(this.bytes, 2);
    return new Binary(data, Binary.SUBTYPE_VECTOR);
  }

  /**
   * The inverse of {@link toBinary}; undefined for any other value (a damaged snapshot). `file`: the snapshot file
   * whose bytes, from its offset `position`, `within` holds (the record the value was decoded from).
   */
  static fromBinary(
    value: unknown,
    within?: { bytes: Uint8Array; file: string; position: number },
  ): PackedNumbers | undefined {
    if (!(value instanceof Binary)) return undefined;
    let data = value.buffer.subarray(0, value.position);
    let float32: boolean;
    if (value.sub_type === FLOAT64_SUBTYPE && data.length % 8 === 0) float32 = false;
    else if (
      value.sub_type === Binary.SUBTYPE_VECTOR &&
      data[0] === FLOAT32_DTYPE &&
      data[1] === 0 &&
      data.length % 4 === 2
    ) {
      float32 = true;
      data = data.subarray(2);
    } else return undefined;
    const source =
      within && data.buffer === within.bytes.buffer
        ? { file: within.file, position: within.position + data.byteOffset - within.bytes.byteOffset }
        : undefined;
    return new PackedNumbers(data, float32, source);
  }
}

const FLOAT32_DTYPE = 0x27;
const FLOAT64_SUBTYPE = 0x80;

/** Where a packed array stands: a field of the document, or a field of one of its top-level subdocuments. */
export type PackedPath = [string] | [string, string];

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
