import { closeSync, openSync, writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import type { DocumentIds, NumberHolder } from './document-ids';

/** The typed arrays a snapshot section can hold. */
export type SnapshotArray = Float32Array | Float64Array | Int32Array | Uint8Array | Uint16Array;

const KINDS = {
  f32: Float32Array,
  f64: Float64Array,
  i32: Int32Array,
  u8: Uint8Array,
  u16: Uint16Array,
} as const;
type ArrayKind = keyof typeof KINDS;

/** Where a section lies in a snapshot file: `kind` is an array type or `json` (UTF-8); offsets are 8-byte aligned. */
export interface SnapshotSection {
  name: string;
  kind: ArrayKind | 'json';
  offset: number;
  bytes: number;
}

const ID_TABLE = '$ids';

/** Bytes per read call (large reads block a pool thread for long). */
const READ_CHUNK = 64 * 2 ** 20;

/** Size and CRC-32 of a written file, recorded in the manifest and checked before anything in it is used. */
export interface FileCheck {
  bytes: number;
  crc: number;
}

function kindOf(values: SnapshotArray): ArrayKind {
  if (values instanceof Float32Array) return 'f32';
  if (values instanceof Float64Array) return 'f64';
  if (values instanceof Int32Array) return 'i32';
  if (values instanceof Uint16Array) return 'u16';
  return 'u8';
}

function bytesOf(values: SnapshotArray): Uint8Array {
  return new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
}

/** Writes all of `chunks` to a new file; returns its size and CRC-32. Synchronous: the caller's data cannot change meanwhile. */
export function writeChunks(path: string, chunks: readonly Uint8Array[]): FileCheck {
  const fd = openSync(path, 'wx', 0o600);
  let crc = 0;
  let bytes = 0;
  try {
    for (const chunk of chunks) {
      // Also because zlib.crc32 answers 0, not the running value, for an empty array with no backing store.
      if (chunk.byteLength === 0) continue;
      let written = 0;
      while (written < chunk.byteLength) written += writeSync(fd, chunk, written);
      crc = crc32(chunk, crc);
      bytes += chunk.byteLength;
    }
  } finally {
    closeSync(fd);
  }
  return { bytes, crc };
}

/**
 * Reads a whole file into `into` (a fresh array is allocated when absent) after checking its size; rejects when the
 * size or the CRC-32 differs from `check` (a torn or corrupted file). The reads run on libuv's thread pool, so
 * several files load while the event loop does other work.
 */
export async function readChecked(path: string, check: FileCheck, into?: Uint8Array): Promise<Uint8Array> {
  const file = await open(path, 'r');
  try {
    const { size } = await file.stat();
    if (size !== check.bytes) throw new Error(`${path} has ${size} bytes, expected ${check.bytes}`);
    const target = into ?? new Uint8Array(size);
    if (target.byteLength < size) throw new Error(`no room to read ${path}`);
    let read = 0;
    while (read < size) {
      const { bytesRead } = await file.read(target, read, Math.min(size - read, READ_CHUNK), read);
      if (bytesRead === 0) throw new Error(`${path} ended early`);
      read += bytesRead;
    }
    if (size > 0 && crc32(target.subarray(0, size)) !== check.crc) throw new Error(`${path} fails its checksum`);
    return target;
  } finally {
    await file.close();
  }
}

/**
 * Collects named typed arrays and JSON values into one file (no copies: the arrays are written as they are). Lists of
 * ids (`ids`) are stored as numbers into one table of distinct ids, written once at the end, since the same ids
 * appear in several sections.
 */
export class SnapshotWriter {
  private readonly chunks: Uint8Array[] = [];
  private offset = 0;
  private readonly idTable: string[] = [];
  private readonly idNumbers = new Map<string, number>();
  readonly sections: SnapshotSection[] = [];

  /** A list of ids (null: none), stored as numbers into the id table (-1 for null). */
  ids(name: string, ids: ArrayLike<string | null>): void {
    const numbers = new Int32Array(ids.length);
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i];
      if (id === null) {
        numbers[i] = -1;
        continue;
      }
      let number = this.idNumbers.get(id);
      if (number === undefined) this.idNumbers.set(id, (number = this.idTable.push(id) - 1));
      numbers[i] = number;
    }
    this.array(name, numbers);
  }

  array(name: string, values: SnapshotArray): void {
    this.add(name, kindOf(values), bytesOf(values));
  }

  json(name: string, value: unknown): void {
    this.add(name, 'json', Buffer.from(JSON.stringify(value), 'utf8'));
  }

  /** Writes the sections (and the id table) to a new file at `path`. */
  write(path: string): FileCheck {
    this.json(ID_TABLE, this.idTable);
    return writeChunks(path, this.chunks);
  }

  private add(name: string, kind: SnapshotSection['kind'], bytes: Uint8Array): void {
    const padding = (8 - (this.offset % 8)) % 8;
    if (padding) this.chunks.push(new Uint8Array(padding));
    this.offset += padding;
    this.sections.push({ name, kind, offset: this.offset, bytes: bytes.byteLength });
    this.chunks.push(bytes);
    this.offset += bytes.byteLength;
  }
}

