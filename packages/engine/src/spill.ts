import { closeSync, fstatSync, openSync, readdirSync, readSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { FILE_MODE } from './files';
import { numberEncoding, PackedNumbers } from './packed';
import { isPlainObject, type Doc } from './values';

/**
 * Keeps the long numeric arrays of stored documents (embedding vectors: 100k experiences hold 400k of them, 1.2 GB as
 * JS arrays) in a file instead of the heap. Each such array becomes an accessor property of its container that reads
 * it back on every access, so every reader (queries, projections, updates, replies, snapshots) sees a plain array and
 * needs no change. Reads come from the OS page cache, which is not the process's RSS.
 *
 * The file is a cache, not durable state: the journal and snapshots hold the full documents, and every start rebuilds
 * it while recovery loads them (arrays a snapshot holds packed are read from the snapshot file itself instead, until
 * compaction moves them here). Only arrays at the top level of a document or of one of its top-level subdocuments are
 * looked at (`embeddings.<field>`), so storing a new version of a large document (a session with thousands of
 * messages) costs no walk of its whole tree. A new version shares the subdocuments an update did not touch, spilled
 * arrays included; a top-level array is copied into the new version, and so written again (compaction reclaims the
 * old copy).
 */

/** Writes are gathered up to this size; reads of what is still gathered are served from memory. */
const WRITE_BUFFER_BYTES = 4 << 20;
/**
 * Packed reads (snapshots, compaction) that follow the previous one within SEQUENTIAL_GAP_BYTES read the file this much
 * at a time: a snapshot written after recovery reads every array of the snapshot it loaded, in file order, and one
 * read per array (four per experience) cost more than the rest of writing it.
 */
const READ_BLOCK_BYTES = 1 << 20;
const SEQUENTIAL_GAP_BYTES = 64 << 10;
/** The file is compacted when what was written since the last compaction exceeds what it kept, and at least this. */
const MIN_COMPACTION_BYTES = 256 << 20;
const FILE_PREFIX = 'spill-';
/**
 * Arrays loaded from a snapshot are read where the snapshot holds them instead of being copied into the spill file
 * (see {@link VectorSpill.spillDocument}). Not on Windows, where a file open for reading cannot be deleted, and
 * compaction deletes the snapshots a new one covers.
 */
const READ_FROM_SNAPSHOTS = process.platform !== 'win32';

/** Where one array lives: its file, byte position, element count and encoding. Compaction moves it in place. */
interface SpillRef {
  segment: Segment;
  position: number;
  length: number;
  /** Every element survives a round trip through float32 (vectors made as Float32Array do), so it takes 4 bytes. */
  float32: boolean;
}

/** The spilled properties of a container, by key (a non-enumerable symbol property, invisible to every reader). */
const REFS = Symbol('spilledArrays');
/** A record of spilled properties: without a prototype, so that a field named `toString` is no spilled array. */
const noPrototype = (): Record<string, SpillRef> => Object.create(null) as Record<string, SpillRef>;
type Container = Doc & { [REFS]?: Record<string, SpillRef> };

/**
 * One spill file. Old ones stay readable, unlinked, until nothing refers to them (see {@link closeUnreachable}). A
 * `snapshot` segment reads arrays where a snapshot file holds them packed (see {@link VectorSpill.spillDocument}): it
 * is only read, and never deleted by the spill.
 */
class Segment {
  private readonly fd: number;
  private flushed = 0;
  private readonly pending: Buffer;
  private pendingBytes = 0;
  private closed = false;
  /** The block of the file read last by `readPacked`, from `blockStart` (never reused: views of it are handed out). */
  private block: Buffer | null = null;
  private blockStart = 0;
  /** Where the last packed read ended. */
  private packedEnd = -1;

  constructor(
    readonly path: string,
    private readonly snapshot = false,
  ) {
    this.fd = openSync(path, snapshot ? 'r' : 'w+', FILE_MODE);
    this.pending = Buffer.allocUnsafeSlow(snapshot ? 0 : WRITE_BUFFER_BYTES);
    if (snapshot) this.flushed = fstatSync(this.fd).size;
    closeUnreachable.register(this, this.fd, this);
  }

  get size(): number {
    return this.flushed + this.pendingBytes;
  }

  /**
   * Appends the array's elements, 8-byte aligned, and returns where they are. Packed numbers (from a snapshot) are
   * copied as they are: they are in the spill's own encoding.
   */
  append(values: readonly number[] | PackedNumbers, float32: boolean): SpillRef {
    const bytes = values.length * (float32 ? 4 : 8);
    const padded = (bytes + 7) & ~7;
    if (this.pendingBytes + padded > WRITE_BUFFER_BYTES) this.flush();
    const position = this.size;
    if (padded > WRITE_BUFFER_BYTES) {
      const out = Buffer.allocUnsafeSlow(padded);
      encode(out, 0, values, float32);
      this.write(out);
    } else {
      encode(this.pending, this.pendingBytes, values, float32);
      this.pendingBytes += padded;
    }
    return { segment: this, position, length: values.length, float32 };
  }

  read(ref: SpillRef): number[] {
    const { source, offset } = this.locate(ref);
    const view = ref.float32
      ? new Float32Array(source.buffer, source.byteOffset + offset, ref.length)
      : new Float64Array(source.buffer, source.byteOffset + offset, ref.length);
    const values = new Array<number>(ref.length);
    for (let i = 0; i < ref.length; i++) values[i] = view[i];
    return values;
  }

  /**
   * The array's bytes as a snapshot stores them: a copy, or a view of a block read from the file that nothing writes to
   * again (the flushed part of a spill file and a snapshot file never change).
   */
  readPacked(ref: SpillRef): PackedNumbers {
    const bytes = ref.length * (ref.float32 ? 4 : 8);
    const end = ref.position + bytes;
    const sequential = ref.position >= this.packedEnd && ref.position - this.packedEnd <= SEQUENTIAL_GAP_BYTES;
    this.packedEnd = end;
    const block = this.block;
    if (block && ref.position >= this.blockStart && end <= this.blockStart + block.length)
      return new PackedNumbers(block, ref.position - this.blockStart, bytes, ref.float32);
    if (sequential && end <= this.flushed && bytes <= READ_BLOCK_BYTES) {
      const length = Math.min(READ_BLOCK_BYTES, this.flushed - ref.position);
      const next = Buffer.allocUnsafeSlow(length);
      this.readInto(next, ref.position);
      this.block = next;
      this.blockStart = ref.position;
      return new PackedNumbers(next, 0, bytes, ref.float32);
    }
    const { source, offset } = this.locate(ref);
    return new PackedNumbers(Uint8Array.prototype.slice.call(source, offset, offset + bytes), 0, bytes, ref.float32);
  }

  private readInto(into: Buffer, position: number): void {
    let done = 0;
    while (done < into.length) {
      const read = readSync(this.fd, into, done, into.length - done, position + done);
      if (read === 0) throw new Error(`spill: ${this.path} ends before byte ${position + into.length}`);
      done += read;
    }
  }

  /** Where the array's bytes are in memory: in the write buffer, or read from the file into the scratch buffer. */
  private locate(ref: SpillRef): { source: Buffer; offset: number } {
    const bytes = ref.length * (ref.float32 ? 4 : 8);
    if (ref.position >= this.flushed) return { source: this.pending, offset: ref.position - this.flushed };
    const source = scratch(bytes);
    this.readInto(source.subarray(0, bytes), ref.position);
    return { source, offset: 0 };
  }

  flush(): void {
    if (this.pendingBytes) this.write(this.pending.subarray(0, this.pendingBytes));
    this.pendingBytes = 0;
  }

  /** Closes and deletes the file. Reading from it afterwards is a bug, and throws. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeUnreachable.unregister(this);
    closeSync(this.fd);
    if (!this.snapshot) rmSync(this.path, { force: true });
  }

  /** Deletes the file's name; its data stays readable through the open descriptor until the segment is collected. */
  retire(): void {
    this.flush();
    try {
      unlinkSync(this.path);
    } catch {
      // Already gone, or a platform that cannot unlink an open file: the next start deletes it.
    }
  }

  private write(data: Buffer): void {
    let done = 0;
    while (done < data.length) done += writeSync(this.fd, data, done, data.length - done, this.flushed + done);
    this.flushed += data.length;
  }
}

/** Closes the descriptor of a retired segment once no spilled array refers to it any more. */
const closeUnreachable = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd);
  } catch {
    // Already closed.
  }
});

