/**
 * The change log behind change streams: every committed document write, collection drop, rename and database
 * drop, in commit order, numbered by a sequence number that never repeats within a data directory.
 *
 * - Events are derived from the journal ops of a command (`record`, live) or of a recovered record (`replay`),
 *   by the same function, so recovery numbers them exactly as the live writes did. The wall time of a
 *   command's events is journaled as a `clock` op before its ops.
 * - Only the most recent `limit` events are kept (default DEFAULT_CHANGE_LOG_EVENTS). An event costs ~21 bytes
 *   in typed columns plus its `_id` value, which it shares with the stored document while that exists; no
 *   document contents are kept, so events carry no fullDocument / updateDescription.
 * - The retained events and the next sequence number are written into each snapshot as sidecar documents.
 * - An event becomes visible to change streams only once its journal record is durable (`publish`): a resume
 *   token handed out always names an event that recovery will number the same way.
 * - Resume tokens are `{ _data: hex }` of a format byte, the data directory's id (created once, kept in
 *   `<dataDir>/engine-id`), the sequence number and an invalidate flag, so a token from another data directory
 *   is recognised and refused.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { Binary, type Document } from 'bson';
import { DIR_MODE, FILE_MODE } from './files';
import { DataDamagedError, type JournalOp } from './durability';
import { CommandError, ErrorCode } from './errors';

/** Events kept by default: ~7 minutes of writes at the engine's top rate, ~20 MB of columns plus unshared ids. */
export const DEFAULT_CHANGE_LOG_EVENTS = 1_000_000;

export const OPERATION_TYPES = ['insert', 'update', 'replace', 'delete', 'drop', 'rename', 'dropDatabase'] as const;
export type OperationType = (typeof OPERATION_TYPES)[number];
const Op = { insert: 0, update: 1, replace: 2, delete: 3, drop: 4, rename: 5, dropDatabase: 6 } as const;

/** A namespace of the log; `coll` is undefined for a database (dropDatabase). */
export interface Namespace {
  db: string;
  coll?: string;
}

/** One event of the log, decoded. */
export interface ChangeEvent {
  seq: number;
  type: OperationType;
  ns: Namespace;
  /** The document's `_id` for document events. */
  id?: unknown;
  /** The new namespace of a rename. */
  to?: Namespace;
  wall: number;
}

const CHUNK = 4096;
/** Events per sidecar document in a snapshot (keeps each well under 16 MiB). */
const IMAGE_EVENTS = 65_536;
const TOKEN_FORMAT = '01';
export const ID_FILE = 'engine-id';
const ID_RE = /^[0-9A-F]{32}$/;

/** Columns of CHUNK events; `ids` holds the `_id` of a document event, the target namespace of a rename. */
interface Chunk {
  ns: Uint32Array;
  type: Uint8Array;
  wall: Float64Array;
  ids: unknown[];
}

const newChunk = (): Chunk => ({
  ns: new Uint32Array(CHUNK),
  type: new Uint8Array(CHUNK),
  wall: new Float64Array(CHUNK),
  ids: new Array<unknown>(CHUNK),
});

/** The engine-wide, bounded, ordered log of committed changes (see the file comment). */
export class ChangeLog {
  private chunks: Chunk[] = [];
  /** Sequence number of slot 0 of chunks[0]. */
  private base = 1;
  /** Oldest retained sequence number (== next when nothing is retained). */
  private first = 1;
  private next = 1;
  /** Highest sequence number whose write is durable; streams read up to here. */
  private published = 0;
  /** Wall time of the latest events; never goes back, so clusterTime never does either. */
  private wall = 0;
  private readonly namespaces: Namespace[] = [];
  private readonly namespaceIds = new Map<string, number>();
  private waiters = new Set<() => void>();

  constructor(
    /** 32 hex digits naming the data directory (see `dataDirId`). */
    readonly dataDirId: string = randomId(),
    readonly limit: number = DEFAULT_CHANGE_LOG_EVENTS,
  ) {
    if (!(Number.isInteger(limit) && limit > 0))
      throw new Error(`change log limit must be a positive integer, got ${limit}`);
  }

  /** Oldest retained event. */
  get firstSeq(): number {
    return this.first;
  }

  /** Latest event whose write is durable. */
  get visibleSeq(): number {
    return this.published;
  }

  /** Latest event recorded (durable or not). */
  get lastSeq(): number {
    return this.next - 1;
  }

  /**
   * Appends the events of a command's ops, as they are applied. Returns the `clock` op to journal before them,
   * or undefined when the ops change no document or namespace.
   */
  record(ops: JournalOp[]): JournalOp | undefined {
    const before = this.next;
    const wall = Math.max(this.wall, Date.now());
    for (const op of ops) this.add(op, wall);
    if (this.next === before) return undefined;
    this.wall = wall;
    return { t: 'clock', wall };
  }