/** Reads the sections of a file written by {@link SnapshotWriter}: arrays are views into its (checked) bytes. */
export class SnapshotReader implements NumberHolder {
  private readonly sections = new Map<string, SnapshotSection>();
  /** The numbers `idNumbers` gives the file's id table. */
  private adoptedTable: Int32Array | null = null;

  constructor(
    private readonly bytes: Uint8Array,
    sections: readonly SnapshotSection[],
  ) {
    for (const section of sections) {
      if (section.offset % 8 !== 0 || section.offset + section.bytes > bytes.byteLength)
        throw new Error(`snapshot section ${section.name} out of bounds`);
      this.sections.set(section.name, section);
    }
  }

  /** Marks the numbers `idNumbers` gave the file's ids. */
  markHeld(held: Uint8Array): void {
    for (const number of this.adoptedTable ?? []) held[number] = 1;
  }

  /** True when the snapshot has a section of that name. */
  has(name: string): boolean {
    return this.sections.has(name);
  }

  /**
   * A list of ids written by {@link SnapshotWriter.ids}, as the numbers `documents` gives them (-1 for null). The
   * file's id table is adopted by `documents` once (and not parsed when it equals the one adopted last).
   */
  idNumbers(name: string, documents: DocumentIds): Int32Array {
    if (!this.adoptedTable) {
      const section = this.section(ID_TABLE, 'json');
      this.adoptedTable = documents.adopt(
        this.bytes.subarray(section.offset, section.offset + section.bytes),
        () => this.json(ID_TABLE) as string[],
      );
      // Until the structures restored from the file hold them.
      documents.register(this);
    }
    const table = this.adoptedTable;
    const saved = this.int32(name);
    const numbers = new Int32Array(saved.length);
    for (let i = 0; i < saved.length; i++) {
      const number = saved[i];
      if (number < -1 || number >= table.length) throw new Error(`snapshot section ${name} refers to no id`);
      numbers[i] = number === -1 ? -1 : table[number];
    }
    return numbers;
  }

  json(name: string): unknown {
    const section = this.section(name, 'json');
    return JSON.parse(
      Buffer.from(this.bytes.buffer, this.bytes.byteOffset + section.offset, section.bytes).toString('utf8'),
    );
  }

  float32(name: string): Float32Array {
    return this.array(name, 'f32') as Float32Array;
  }

  float64(name: string): Float64Array {
    return this.array(name, 'f64') as Float64Array;
  }

  int32(name: string): Int32Array {
    return this.array(name, 'i32') as Int32Array;
  }

  uint8(name: string): Uint8Array {
    return this.array(name, 'u8') as Uint8Array;
  }

  uint16(name: string): Uint16Array {
    return this.array(name, 'u16') as Uint16Array;
  }

  private array(name: string, kind: ArrayKind): SnapshotArray {
    const section = this.section(name, kind);
    const Type = KINDS[kind];
    if (section.bytes % Type.BYTES_PER_ELEMENT !== 0)
      throw new Error(`snapshot section ${name} is not a whole ${kind} array`);
    return new Type(
      this.bytes.buffer as ArrayBuffer,
      this.bytes.byteOffset + section.offset,
      section.bytes / Type.BYTES_PER_ELEMENT,
    );
  }

  private section(name: string, kind: SnapshotSection['kind']): SnapshotSection {
    const section = this.sections.get(name);
    if (!section || section.kind !== kind) throw new Error(`snapshot has no ${kind} section ${name}`);
    return section;
  }
}