let scratchBuffer = Buffer.allocUnsafeSlow(64 << 10);
function scratch(bytes: number): Buffer {
  if (scratchBuffer.length < bytes) scratchBuffer = Buffer.allocUnsafeSlow(Math.max(bytes, scratchBuffer.length * 2));
  return scratchBuffer;
}

function encode(out: Buffer, offset: number, values: readonly number[] | PackedNumbers, float32: boolean): void {
  if (values instanceof PackedNumbers) {
    out.set(values.bytes, offset);
    return;
  }
  const view = float32
    ? new Float32Array(out.buffer, out.byteOffset + offset, values.length)
    : new Float64Array(out.buffer, out.byteOffset + offset, values.length);
  for (let i = 0; i < values.length; i++) view[i] = values[i];
}

/**
 * The bytes of the field `key` of `container` when it is a spilled array (read from the file without making an
 * array), else undefined: how a snapshot stores it.
 */
export function spilledNumbers(container: Doc, key: string): PackedNumbers | undefined {
  const ref = (container as Container)[REFS]?.[key];
  return ref && ref.segment.readPacked(ref);
}

/** The containers whose arrays are spilled: the document, then its top-level subdocuments. */
function* containersOf(doc: Container): Generator<Container> {
  yield doc;
  for (const key of Object.keys(doc)) {
    if (doc[REFS]?.[key]) continue; // a spilled array: reading it would load it
    const value = doc[key];
    if (isPlainObject(value)) yield value;
  }
}