  /** Recovery: one replayed op (already durable, so visible at once). */
  replay(op: JournalOp): void {
    if (op.t === 'clock') {
      this.wall = Math.max(this.wall, op.wall);
      return;
    }
    // A journal written before the change log has no clock ops: its events get the time of recovery.
    this.add(op, this.wall || Date.now());
    this.published = this.next - 1;
  }

  /** Makes events up to `seq` visible (their journal record is durable) and wakes waiting streams. */
  publish(seq: number): void {
    if (seq <= this.published) return;
    this.published = seq;
    this.release();
  }

  /** `done` resolves when an event after `seq` is visible, or after `ms`, or on `release` or `wake`. */
  waitBeyond(seq: number, ms: number): { done: Promise<void>; wake: () => void } {
    if (this.published > seq) return { done: Promise.resolve(), wake: () => undefined };
    let wake: () => void = () => undefined;
    const done = new Promise<void>((resolve) => {
      wake = (): void => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.waiters.add(wake);
    });
    return { done, wake };
  }

  /** Wakes every waiting stream (new events, or the engine is closing). */
  release(): void {
    const waiters = this.waiters;
    this.waiters = new Set();
    for (const wake of waiters) wake();
  }

  /** The namespace id of an event, for cheap scope checks before decoding it. */
  namespaceOf(seq: number): number {
    const { chunk, slot } = this.locate(seq);
    return chunk.ns[slot];
  }

  namespace(id: number): Namespace {
    return this.namespaces[id];
  }

  event(seq: number): ChangeEvent {
    const { chunk, slot } = this.locate(seq);
    const type = OPERATION_TYPES[chunk.type[slot]];
    const event: ChangeEvent = { seq, type, ns: this.namespaces[chunk.ns[slot]], wall: chunk.wall[slot] };
    if (type === 'rename') event.to = chunk.ids[slot] as Namespace;
    else if (type !== 'drop' && type !== 'dropDatabase') event.id = chunk.ids[slot];
    return event;
  }

  /** Forgets everything but the data directory id (before recovery loads a snapshot). */
  reset(): void {
    this.chunks = [];
    this.base = this.first = this.next = 1;
    this.published = 0;
    this.wall = 0;
    this.namespaces.length = 0;
    this.namespaceIds.clear();
  }

  /** The retained events as snapshot sidecar documents: a header, then columns of up to IMAGE_EVENTS events each. */
  image(): Document[] {
    const docs: Document[] = [
      {
        changeLog: 1,
        next: this.next,
        first: this.first,
        wall: this.wall,
        namespaces: this.namespaces.map((ns) => [ns.db, ns.coll ?? null]),
      },
    ];
    for (let from = this.first; from < this.next; from += IMAGE_EVENTS) {
      const count = Math.min(IMAGE_EVENTS, this.next - from);
      const ns = new Uint32Array(count);
      const type = new Uint8Array(count);
      const wall = new Float64Array(count);
      const ids = new Array<unknown>(count);
      for (let i = 0; i < count; i++) {
        const { chunk, slot } = this.locate(from + i);
        ns[i] = chunk.ns[slot];
        type[i] = chunk.type[slot];
        wall[i] = chunk.wall[slot];
        ids[i] = chunk.ids[slot] ?? null;
      }
      docs.push({ from, ns: binary(ns), type: binary(type), wall: binary(wall), ids });
    }
    return docs;
  }

  /** Restores `image()`; no documents (a snapshot from before the change log) leaves the log empty. */
  load(docs: Document[]): void {
    this.reset();
    const [header, ...columns] = docs;
    if (!header) return;
    if (header.changeLog !== 1) throw new Error('change log: unknown snapshot sidecar');
    for (const [db, coll] of header.namespaces as [string, string | null][]) this.namespaceId(db, coll ?? undefined);
    this.base = this.first = this.next = header.first as number;
    this.wall = header.wall as number;
    for (const column of columns) {
      if (column.from !== this.next)
        throw new Error(`change log: snapshot events start at ${String(column.from)}, expected ${this.next}`);
      const ns = new Uint32Array(bytes(column.ns).buffer);
      const type = bytes(column.type);
      const wall = new Float64Array(bytes(column.wall).buffer);
      const ids = column.ids as unknown[];
      for (let i = 0; i < type.length; i++) this.push(type[i], ns[i], ids[i], wall[i]);
    }
    if (this.next !== header.next)
      throw new Error(`change log: snapshot holds events up to ${this.next - 1}, header says ${String(header.next)}`);
    this.published = this.next - 1;
  }

  private add(op: JournalOp, wall: number): void {
    switch (op.t) {
      case 'put':
        if (op.change === 'copy') return;
        this.push(Op[op.change ?? 'insert'], this.namespaceId(op.db, op.coll), op.doc._id, wall);
        return;
      case 'patch':
        this.push(Op[op.change ?? 'update'], this.namespaceId(op.db, op.coll), op.id, wall);
        return;
      case 'del':
        this.push(Op.delete, this.namespaceId(op.db, op.coll), op.id, wall);
        return;
      case 'dropColl':
        if (op.to) this.push(Op.rename, this.namespaceId(op.db, op.coll), { db: op.to.db, coll: op.to.coll }, wall);
        else this.push(Op.drop, this.namespaceId(op.db, op.coll), undefined, wall);
        return;
      case 'dropDb':
        this.push(Op.dropDatabase, this.namespaceId(op.db, undefined), undefined, wall);
        return;
      default:
        return;
    }
  }

