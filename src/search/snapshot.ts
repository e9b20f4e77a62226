import { closeSync, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import { crc32 } from 'node:zlib';

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
  const fd = openSync(path, 'wx');
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
 * Reads a whole file into `into` (a fresh array is allocated when absent) after checking its size; throws when the
 * size or the CRC-32 differs from `check` (a torn or corrupted file).
 */
export function readChecked(path: string, check: FileCheck, into?: Uint8Array): Uint8Array {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    if (size !== check.bytes) throw new Error(`${path} has ${size} bytes, expected ${check.bytes}`);
    const target = into ?? new Uint8Array(size);
    if (target.byteLength < size) throw new Error(`no room to read ${path}`);
    let read = 0;
    while (read < size) {
      const n = readSync(fd, target, read, size - read, read);
      if (n === 0) throw new Error(`${path} ended early`);
      read += n;
    }
    if (crc32(target.subarray(0, size)) !== check.crc) throw new Error(`${path} fails its checksum`);
    return target;
  } finally {
    closeSync(fd);
  }
}

/** Collects named typed arrays and JSON values into one file (no copies: the arrays are written as they are). */
export class SnapshotWriter {
  private readonly chunks: Uint8Array[] = [];
  private offset = 0;
  readonly sections: SnapshotSection[] = [];

  array(name: string, values: SnapshotArray): void {
    this.add(name, kindOf(values), bytesOf(values));
  }

  json(name: string, value: unknown): void {
    this.add(name, 'json', Buffer.from(JSON.stringify(value), 'utf8'));
  }

  /** Writes the sections to a new file at `path`. */
  write(path: string): FileCheck {
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
export class SnapshotReader {
  private readonly sections = new Map<string, SnapshotSection>();

  constructor(
    private readonly bytes: Uint8Array,
    sections: readonly SnapshotSection[],
  ) {
    for (const section of sections) {
      if (section.offset % 8 !== 0 || section.offset + section.bytes > bytes.byteLength) throw new Error(`snapshot section ${section.name} out of bounds`);
      this.sections.set(section.name, section);
    }
  }

  json(name: string): unknown {
    const section = this.section(name, 'json');
    return JSON.parse(Buffer.from(this.bytes.buffer, this.bytes.byteOffset + section.offset, section.bytes).toString('utf8'));
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
    if (section.bytes % Type.BYTES_PER_ELEMENT !== 0) throw new Error(`snapshot section ${name} is not a whole ${kind} array`);
    return new Type(this.bytes.buffer as ArrayBuffer, this.bytes.byteOffset + section.offset, section.bytes / Type.BYTES_PER_ELEMENT);
  }

  private section(name: string, kind: SnapshotSection['kind']): SnapshotSection {
    const section = this.sections.get(name);
    if (!section || section.kind !== kind) throw new Error(`snapshot has no ${kind} section ${name}`);
    return section;
  }
}