// One accessor pair per key, shared by every container, so containers with the same keys keep sharing a shape.
const accessors = new Map<string, PropertyDescriptor>();
function accessorFor(key: string): PropertyDescriptor {
  let descriptor = accessors.get(key);
  if (!descriptor) {
    descriptor = {
      get(this: Container) {
        const ref = this[REFS]![key];
        return ref.segment.read(ref);
      },
      // Stored documents are never written (updates copy on write); should anything write one, it gets a plain field.
      set(this: Container, value: unknown) {
        delete this[REFS]![key];
        Object.defineProperty(this, key, { value, writable: true, enumerable: true, configurable: true });
      },
      enumerable: true,
      configurable: true,
    };
    accessors.set(key, descriptor);
  }
  return descriptor;
}

/** A copy of `container` whose fields in `refs` read their spilled arrays; every other field is shared. */
function withAccessors(container: Container, refs: Record<string, SpillRef>): Container {
  const copy: Container = {};
  Object.defineProperty(copy, REFS, { value: refs });
  for (const key of Object.keys(container)) {
    if (refs[key]) Object.defineProperty(copy, key, accessorFor(key));
    else copy[key] = container[key];
  }
  return copy;
}

/** Turns a field of `container` into an accessor of its spilled array (for the document itself, which stays the same object). */
function spillInPlace(container: Container, key: string, ref: SpillRef): void {
  if (!container[REFS]) Object.defineProperty(container, REFS, { value: noPrototype() });
  container[REFS]![key] = ref;
  Object.defineProperty(container, key, accessorFor(key));
}

export class VectorSpill {
  private segment: Segment;
  private sequence = 0;
  /** Bytes the last compaction kept; the next one runs once this much (at least MIN_COMPACTION_BYTES) was added. */
  private keptBytes = 0;
  /** Snapshot files that stored arrays are read from, by path, and the bytes those arrays take (also kept). */
  private snapshots = new Map<string, Segment>();
  private snapshotBytes = 0;

  /**
   * @param documents every stored document, walked by compaction to move what they refer to (documents no longer
   *   stored but still being read, by a cursor or a snapshot being written, keep reading the retired file)
   */
  constructor(
    private readonly dir: string,
    private readonly documents: () => Iterable<Doc>,
    private readonly minCompactionBytes = MIN_COMPACTION_BYTES,
  ) {
    for (const name of readdirSync(dir)) if (name.startsWith(FILE_PREFIX)) rmSync(join(dir, name), { force: true });
    this.segment = this.nextSegment();
  }