  private push(type: number, ns: number, id: unknown, wall: number): void {
    const index = this.next - this.base;
    if (index >= this.chunks.length * CHUNK) this.chunks.push(newChunk());
    const chunk = this.chunks[Math.floor(index / CHUNK)];
    const slot = index % CHUNK;
    chunk.ns[slot] = ns;
    chunk.type[slot] = type;
    chunk.wall[slot] = wall;
    chunk.ids[slot] = id;
    this.next++;
    if (this.next - this.first > this.limit) {
      this.first = this.next - this.limit;
      // Whole chunks below the retained window are freed, together with the ids they held.
      while (this.first - this.base >= CHUNK) {
        this.chunks.shift();
        this.base += CHUNK;
      }
    }
  }

  private locate(seq: number): { chunk: Chunk; slot: number } {
    if (seq < this.first || seq >= this.next)
      throw new Error(`change log: event ${seq} is not retained (${this.first}..${this.next - 1})`);
    const index = seq - this.base;
    return { chunk: this.chunks[Math.floor(index / CHUNK)], slot: index % CHUNK };
  }

  private namespaceId(db: string, coll: string | undefined): number {
    const key = coll === undefined ? db : `${db}.${coll}`;
    let id = this.namespaceIds.get(key);
    if (id === undefined) {
      id = this.namespaces.length;
      this.namespaces.push(coll === undefined ? { db } : { db, coll });
      this.namespaceIds.set(key, id);
    }
    return id;
  }
}

const binary = (array: Uint8Array | Uint32Array | Float64Array): Binary =>
  new Binary(new Uint8Array(array.buffer, array.byteOffset, array.byteLength));

/** The bytes of a stored Binary, copied so typed arrays can view them aligned. */
function bytes(value: unknown): Uint8Array {
  if (!(value instanceof Binary)) throw new Error('change log: snapshot column is not binary');
  return Uint8Array.from(value.buffer.subarray(0, value.position));
}

function randomId(): string {
  return randomBytes(16).toString('hex').toUpperCase();
}

/**
 * The id of the data directory, created on first use and kept in `<dataDir>/engine-id` (written to a temp file,
 * fsynced, renamed), so resume tokens of one directory are refused by an engine serving another.
 */
export async function dataDirId(dataDir: string): Promise<string> {
  const path = join(dataDir, ID_FILE);
  try {
    const id = (await readFile(path, 'utf8')).trim();
    if (ID_RE.test(id)) return id;
    // A replaced id would silently refuse every resume token handed out before: the file is damaged.
    throw new DataDamagedError(dataDir, ID_FILE, 0, `${ID_FILE} does not hold a data directory id`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  // Missing: a new directory, or one that lost its id, where a new id only makes older tokens fail.
  await mkdir(dataDir, { recursive: true, mode: DIR_MODE });
  const id = randomId();
  const temp = `${path}.tmp`;
  const fh = await open(temp, 'w', FILE_MODE);
  try {
    await fh.writeFile(`${id}\n`);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(temp, path);
  const dir = await open(dataDir, 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
  return id;
}

/** A decoded resume token: the position after event `seq`; `invalidate` marks the token of an invalidate event. */
export interface ResumePoint {
  seq: number;
  invalidate: boolean;
}

/** The resume token of the position after `seq`. */
export function resumeToken(dataDirId: string, seq: number, invalidate = false): { _data: string } {
  return {
    _data: `${TOKEN_FORMAT}${dataDirId}${seq.toString(16).toUpperCase().padStart(14, '0')}${invalidate ? '01' : '00'}`,
  };
}

/** Reads a resume token of this data directory; anything else is InvalidResumeToken. */
export function parseResumeToken(token: unknown, dataDirId: string): ResumePoint {
  const data = token !== null && typeof token === 'object' ? (token as Document)._data : undefined;
  if (typeof data !== 'string' || data.length !== 50 || !data.startsWith(TOKEN_FORMAT) || !/^[0-9A-F]+$/.test(data)) {
    throw new CommandError(
      ErrorCode.InvalidResumeToken,
      `invalid resume token: ${JSON.stringify(token)} was not produced by the embedded engine`,
    );
  }
  if (data.slice(2, 34) !== dataDirId) {
    throw new CommandError(
      ErrorCode.InvalidResumeToken,
      'the resume token was produced by an engine serving a different data directory; its changes are not in this one',
    );
  }
  const flag = data.slice(48);
  if (flag !== '00' && flag !== '01')
    throw new CommandError(ErrorCode.InvalidResumeToken, `invalid resume token: ${data}`);
  return { seq: parseInt(data.slice(34, 48), 16), invalidate: flag === '01' };
}
