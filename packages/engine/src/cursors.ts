import { Long } from 'bson';
import type { ChangeStreamCursor } from './change-streams';
import { CommandError, ErrorCode } from './errors';
import { BATCH_BYTES } from './limits';
import type { Projector } from './projection';
import { bsonSize, type Doc } from './values';

/** Documents in a first batch when the client names no batchSize (mongod's default). */
export const DEFAULT_FIRST_BATCH = 101;
/** Idle cursors are closed after this long (mongod's default cursorTimeoutMillis). */
export const CURSOR_TIMEOUT_MS = 10 * 60 * 1000;

/** The result documents of a query, with the projection applied lazily per batch. */
export interface ResultSource {
  docs: Doc[];
  project?: Projector;
  filter?: Doc;
}

interface OpenCursor extends ResultSource {
  ns: string;
  position: number;
  lastUsed: number;
}

/** Takes the next batch (at most `count` documents and BATCH_BYTES, but always at least one document). */
function takeBatch(source: ResultSource, position: number, count: number): { batch: Doc[]; position: number } {
  const batch: Doc[] = [];
  let bytes = 0;
  while (position < source.docs.length && batch.length < count) {
    const stored = source.docs[position];
    const doc = source.project ? source.project(stored, source.filter) : stored;
    bytes += bsonSize(doc);
    if (batch.length && bytes > BATCH_BYTES) break;
    batch.push(doc);
    position++;
  }
  return { batch, position };
}

/** An open change stream; it survives drops of its namespace (it reports them as events). */
interface OpenStream {
  ns: string;
  stream: ChangeStreamCursor;
  lastUsed: number;
}

/** Server-side cursors: int64 ids, batches capped in bytes, idle expiry. */
export class CursorManager {
  private readonly open = new Map<string, OpenCursor>();
  private readonly streams = new Map<string, OpenStream>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly timeoutMs = CURSOR_TIMEOUT_MS) {
    this.sweeper = setInterval(() => this.sweep(), Math.min(timeoutMs, 60_000));
    this.sweeper.unref();
  }

  /** The first batch of a result; a cursor stays open only if documents remain and `singleBatch` is false. */
  firstBatch(ns: string, source: ResultSource, batchSize: number | undefined, singleBatch: boolean): Doc {
    const { batch, position } = takeBatch(source, 0, batchSize ?? DEFAULT_FIRST_BATCH);
    let id = Long.ZERO;
    if (!singleBatch && position < source.docs.length) {
      id = this.newId();
      this.open.set(id.toString(), { ...source, ns, position, lastUsed: Date.now() });
    }
    return { cursor: { firstBatch: batch, id, ns }, ok: 1 };
  }

  /** Registers an open change stream; returns its cursor id. */
  openStream(ns: string, stream: ChangeStreamCursor): Long {
    const id = this.newId();
    this.streams.set(id.toString(), { ns, stream, lastUsed: Date.now() });
    return id;
  }

  /** The change stream with cursor id `id`, or undefined when `id` is not a stream (or not open). */
  stream(id: Long, ns: string): ChangeStreamCursor | undefined {
    const open = this.streams.get(id.toString());
    if (!open) return undefined;
    checkNamespace(ns, open.ns);
    open.lastUsed = Date.now();
    return open.stream;
  }

  /** Forgets a stream that has returned its last event (invalidate). */
  closeStream(id: Long): void {
    this.streams.delete(id.toString());
  }

  getMore(id: Long, ns: string, batchSize: number | undefined): Doc {
    const key = id.toString();
    const cursor = this.open.get(key);
    if (!cursor) throw new CommandError(ErrorCode.CursorNotFound, `cursor id ${key} not found`);
    checkNamespace(ns, cursor.ns);
    const { batch, position } = takeBatch(cursor, cursor.position, batchSize && batchSize > 0 ? batchSize : Infinity);
    cursor.position = position;
    cursor.lastUsed = Date.now();
    let replyId = id;
    if (position >= cursor.docs.length) {
      this.open.delete(key);
      replyId = Long.ZERO;
    }
    return { cursor: { nextBatch: batch, id: replyId, ns }, ok: 1 };
  }

  /** Closes cursors; returns which ids were killed and which were unknown. */
  kill(ids: Long[]): { killed: Long[]; notFound: Long[] } {
    const killed: Long[] = [];
    const notFound: Long[] = [];
    for (const id of ids) {
      const key = id.toString();
      const stream = this.streams.get(key);
      if (stream) {
        stream.stream.kill();
        this.streams.delete(key);
      }
      (this.open.delete(key) || stream ? killed : notFound).push(id);
    }
    return { killed, notFound };
  }

  /** Drops every cursor over a namespace prefix (a dropped collection or database). */
  killNamespace(prefix: string): void {
    for (const [key, cursor] of this.open) {
      if (cursor.ns === prefix || cursor.ns.startsWith(prefix + '.')) this.open.delete(key);
    }
  }

  get size(): number {
    return this.open.size + this.streams.size;
  }

  close(): void {
    clearInterval(this.sweeper);
    this.open.clear();
    for (const { stream } of this.streams.values()) stream.killed = true;
    this.streams.clear();
  }

  private sweep(): void {
    const cutoff = Date.now() - this.timeoutMs;
    for (const [key, cursor] of this.open) if (cursor.lastUsed < cutoff) this.open.delete(key);
    for (const [key, cursor] of this.streams) if (cursor.lastUsed < cutoff) this.streams.delete(key);
  }

  private newId(): Long {
    // A random positive 53-bit id; mongod's ids are random too, and clients must not guess them.
    let id: Long;
    do id = Long.fromNumber(Math.floor(Math.random() * Number.MAX_SAFE_INTEGER) + 1);
    while (this.open.has(id.toString()) || this.streams.has(id.toString()));
    return id;
  }
}

function checkNamespace(ns: string, cursorNs: string): void {
  if (cursorNs !== ns) {
    throw new CommandError(
      ErrorCode.Unauthorized,
      `Requested getMore on namespace '${ns}', but cursor belongs to a different namespace ${cursorNs}`,
    );
  }
}