  /**
   * Spills the long numeric arrays of a document about to be stored (see the module comment for which). A
   * subdocument holding some is replaced, in the document, by a copy whose spilled fields are accessors: built
   * field by field, the copies of every document share one hidden class, where turning a field of an existing object
   * into an accessor would give each its own property dictionary (about 850 bytes per experience).
   *
   * Arrays may come packed (see packed.ts), from a snapshot: those are not copied but read from the snapshot file
   * itself, which the spill holds open (once a newer snapshot replaces it, unlinked) until compaction has moved every
   * array into its own file. `loaded` marks a document recovery loads from a snapshot: what it adds is live, so it
   * counts as kept, and it never starts a compaction (there is nothing to reclaim yet, and each would copy everything
   * loaded so far again).
   */
  spillDocument(doc: Doc, loaded = false): void {
    // Before this document's arrays are written, so that none of them lands in the file being retired.
    const kept = this.keptBytes + this.snapshotBytes;
    if (!loaded && this.segment.size - this.keptBytes > Math.max(kept, this.minCompactionBytes)) this.compact();
    const before = this.segment.size;
    const top = this.spillArrays(doc);
    if (top) for (const [key, ref] of Object.entries(top)) spillInPlace(doc, key, ref);
    for (const key of Object.keys(doc)) {
      if ((doc as Container)[REFS]?.[key]) continue;
      const value = doc[key];
      if (!isPlainObject(value)) continue;
      const refs = this.spillArrays(value);
      if (!refs) continue;
      if ((value as Container)[REFS]) for (const [field, ref] of Object.entries(refs)) spillInPlace(value, field, ref);
      else doc[key] = withAccessors(value, refs);
    }
    if (loaded) this.keptBytes += this.segment.size - before;
  }

  /** Bytes in the current file (live arrays plus what replaced or deleted documents left behind). */
  get fileBytes(): number {
    return this.segment.size;
  }

  /** Forgets everything (recovery starting over from another snapshot). */
  reset(): void {
    this.segment.close();
    this.segment = this.nextSegment();
    this.keptBytes = 0;
    this.snapshots.clear();
    this.snapshotBytes = 0;
  }

  close(): void {
    this.segment.close();
  }

  /** Copies every array the stored documents refer to into a new file, which replaces the current one. */
  compact(): void {
    const previous = this.segment;
    previous.flush();
    const next = this.nextSegment();
    const moved = new Set<SpillRef>();
    const move = (container: Container): void => {
      const refs = container[REFS];
      if (!refs) return;
      for (const ref of Object.values(refs)) {
        if (moved.has(ref)) continue;
        Object.assign(ref, next.append(ref.segment.readPacked(ref), ref.float32));
        moved.add(ref);
      }
    };
    for (const doc of this.documents()) for (const container of containersOf(doc)) move(container);
    this.segment = next;
    this.keptBytes = next.size;
    // No stored array is read from them any more; documents still being read keep their segments open.
    this.snapshots.clear();
    this.snapshotBytes = 0;
    previous.retire();
  }

  /** Writes the container's long numeric arrays that are not spilled yet; undefined when there are none. */
  private spillArrays(container: Container): Record<string, SpillRef> | undefined {
    let refs: Record<string, SpillRef> | undefined;
    for (const key of Object.keys(container)) {
      if (container[REFS]?.[key]) continue;
      const value = container[key];
      const float32 = numberEncoding(value);
      if (float32 === undefined) continue;
      (refs ??= noPrototype())[key] =
        value instanceof PackedNumbers && value.file !== undefined && READ_FROM_SNAPSHOTS
          ? this.inSnapshot(value, value.file)
          : this.segment.append(value as number[] | PackedNumbers, float32);
    }
    return refs;
  }

  /** A reference to packed numbers where their snapshot file holds them. */
  private inSnapshot(value: PackedNumbers, file: string): SpillRef {
    let segment = this.snapshots.get(file);
    if (!segment) this.snapshots.set(file, (segment = new Segment(file, true)));
    this.snapshotBytes += value.byteLength;
    return { segment, position: value.position, length: value.length, float32: value.float32 };
  }

  private nextSegment(): Segment {
    return new Segment(join(this.dir, `${FILE_PREFIX}${this.sequence++}`));
  }
}
