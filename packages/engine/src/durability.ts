/**
 * Durability for the embedded engine: an append-only journal (fsync before acknowledgement, group commit),
 * snapshots with journal compaction, and crash recovery.
 *
 * On disk, in `dataDir`:
 * - `journal-<seq>.log`: records, each `[u32 length][u32 crc32][body]` (little-endian). The first is the header
 *   (`JOURNAL_MAGIC` then BSON `{format, seq}`), written and fsynced before the journal gets its name, so a journal
 *   cut to nothing is told from one never written to. Every other body is the BSON documents of one append's ops,
 *   back to back, so a record is applied whole or not at all (in format 2, a `put` holds its document's long numeric
 *   arrays packed: see JOURNAL_FORMATS). Journals written before headers existed start with an op record; they are
 *   read as they are.
 * - `snapshot-<seq>.bson`: the state after every journal numbered below `<seq>`, in the same record framing
 *   (`H` header, `B` database, `C` collection, `P` documents, `S` sidecar documents (the change log; absent
 *   from snapshots written before it existed, which load with an empty log), `E` end marker with counts). The header's
 *   `journalHeaders: true` says the journals after it have headers (absent from older snapshots). It is written as
 *   `.tmp`, fsynced, renamed, and the directory fsynced, so a snapshot under its final name is complete.
 *   A `P` record holds documents as BSON `{d: <document>, p: [<entry>, ...], v: <bytes>}`: each entry names a long
 *   numeric array of the document (`null` in `d`) stored as packed float32 or float64 bytes in `v` (see packed.ts),
 *   which loads without decoding its numbers one by one. That is format 3; format 1 snapshots hold `D` records instead
 *   (the documents' BSON back to back, arrays as BSON arrays), format 2 ones each array as a Binary in place. Both
 *   load as they are, and the next snapshot is written in format 3.
 * Recovery loads the newest valid snapshot and replays, in sequence order, every journal numbered at or above it.
 */
import { constants } from 'node:fs';
import { chmod, copyFile, open, mkdir, readdir, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import {
  serialize,
  deserialize,
  calculateObjectSize,
  setInternalBufferSize,
  type Document,
  type DeserializeOptions,
} from 'bson';
import { DIR_MODE, FILE_MODE } from './files';
import {
  numberEncoding,
  PackedNumbers,
  packedForSnapshot,
  unpackDocument,
  unwrapPacked,
  unwrapPackedV2,
} from './packed';
import type { PatchStep } from './patch';
import { spilledNumbers } from './spill';
import type { Doc } from './values';

export interface IndexSpec {
  name: string;
  key: Document;
  unique?: boolean;
  sparse?: boolean;
  partialFilterExpression?: Document;
  expireAfterSeconds?: number;
  [option: string]: unknown;
}
/** An Atlas search index (see vector-search.ts): its definition is kept, its vectors are read from the documents. */
export interface SearchIndexSpec {
  id: string;
  name: string;
  type: 'vectorSearch';
  definition: Document;
  version: number;
  createdAt: Date;
}
export interface CollectionImage {
  name: string;
  options: Document;
  indexes: IndexSpec[];
  searchIndexes?: SearchIndexSpec[];
  docs: Iterable<Document>;
}
export interface DatabaseImage {
  name: string;
  collections: CollectionImage[];
}
/**
 * A logical, idempotent change. `put` carries the full post-image of a document (inserts, upserts); `patch`
 * carries only what an update changed in an existing document (its steps replay to the same post-image).
 * The optional `change`/`to` fields and the `clock` op only feed the change log (see changes.ts): they tell
 * replay which change event a write was (an update journaled as a put, a replacement journaled as a patch, a
 * rename's copies and drop) and when it happened. Older journals lack them; older code ignores them.
 */
export type JournalOp =
  | { t: 'put'; db: string; coll: string; doc: Document; change?: 'update' | 'replace' | 'copy' }
  | { t: 'patch'; db: string; coll: string; id: unknown; steps: PatchStep[]; change?: 'replace' }
  | { t: 'del'; db: string; coll: string; id: unknown }
  | { t: 'createColl'; db: string; coll: string; options: Document }
  | { t: 'dropColl'; db: string; coll: string; to?: { db: string; coll: string } }
  | { t: 'clock'; wall: number }
  | { t: 'dropDb'; db: string }
  | { t: 'createIndex'; db: string; coll: string; spec: IndexSpec }
  | { t: 'dropIndex'; db: string; coll: string; name: string }
  | { t: 'searchIndex'; db: string; coll: string; spec: SearchIndexSpec }
  | { t: 'dropSearchIndex'; db: string; coll: string; name: string };

/** What the engine gives the log: how to rebuild state on recovery and how to read a consistent image for a snapshot. */
export interface DurableState {
  /** Drops all in-memory state (called before loading a snapshot). */
  reset(): void;
  /**
   * Adds the given collections (creating those not there yet, with their indexes) and documents. A snapshot is
   * loaded a record at a time: a collection first with no documents, then its documents in several calls.
   */
  loadImage(dbs: DatabaseImage[]): void;
  /** Replays one recovered op; must be idempotent and must not enforce constraints (the op already passed them). */
  apply(op: JournalOp): void;
  /** A consistent image of the current state, taken synchronously. */
  image(): DatabaseImage[];
  /** State kept beside the databases (the change log), as documents, taken synchronously with `image()`. */
  sidecar?(): Document[];
  /** Restores what `sidecar` returned, after `loadImage`; called with none for a snapshot that has none. */
  loadSidecar?(docs: Document[]): void;
  /**
   * The state takes documents whose long numeric arrays are PackedNumbers (see packed.ts), as read from a snapshot or
   * a journal (the Store with a spill file does); otherwise they are turned back into arrays before it gets them.
   */
  readonly keepsPacked?: boolean;
}

export interface DurableLogOptions {
  /** Journal bytes after which a snapshot is taken and the journal compacted (at least; see `compactAfterShare`). Default 64 MiB. */
  compactAfterBytes?: number;
  /**
   * …and at least this share of the last snapshot's size. A snapshot rewrites the whole data set: with a fixed
   * threshold a large one would rewrite itself for every 64 MiB written (1.6 GB each time at 100k experiences,
   * 14 s of the engine's time). Default 0.25: at most 5 bytes written per byte of journal, and a restart replays a
   * journal of at most a quarter of the snapshot.
   */
  compactAfterShare?: number;
  /** fsync before acknowledging; turn off only for throwaway data. Default true. */
  fsync?: boolean;
  /** Receives notable recovery and compaction events (discarded torn tail, failed snapshot). */
  log?: EngineLog;
  /** The directory held data before (its id file exists): with no journal and no snapshot, files are missing. */
  expectData?: boolean;
  /**
   * How long `close` waits for the snapshot a recovery started (see RECOVERED_COMPACT_SHARE) to finish before it
   * abandons it (its temporary file is removed, and the journals it would have covered stay, to be replayed by the next
   * start). Default 5,000 ms. A snapshot of a compaction is always waited for.
   */
  snapshotCloseWaitMs?: number;
  /** Wraps each journal file handle the log opens; for tests that inject write failures (a full disk). */
  journalHandle?: (fh: FileHandle) => FileHandle;
}

/** A notable event; `warn` marks one an operator should look at (a dropped torn tail, a failed snapshot). */
export type EngineLog = (line: string, level?: 'info' | 'warn' | 'error') => void;

/** What `open` found and replayed. */
export interface RecoveryReport {
  /** Sequence number of the snapshot loaded, or null when recovery started from empty. */
  snapshot: number | null;
  journals: number;
  records: number;
  ops: number;
  /** Bytes of torn or corrupt tail dropped from the last journal. */
  discardedBytes: number;
  ms: number;
}

/**
 * Values come back as they went in: int64 stays a `Long` (the default would turn small ones into numbers,
 * which would then be re-encoded as int32 or double). UTF-8 validation is skipped, halving decode time: the
 * bytes were encoded from JS strings by bson and the record checksum has already vouched for them.
 */
export const BSON_READ: DeserializeOptions = { promoteLongs: false, validation: { utf8: false } };

const RECORD_HEADER = 8;
/** A sanity bound that turns a corrupted length field into a detected tear instead of a huge allocation. */
const MAX_RECORD = 1 << 30;
const READ_CHUNK = 8 << 20;
const WRITE_CHUNK = 4 << 20;
const SNAPSHOT_DOCS_CHUNK = 1 << 20;
export const SNAPSHOT_FORMAT = 3;
/**
 * Formats a snapshot may have to load: 1 (documents as plain BSON, `D` records), 2 and 3 (`P` records; 2 with each
 * array in its own Binary, see unwrapPackedV2).
 */
const SNAPSHOT_FORMATS = [1, 2, 3];
/**
 * Starts the body of a journal's header record. Read as a BSON length ("HIND", little-endian) it exceeds MAX_RECORD,
 * so no op record of a journal written before headers existed can begin with it.
 */
const JOURNAL_MAGIC = Buffer.from('HINDJRNL', 'latin1');
export const JOURNAL_FORMAT = 2;
/**
 * Journal formats read: 1, and 2, whose `put` ops may hold their document packed as a snapshot does (`doc` with
 * `null` where each long numeric array stands, `p` and `v` beside it: see packed.ts). A journal without a header is
 * format 1. An op is unpacked when it has `v`, which no format 1 op has; an older build refuses a format 2 journal.
 */
const JOURNAL_FORMATS = [1, 2];
const DEFAULT_COMPACT_AFTER = 64 << 20;
const DEFAULT_COMPACT_SHARE = 0.25;
const DEFAULT_SNAPSHOT_CLOSE_WAIT_MS = 5_000;
/**
 * Recovery that replayed at least this share of `compactAfterBytes` of journal (16 MiB by default) writes a snapshot at
 * once, in the background, as a compaction does: the next restart then loads it instead of replaying the journal
 * again. At 100k experiences a journal of 10k inserts and 70k appends (112 MB) cost a restart about 1 s of CPU.
 */
const RECOVERED_COMPACT_SHARE = 0.25;
/** bson's default internal buffer is 17 MiB and it silently truncates strings past it; see `toBson`. */
const BSON_BUFFER_SAFE = 16 << 20;

const SEQ_DIGITS = 12;
const JOURNAL_RE = /^journal-(\d+)\.log$/;
const SNAPSHOT_RE = /^snapshot-(\d+)\.bson$/;
const TEMP_RE = /^(snapshot-\d+\.bson|journal-\d+\.log)\.tmp$/;
export const journalName = (seq: number) => `journal-${String(seq).padStart(SEQ_DIGITS, '0')}.log`;
export const snapshotName = (seq: number) => `snapshot-${String(seq).padStart(SEQ_DIGITS, '0')}.bson`;

/** The kind byte that starts each snapshot record's body. */
export const enum Kind {
  Header = 0x48, // 'H'
  Database = 0x42, // 'B'
  Collection = 0x43, // 'C'
  Documents = 0x44, // 'D'
  Packed = 0x50, // 'P'
  Sidecar = 0x53, // 'S'
  End = 0x45, // 'E'
}

interface Pending {
  record: Buffer;
  resolve: () => void;
  reject: (err: Error) => void;
}

/** An image copied at `image()` time so later writes cannot leak into a snapshot that is still being written. */
export interface FrozenImage {
  databases: { header: Uint8Array; collections: { header: Uint8Array; docs: Document[] }[] }[];
  /** Copied by the state when it made them. */
  sidecar: Document[];
}

/**
 * A data file is damaged or missing: the engine refuses to start rather than serve less than it acknowledged, and
 * leaves every file as it found it. `file` is the file's name in `dataDir`; `offset` the byte where the damage
 * starts (null for a missing file). `repairDataDir` (the CLI's `--repair`) salvages what can be verified.
 */
export class DataDamagedError extends Error {
  override readonly name = 'DataDamagedError';
  constructor(
    readonly dataDir: string,
    readonly file: string,
    readonly offset: number | null,
    /** What is wrong, without the advice on repairing. */
    readonly detail: string,
  ) {
    super(
      `${detail} (in ${dataDir}). The engine did not start and changed no file. To keep every record that can be ` +
        `verified, stop every engine on this directory and run \`npm run db -- --repair\` with DATA_DIR=${dataDir} ` +
        `(or call repairDataDir): it copies the damaged files aside first and reports what was lost.`,
    );
  }
}

/**
 * Which snapshot to load and which journals to replay, refusing a set of files with one missing: a snapshot is
 * written only after its own journal exists, journals are numbered without gaps, and a directory whose id file
 * exists (`expectData`) or that holds data derived from its data (DERIVED_DATA) has had a journal since its first start.
 */
export function checkDataFiles(
  dataDir: string,
  files: DataFiles,
  expectData: boolean,
): { base: number; first: number; replay: number[] } {
  const base = files.snapshots.at(-1) ?? 0;
  const first = Math.max(base, 1);
  const replay = files.journals.filter((seq) => seq >= first);
  const missing = (file: string, what: string) => new DataDamagedError(dataDir, file, null, what);
  if (base > 0 && replay[0] !== base)
    throw missing(journalName(base), `${journalName(base)}, the journal after ${snapshotName(base)}, is missing`);
  if (base === 0 && replay.length > 0 && replay[0] !== 1) {
    throw missing(
      snapshotName(replay[0]),
      `the oldest journal is ${journalName(replay[0])}, and neither ${snapshotName(replay[0])} nor ${journalName(1)} is there to hold what came before it`,
    );
  }
  const gap = replay.findIndex((seq, i) => seq !== first + i);
  if (gap > 0) {
    throw missing(
      journalName(first + gap),
      `${journalName(first + gap)} is missing between ${journalName(replay[gap - 1])} and ${journalName(replay[gap])}`,
    );
  }
  if (base === 0 && replay.length === 0 && (expectData || files.derived.length > 0)) {
    const evidence = expectData ? 'its id file' : `${files.derived.join(', ')}/, built from its data,`;
    throw missing(
      journalName(1),
      `${journalName(1)} is missing: the directory has ${evidence} but no journal and no snapshot`,
    );
  }
  return { base, first, replay };
}

/** Append-only journal with group commit, snapshots, compaction and crash recovery (see the file comment for the format). */
export class DurableLog {
  /** What `open` recovered. */
  readonly recovery: RecoveryReport;
  private readonly compactAfter: number;
  private readonly compactShare: number;
  private readonly fsync: boolean;
  private readonly log: EngineLog;
  private queue: Pending[] = [];
  private draining: Promise<void> | null = null;
  private snapshotting: Promise<void> | null = null;
  private compactRequests: { resolve: (done: Promise<void>) => void; reject: (err: Error) => void }[] = [];
  private compactAt: number;
  /** The last journal write failed: `unwritten` holds its records, to be written again before anything else. */
  private failure: Error | null = null;
  /**
   * Records of failed commits, in order. Their writes were applied in memory before the failure, so they must reach
   * the journal before any later record can build on them; their callers got the error, not an acknowledgement.
   */
  private unwritten: Buffer[] = [];
  private readonly wrapJournal: (fh: FileHandle) => FileHandle;
  private closed = false;
  /** Set by `close` when it stops waiting for the snapshot being written: the writer then gives it up. */
  private abandonSnapshot = false;
  /** The next rotation is the snapshot recovery asked for, which `close` may abandon; `optionalWriting`: the one being written is. */
  private optionalSnapshot = false;
  private optionalWriting = false;
  private readonly snapshotCloseWait: number;
  private commits = 0;
  private records = 0;

  private constructor(
    /** The data directory. */
    readonly dir: string,
    private readonly state: DurableState,
    private journal: FileHandle,
    private journalSeq: number,
    /** The current journal's format: whether its `put` records may be packed (see JOURNAL_FORMATS). */
    private journalFormat: number,
    private journalBytes: number,
    /** The current journal file's length after its last good commit: where a retry after a failure truncates to. */
    private journalLength: number,
    private snapshotBytes: number,
    recovery: RecoveryReport,
    options: DurableLogOptions,
  ) {
    this.recovery = recovery;
    this.compactAfter = options.compactAfterBytes ?? DEFAULT_COMPACT_AFTER;
    this.compactShare = options.compactAfterShare ?? DEFAULT_COMPACT_SHARE;
    this.fsync = options.fsync ?? true;
    this.snapshotCloseWait = options.snapshotCloseWaitMs ?? DEFAULT_SNAPSHOT_CLOSE_WAIT_MS;
    this.log = options.log ?? (() => undefined);
    this.wrapJournal = options.journalHandle ?? ((fh) => fh);
    this.journal = this.wrapJournal(journal);
    this.compactAt = this.threshold();
  }

  /** Journal bytes that make a compaction due (see `compactAfterShare`). */
  private threshold(): number {
    return Math.max(this.compactAfter, Math.round(this.snapshotBytes * this.compactShare));
  }

  /**
   * Loads the newest snapshot and replays the journals after it. A torn tail (the last record of the last journal
   * cut short or failing its checksum, nothing verifiable after it) is dropped, never half-applied. Any other
   * damage, or a file the others show is missing, throws a DataDamagedError and changes no file.
   */
  static async open(dataDir: string, state: DurableState, options: DurableLogOptions = {}): Promise<DurableLog> {
    const started = performance.now();
    const log = options.log ?? (() => undefined);
    await mkdir(dataDir, { recursive: true, mode: DIR_MODE });
    const files = await listDataDir(dataDir);
    const { base, first, replay } = checkDataFiles(dataDir, files, options.expectData ?? false);

    state.reset();
    // Once a journal has a header, every later one has: a journal without one was cut or replaced.
    let headerExpected =
      base > 0 ? await loadSnapshot(dataDir, snapshotName(base), state) : (options.expectData ?? false);
    const report: RecoveryReport = {
      snapshot: base || null,
      journals: replay.length,
      records: 0,
      ops: 0,
      discardedBytes: 0,
      ms: 0,
    };
    let journalBytes = 0;
    let journalLength = 0;
    let lastFormat = 1;
    for (const [i, seq] of replay.entries()) {
      const name = journalName(seq);
      const path = join(dataDir, name);
      let headed = false;
      lastFormat = 1;
      const { valid, size } = await readRecords(path, (body, offset) => {
        if (isJournalHeader(body)) {
          lastFormat = checkJournalHeader(dataDir, name, seq, body, offset);
          headed = true;
          return;
        }
        if (headerExpected && !headed) throw journalHeaderMissing(dataDir, name, 'begins with an op record');
        // Decode every op before applying any, so a record is all or nothing.
        const ops: JournalOp[] = [];
        for (let at = 0; at < body.length; at += body.readInt32LE(at)) {
          const op = decodeOp(body.subarray(at, at + body.readInt32LE(at)), state.keepsPacked === true);
          if (typeof op === 'string')
            throw new DataDamagedError(dataDir, name, offset, `${name} is damaged at byte ${offset}: ${op}`);
          ops.push(op);
        }
        for (const op of ops) state.apply(op);
        report.records++;
        report.ops += ops.length;
      });
      if (headerExpected && !headed) {
        throw journalHeaderMissing(
          dataDir,
          name,
          size === 0 ? 'is empty' : `does not begin with an intact header (${size} bytes)`,
        );
      }
      headerExpected ||= headed;
      journalBytes += valid;
      journalLength = valid;
      if (valid === size) continue;
      const next = await nextRecordAfter(path, valid, size);
      if (next !== null) {
        throw new DataDamagedError(
          dataDir,
          name,
          valid,
          `${name} has a damaged record at byte ${valid} of ${size}, followed by intact records from byte ${next}`,
        );
      }
      if (i < replay.length - 1) {
        // Only the last journal can have a torn tail: earlier ones were fsynced whole before the next was created.
        throw new DataDamagedError(
          dataDir,
          name,
          valid,
          `${name} has a damaged record at byte ${valid} of ${size} and is not the last journal`,
        );
      }
      report.discardedBytes = size - valid;
      log(`durability: discarded a torn tail of ${size - valid} bytes at byte ${valid} of ${name}`, 'warn');
      const fh = await open(path, 'r+');
      try {
        await fh.truncate(valid);
        await fh.sync();
      } finally {
        await fh.close();
      }
    }

    // Leftovers of an interrupted compaction: temp files, and files the chosen snapshot covers.
    const stale = [
      ...files.temps,
      ...files.journals.filter((seq) => seq < first).map(journalName),
      ...files.snapshots.filter((seq) => seq < base).map(snapshotName),
    ];
    for (const name of stale) await rm(join(dataDir, name), { force: true });

    const seq = replay.at(-1) ?? first;
    // A new journal, or an empty one from before headers existed (accepted above only where no header is expected).
    const created = journalLength === 0;
    if (created) journalLength = await createJournal(dataDir, seq);
    const journal = await openJournal(join(dataDir, journalName(seq)), options.fsync ?? true);
    if (stale.length > 0 || created) await syncDir(dataDir);
    report.ms = performance.now() - started;
    const snapshotBytes = base > 0 ? (await stat(join(dataDir, snapshotName(base)))).size : 0;
    const durable = new DurableLog(
      dataDir,
      state,
      journal,
      seq,
      created ? JOURNAL_FORMAT : lastFormat,
      journalBytes,
      journalLength,
      snapshotBytes,
      report,
      options,
    );
    // A journal this large is replayed again by every restart until the next compaction, which might be far off (a
    // quarter of the snapshot): folded into a snapshot now, in the background, the next restart loads it instead.
    if (!durable.compactionDue() && journalBytes >= durable.compactAfter * RECOVERED_COMPACT_SHARE) {
      durable.compactAt = 0;
      durable.optionalSnapshot = true;
    }
    if (durable.compactionDue()) durable.kick();
    return durable;
  }

  /**
   * Appends ONE journal record holding all `ops` (atomic on recovery: all or none). Resolves only after the bytes are fsynced.
   * Concurrent appends are group-committed (one fsync for many records), order preserved. May trigger compaction in the background.
   * An empty `ops` writes nothing and resolves once every earlier append is durable.
   */
  append(ops: JournalOp[]): Promise<void> {
    if (this.closed) return Promise.reject(new Error('durability: the journal is closed'));
    // Encoded now: the ops must be recorded as they are at the time of the write.
    const packed = this.journalFormat >= 2;
    const record = ops.length > 0 ? frame(ops.map((op) => encodeOp(op, packed))) : Buffer.alloc(0);
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ record, resolve, reject });
      this.kick();
    });
  }

  /** Writes a snapshot of state.image() and drops the journal it covers; restart time then depends on data size, not history. */
  async compact(): Promise<void> {
    while (this.snapshotting) await this.snapshotting.catch(() => undefined);
    if (this.failure) throw this.failure;
    if (this.closed) throw new Error('durability: the journal is closed');
    // The writer resolves a request with the snapshot's promise once it has rotated, so this settles with the snapshot.
    await new Promise<Promise<void>>((resolve, reject) => {
      this.compactRequests.push({ resolve, reject });
      this.kick();
    });
  }

  /**
   * Waits for pending appends and any snapshot in progress, tries once more to write failed ones, then closes the
   * journal. The snapshot a recovery started is waited for up to `snapshotCloseWaitMs`, then abandoned: nothing depends
   * on it, since the journals it would have covered are only removed once it is durable.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    if (this.failure) await this.append([]).catch(() => undefined);
    this.closed = true;
    const writing = this.snapshotting;
    if (writing && this.optionalWriting) {
      let timer: NodeJS.Timeout | undefined;
      const finished = await Promise.race([
        writing.then(
          () => true,
          () => true,
        ),
        new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), this.snapshotCloseWait))),
      ]);
      clearTimeout(timer);
      if (!finished) this.abandonSnapshot = true;
    }
    while (this.draining || this.snapshotting) {
      await this.draining;
      await this.snapshotting?.catch(() => undefined);
    }
    await this.journal.close();
  }

  /** Counters for tests and benchmarks: `commits` write+fsync rounds carried `records` appends. */
  get stats(): { commits: number; records: number; journalSeq: number; journalBytes: number } {
    return {
      commits: this.commits,
      records: this.records,
      journalSeq: this.journalSeq,
      journalBytes: this.journalBytes,
    };
  }

  /** The state now, as a snapshot holds it, taken synchronously (so consistent with every command before the call). */
  image(): FrozenImage {
    return freeze(this.state.image(), this.state.sidecar?.() ?? []);
  }

  private kick(): void {
    if (!this.draining) this.draining = this.drain();
  }

  /** The single writer: everything queued while one fsync runs goes out in the next write, in order. */
  private async drain(): Promise<void> {
    // Lets `kick` store this promise first, and lets appends made in the same tick join the first group.
    await null;
    try {
      // After a failure the loop goes on only for appends made meanwhile: each is a new attempt (see `commit`).
      while (this.queue.length > 0 || this.compactionDue()) {
        if (this.queue.length > 0) await this.commit(this.queue.splice(0));
        if (this.compactionDue()) await this.rotate();
      }
    } finally {
      this.draining = null;
      if (this.failure) {
        for (const request of this.compactRequests.splice(0)) request.reject(this.failure);
      } else if (this.closed) {
        for (const request of this.compactRequests.splice(0))
          request.reject(new Error('durability: the journal is closed'));
      }
    }
  }

  private compactionDue(): boolean {
    return (
      !this.failure &&
      !this.closed &&
      !this.snapshotting &&
      (this.compactRequests.length > 0 || this.journalBytes >= this.compactAt)
    );
  }

  /**
   * Writes the records of earlier failed commits, then the batch's. After a failed write or fsync the bytes past
   * `journalLength` (the length after the last good commit) are unknown, and retrying an fsync can falsely succeed,
   * so a retry first truncates to that length and writes everything again. A failed batch joins `unwritten`.
   */
  private async commit(batch: Pending[]): Promise<void> {
    const records = [...this.unwritten, ...batch.map((p) => p.record).filter((r) => r.length > 0)];
    const bytes = records.reduce((sum, record) => sum + record.length, 0);
    try {
      if (this.failure) await this.journal.truncate(this.journalLength);
      if (bytes > 0) {
        await writeAll(this.journal, records.length === 1 ? records[0] : Buffer.concat(records, bytes));
        if (this.fsync && !SYNCED_WRITES) await this.journal.datasync();
        this.journalBytes += bytes;
        this.journalLength += bytes;
        this.commits++;
        this.records += records.length;
      }
    } catch (err) {
      this.failure = new Error(`durability: journal write failed: ${(err as Error).message}`, { cause: err });
      this.unwritten = records;
      for (const pending of batch) pending.reject(this.failure);
      return;
    }
    if (this.failure)
      this.log(`durability: journal writes resumed with ${this.unwritten.length} records that had failed`, 'warn');
    this.failure = null;
    this.unwritten = [];
    for (const pending of batch) pending.resolve();
  }

  /**
   * Takes the image, seals the current journal with the records the image already contains, switches appends
   * to a new journal, and writes the snapshot in the background. The image then equals the state at the end
   * of the sealed journal, so the snapshot covers exactly the journals before the new one.
   */
  private async rotate(): Promise<void> {
    const requests = this.compactRequests.splice(0);
    // Asked for by compact(), it is no longer only the one recovery asked for.
    const optional = this.optionalSnapshot && requests.length === 0;
    this.optionalSnapshot = false;
    try {
      const image = this.image();
      const carried = this.queue.splice(0);
      if (carried.length > 0) await this.commit(carried);
      if (this.failure) throw this.failure;
      const seq = this.journalSeq + 1;
      const headerBytes = await createJournal(this.dir, seq);
      const next = this.wrapJournal(await openJournal(join(this.dir, journalName(seq)), this.fsync));
      try {
        await syncDir(this.dir);
      } catch (err) {
        await next.close();
        throw err;
      }
      const sealed = this.journal;
      this.journal = next;
      this.journalSeq = seq;
      this.journalFormat = JOURNAL_FORMAT;
      this.journalBytes = 0;
      this.journalLength = headerBytes;
      this.compactAt = this.compactAfter;
      await sealed.close();

      this.optionalWriting = optional;
      const snapshot = this.writeSnapshot(seq, image).finally(() => {
        this.snapshotting = null;
        this.optionalWriting = false;
        if (this.compactRequests.length > 0) this.kick();
      });
      this.snapshotting = snapshot;
      snapshot.catch((err: Error) =>
        err instanceof SnapshotAbandoned
          ? this.log(
              `durability: ${snapshotName(seq)} abandoned: the engine closed before it was written (the next start replays the journals instead)`,
            )
          : this.log(`durability: snapshot ${snapshotName(seq)} failed: ${err.message}`, 'warn'),
      );
      for (const request of requests) request.resolve(snapshot);
    } catch (err) {
      // Appends carry on in the current journal; try again after another compactAfterBytes.
      this.compactAt = this.journalBytes + this.compactAfter;
      for (const request of requests) request.reject(err as Error);
    }
  }

  private async writeSnapshot(seq: number, image: FrozenImage): Promise<void> {
    const started = performance.now();
    const final = join(this.dir, snapshotName(seq));
    await writeSnapshotFile(final, seq, image, () => this.abandonSnapshot);
    await syncDir(this.dir);
    this.snapshotBytes = (await stat(final)).size;
    this.log(
      `durability: wrote ${snapshotName(seq)} (${(this.snapshotBytes / 1024 ** 2).toFixed(0)} MiB) in ${Math.round(performance.now() - started)} ms`,
    );
    this.compactAt = Math.max(this.compactAt, this.threshold());
    // The snapshot is durable: the journals and snapshots it covers can go.
    const files = await listDataDir(this.dir);
    const covered = [
      ...files.journals.filter((s) => s < seq).map(journalName),
      ...files.snapshots.filter((s) => s < seq).map(snapshotName),
    ];
    for (const name of covered) await rm(join(this.dir, name), { force: true });
    if (covered.length > 0) await syncDir(this.dir);
  }
}

/** A snapshot given up before it was complete (see `snapshotCloseWaitMs`). */
export class SnapshotAbandoned extends Error {
  override readonly name = 'SnapshotAbandoned';
}

/**
 * Writes `image` as the snapshot `final` (numbered `seq`): as `.tmp`, fsynced, then renamed. The caller syncs the
 * directory. Once `abandon` returns true the temporary file is removed and it throws SnapshotAbandoned.
 */
export async function writeSnapshotFile(
  final: string,
  seq: number,
  image: FrozenImage,
  abandon: () => boolean = () => false,
): Promise<void> {
  const temp = `${final}.tmp`;
  const fh = await open(temp, 'w', FILE_MODE);
  try {
    const out = new ChunkedWriter(fh, abandon);
    let collections = 0;
    let documents = 0;
    await out.record(Kind.Header, [toBson({ format: SNAPSHOT_FORMAT, seq, journalHeaders: true })]);
    for (const db of image.databases) {
      await out.record(Kind.Database, [db.header]);
      for (const coll of db.collections) {
        collections++;
        await out.record(Kind.Collection, [coll.header]);
        let parts: Uint8Array[] = [];
        let size = 0;
        for (const doc of coll.docs) {
          const bson = snapshotDocument(doc);
          parts.push(bson);
          size += bson.length;
          documents++;
          if (size >= SNAPSHOT_DOCS_CHUNK) {
            await out.record(Kind.Packed, parts);
            parts = [];
            size = 0;
          }
        }
        if (parts.length > 0) await out.record(Kind.Packed, parts);
      }
    }
    for (const doc of image.sidecar) await out.record(Kind.Sidecar, [toBson(doc)]);
    await out.record(Kind.End, [
      toBson({ databases: image.databases.length, collections, documents, sidecar: image.sidecar.length }),
    ]);
    await out.flush();
    if (abandon()) throw new SnapshotAbandoned('snapshot abandoned');
    await fh.sync();
  } catch (err) {
    await fh.close().catch(() => undefined);
    await rm(temp, { force: true });
    throw err;
  }
  await fh.close();
  await rename(temp, final);
}

/**
 * Frames records straight into one chunk buffer and writes it once it holds WRITE_CHUNK bytes (the buffer is reused:
 * each write is awaited before the next record), so long snapshots yield to the event loop, and a record's bytes are
 * copied once, not into a framed record and again into a chunk.
 */
class ChunkedWriter {
  private chunk = Buffer.allocUnsafe(2 * WRITE_CHUNK);
  private size = 0;
  constructor(
    private readonly fh: FileHandle,
    private readonly abandon: () => boolean,
  ) {}

  async record(kind: Kind, body: Uint8Array[]): Promise<void> {
    if (this.abandon()) throw new SnapshotAbandoned('snapshot abandoned');
    const kindByte = Uint8Array.of(kind);
    let length = kindByte.length;
    let crc = crc32(kindByte);
    for (const part of body) {
      length += part.length;
      crc = crc32(part, crc);
    }
    const total = RECORD_HEADER + length;
    if (this.size + total > this.chunk.length) {
      await this.flush();
      if (total > this.chunk.length) this.chunk = Buffer.allocUnsafe(total);
    }
    const chunk = this.chunk;
    let at = this.size;
    chunk.writeUInt32LE(length, at);
    chunk.writeUInt32LE(crc, at + 4);
    at += RECORD_HEADER;
    chunk[at++] = kind;
    for (const part of body) {
      chunk.set(part, at);
      at += part.length;
    }
    this.size = at;
    if (this.size >= WRITE_CHUNK) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.size === 0) return;
    const size = this.size;
    this.size = 0;
    await writeAll(this.fh, this.chunk.subarray(0, size));
  }
}

function freeze(image: DatabaseImage[], sidecar: Document[]): FrozenImage {
  return {
    sidecar,
    databases: image.map((db) => ({
      header: toBson({ name: db.name }),
      collections: db.collections.map((coll) => ({
        header: toBson({
          db: db.name,
          name: coll.name,
          options: coll.options,
          indexes: coll.indexes,
          ...(coll.searchIndexes?.length ? { searchIndexes: coll.searchIndexes } : {}),
        }),
        docs: Array.from(coll.docs),
      })),
    })),
  };
}

/**
 * Loads a snapshot into `state`, record by record; any damage is a DataDamagedError naming the record's offset.
 * Returns whether the journals after it have headers.
 */
async function loadSnapshot(dataDir: string, name: string, state: DurableState): Promise<boolean> {
  const loader = snapshotLoader(dataDir, name, state);
  // Documents are loaded record by record, so that recovery never holds the whole snapshot decoded at once (the
  // engine keeps less than the decoded documents: see spill.ts).
  const { valid, size } = await readRecords(join(dataDir, name), loader.record);
  return loader.end(valid, size).journalHeaders;
}

/**
 * Loads a snapshot's records, fed one at a time, into `state`; `end` checks the counts against the end marker.
 * Recovery feeds it from the file, repair from the snapshot it salvaged.
 */
export function snapshotLoader(
  dataDir: string,
  name: string,
  state: DurableState,
): {
  record: (body: Buffer, offset: number) => void;
  end: (valid: number, size: number) => { journalHeaders: boolean };
} {
  const databases: string[] = [];
  let collection: CollectionImage | null = null;
  let header: Document | null = null;
  let end: Document | null = null;
  let collections = 0;
  let documents = 0;
  const sidecar: Document[] = [];
  let at = 0;
  const damaged = (offset: number, what: string) =>
    new DataDamagedError(dataDir, name, offset, `${name} is damaged at byte ${offset}: ${what}`);
  const record = (body: Buffer, offset: number): void => {
    at = offset;
    if (end) throw damaged(offset, 'records after the end marker');
    const payload = body.subarray(1);
    switch (body[0]) {
      case Kind.Header:
        header = deserialize(payload, BSON_READ);
        if (!SNAPSHOT_FORMATS.includes(header.format as number)) throw damaged(offset, 'unknown header');
        break;
      case Kind.Database:
        if (!header) throw damaged(offset, 'missing header');
        databases.push(deserialize(payload, BSON_READ).name as string);
        break;
      case Kind.Collection: {
        const meta = deserialize(payload, BSON_READ);
        if (databases.at(-1) !== meta.db) throw damaged(offset, 'collection outside its database');
        collection = {
          name: meta.name as string,
          options: meta.options as Document,
          indexes: meta.indexes as IndexSpec[],
          searchIndexes: meta.searchIndexes as SearchIndexSpec[] | undefined,
          docs: [],
        };
        state.loadImage([{ name: meta.db as string, collections: [collection] }]);
        collections++;
        break;
      }
      case Kind.Documents:
      case Kind.Packed: {
        if (!collection) throw damaged(offset, 'documents outside a collection');
        let docs: Document[];
        if (body[0] === Kind.Documents) docs = decodeConcatenated(body, 1);
        else {
          const format = (header as Document | null)?.format;
          if (format !== 2 && format !== 3) throw damaged(offset, `unknown record kind ${body[0]}`);
          const unwrap = format === 2 ? unwrapPackedV2 : unwrapPacked;
          docs = decodePacked(body, join(dataDir, name), offset, unwrap, (what) => damaged(offset, what));
          if (state.keepsPacked !== true) for (const doc of docs) unpackDocument(doc);
        }
        state.loadImage([{ name: databases.at(-1)!, collections: [{ ...collection, docs }] }]);
        documents += docs.length;
        break;
      }
      case Kind.Sidecar:
        sidecar.push(deserialize(payload, BSON_READ));
        break;
      case Kind.End:
        end = deserialize(payload, BSON_READ);
        break;
      default:
        throw damaged(offset, `unknown record kind ${body[0]}`);
    }
  };
  const finish = (valid: number, size: number): { journalHeaders: boolean } => {
    const e = end as Document | null;
    const h = header as Document | null;
    if (valid !== size) throw damaged(valid, `a record fails its length or checksum (file size ${size})`);
    if (!h) throw damaged(0, 'missing or unknown header');
    if (
      !e ||
      e.databases !== databases.length ||
      e.collections !== collections ||
      e.documents !== documents ||
      (e.sidecar ?? 0) !== sidecar.length
    ) {
      throw damaged(at, 'missing end marker or counts do not match');
    }
    state.loadSidecar?.(sidecar);
    return { journalHeaders: h.journalHeaders === true };
  };
  return { record, end: finish };
}

/**
 * Calls `onRecord` with the body and file offset of each intact record, in order, reading the file in chunks (the
 * next one is read while the records of the current one are handled). Stops at the first torn or corrupt record;
 * `valid` is the byte offset where intact records end.
 */
export async function readRecords(
  path: string,
  onRecord: (body: Buffer, offset: number) => void,
): Promise<{ valid: number; size: number }> {
  const fh = await open(path, 'r');
  let ahead: Promise<Buffer> | null = null;
  try {
    const { size } = await fh.stat();
    let requested = 0; // file offset of the next chunk to read
    const readChunk = (): Promise<Buffer> | null => {
      if (requested >= size) return null;
      const length = Math.min(READ_CHUNK, size - requested);
      const chunk = Buffer.allocUnsafe(length);
      const read = readAll(fh, chunk, 0, length, requested).then(() => chunk);
      // Awaited below, or left behind by an early return: never an unhandled rejection.
      read.catch(() => undefined);
      requested += length;
      return read;
    };
    ahead = readChunk();
    let buf: Buffer = Buffer.alloc(0);
    let bufStart = 0; // file offset of buf[0]
    let at = 0; // offset in buf of the next record
    for (;;) {
      while (buf.length - at >= RECORD_HEADER) {
        const length = buf.readUInt32LE(at);
        if (length === 0 || length > MAX_RECORD || bufStart + at + RECORD_HEADER + length > size)
          return { valid: bufStart + at, size };
        if (buf.length - at < RECORD_HEADER + length) break;
        const body = buf.subarray(at + RECORD_HEADER, at + RECORD_HEADER + length);
        if (crc32(body) !== buf.readUInt32LE(at + 4)) return { valid: bufStart + at, size };
        onRecord(body, bufStart + at);
        at += RECORD_HEADER + length;
      }
      if (!ahead) return { valid: bufStart + at, size };
      // The rest of the record at `at` (its length checked above to end within the file), read chunk by chunk.
      const rest = buf.subarray(at);
      const needed = rest.length >= RECORD_HEADER ? RECORD_HEADER + rest.readUInt32LE(0) : RECORD_HEADER;
      const parts: Buffer[] = [rest];
      let have = rest.length;
      do {
        const chunk: Buffer = await ahead;
        ahead = readChunk();
        parts.push(chunk);
        have += chunk.length;
      } while (have < needed && ahead);
      bufStart += at;
      buf = parts.length === 2 && rest.length === 0 ? parts[1] : Buffer.concat(parts, have);
      at = 0;
    }
  } finally {
    await ahead?.catch(() => undefined);
    await fh.close();
  }
}

/** The size of the intact record at `at` in `buf` (header included), or 0 if its length or checksum fails. */
export function recordSizeAt(buf: Buffer, at: number): number {
  if (buf.length - at < RECORD_HEADER) return 0;
  const length = buf.readUInt32LE(at);
  if (length === 0 || length > MAX_RECORD || at + RECORD_HEADER + length > buf.length) return 0;
  const body = buf.subarray(at + RECORD_HEADER, at + RECORD_HEADER + length);
  return crc32(body) === buf.readUInt32LE(at + 4) ? RECORD_HEADER + length : 0;
}

/**
 * The first offset after `from` in `buf` where an intact record starts, or -1: how damage in the middle of a
 * file (records verify after it) is told from a torn tail (nothing does). A chance match needs a 32-bit checksum
 * to agree.
 */
export function nextRecord(buf: Buffer, from: number): number {
  for (let at = from; at + RECORD_HEADER < buf.length; at++) if (recordSizeAt(buf, at) > 0) return at;
  return -1;
}

/** The file offset of the first intact record after the bad one at `bad`, or null when none follows. */
async function nextRecordAfter(path: string, bad: number, size: number): Promise<number | null> {
  const fh = await open(path, 'r');
  try {
    const rest = Buffer.allocUnsafe(size - bad);
    await readAll(fh, rest, 0, rest.length, bad);
    const at = nextRecord(rest, 1);
    return at < 0 ? null : bad + at;
  } finally {
    await fh.close();
  }
}

/** The header record that begins journal `seq`. */
export function journalHeader(seq: number): Buffer {
  return frame([JOURNAL_MAGIC, toBson({ format: JOURNAL_FORMAT, seq })]);
}

/** Whether a journal record's body is a header (see JOURNAL_MAGIC). */
export function isJournalHeader(body: Buffer): boolean {
  return body.length > JOURNAL_MAGIC.length && JOURNAL_MAGIC.equals(body.subarray(0, JOURNAL_MAGIC.length));
}

/**
 * Refuses a header that is not the first record, of an unknown format, or of another journal (a copied file); returns
 * the journal's format.
 */
function checkJournalHeader(dataDir: string, name: string, seq: number, body: Buffer, offset: number): number {
  const damaged = (what: string) =>
    new DataDamagedError(dataDir, name, offset, `${name} is damaged at byte ${offset}: ${what}`);
  if (offset !== 0) throw damaged('a journal header after its first record');
  const header = deserialize(body.subarray(JOURNAL_MAGIC.length), BSON_READ);
  if (!JOURNAL_FORMATS.includes(header.format as number))
    throw damaged(`unknown journal format ${String(header.format)}`);
  if (header.seq !== seq) throw damaged(`the header of journal ${String(header.seq)}`);
  return header.format as number;
}

/**
 * An op as a journal record holds it: a `put` of a document with long numeric arrays, in a journal of format 2 or
 * later (`packed`), with them packed as a snapshot holds them (taken from the spill file as bytes).
 */
export function encodeOp(op: JournalOp, packed: boolean): Uint8Array {
  if (!packed || op.t !== 'put') return toBson(op);
  const { d, p, v } = packedForSnapshot(op.doc, snapshotArray);
  if (!v) return toBson(op);
  return toBson({ ...op, doc: d, p, v });
}

/**
 * Decodes one op of a journal record; a packed `put` gets its document back with PackedNumbers, or with arrays unless
 * `keepsPacked`. Returns what is wrong with a malformed one instead.
 */
export function decodeOp(bytes: Uint8Array, keepsPacked: boolean): JournalOp | string {
  const op = deserialize(bytes, BSON_READ) as JournalOp & { p?: unknown; v?: unknown };
  if (op.t !== 'put' || op.v === undefined) return op;
  const doc = unwrapPacked({ d: op.doc, p: op.p, v: op.v }, bytes);
  if (typeof doc === 'string') return doc;
  if (!keepsPacked) unpackDocument(doc);
  const { p: _p, v: _v, ...plain } = op;
  return { ...plain, doc } as JournalOp;
}

function journalHeaderMissing(dataDir: string, name: string, what: string): DataDamagedError {
  return new DataDamagedError(
    dataDir,
    name,
    0,
    `${name} ${what} where a journal header is expected: it was cut or replaced, and its records are lost`,
  );
}

/**
 * Creates journal `seq` holding only its header (as `.tmp`, fsynced, renamed over any empty one), so a journal under
 * its name always begins with one. The caller syncs the directory. Returns the header's size.
 */
export async function createJournal(dir: string, seq: number): Promise<number> {
  const final = join(dir, journalName(seq));
  const header = journalHeader(seq);
  const fh = await open(`${final}.tmp`, 'w', FILE_MODE);
  try {
    await writeAll(fh, header);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(`${final}.tmp`, final);
  return header.length;
}

/** Decodes the BSON documents laid end to end in `body` from `start`. */
export function decodeConcatenated(body: Buffer, start: number): Document[] {
  const docs: Document[] = [];
  for (let at = start; at < body.length;) {
    const length = body.readInt32LE(at);
    docs.push(deserialize(body.subarray(at, at + length), BSON_READ));
    at += length;
  }
  return docs;
}

/**
 * A stored document as a snapshot's `P` record holds it (see packedForSnapshot): its long numeric arrays, spilled or
 * not, as packed bytes. Spilled arrays are copied from the spill file as bytes, never read into arrays.
 */
export function snapshotDocument(doc: Doc): Uint8Array {
  return toBson(packedForSnapshot(doc, snapshotArray));
}

function snapshotArray(container: Doc, key: string): PackedNumbers | undefined {
  const spilled = spilledNumbers(container, key);
  if (spilled) return spilled;
  const value = container[key];
  const float32 = numberEncoding(value);
  return float32 === undefined ? undefined : PackedNumbers.fromArray(value as number[], float32);
}

/**
 * Decodes the documents of a `P` record's `body`, read from `offset` of the snapshot `file`: their packed arrays as
 * PackedNumbers (the store spills or unpacks them); `damaged` makes the error for a malformed one.
 */
function decodePacked(
  body: Buffer,
  file: string,
  offset: number,
  unwrap: (wrapper: Doc, record: Uint8Array, source: { file: string; position: number }) => Doc | string,
  damaged: (what: string) => Error,
): Document[] {
  const source = { file, position: offset + RECORD_HEADER };
  const docs: Document[] = [];
  for (let at = 1; at < body.length;) {
    const length = body.readInt32LE(at);
    const doc = unwrap(deserialize(body.subarray(at, at + length), BSON_READ), body, source);
    if (typeof doc === 'string') throw damaged(doc);
    docs.push(doc);
    at += length;
  }
  return docs;
}

/** Frames a body given in parts: `[u32 length][u32 crc32][body]`. */
export function frame(parts: Uint8Array[]): Buffer {
  let length = 0;
  let crc = 0;
  for (const part of parts) {
    length += part.length;
    crc = crc32(part, crc);
  }
  const record = Buffer.allocUnsafe(RECORD_HEADER + length);
  record.writeUInt32LE(length, 0);
  record.writeUInt32LE(crc, 4);
  let at = RECORD_HEADER;
  for (const part of parts) {
    record.set(part, at);
    at += part.length;
  }
  return record;
}

/**
 * `serialize` with a guard: past bson's internal buffer (17 MiB) it truncates strings silently instead of
 * failing, so a large result is re-encoded after growing the buffer to the exact size.
 */
export function toBson(doc: Document): Uint8Array {
  const out = serialize(doc);
  if (out.length < BSON_BUFFER_SAFE) return out;
  setInternalBufferSize(Math.max(calculateObjectSize(doc), 17 << 20));
  return serialize(doc);
}

/**
 * Where the OS has O_DSYNC, a journal opened for durable appends gets it: each write returns once its data is
 * on disk, so a commit is one trip to the thread pool instead of a write and then an fdatasync.
 */
const SYNCED_WRITES = constants.O_DSYNC !== undefined;

function openJournal(path: string, durable: boolean): Promise<FileHandle> {
  if (!durable || !SYNCED_WRITES) return open(path, 'a', FILE_MODE);
  return open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | constants.O_DSYNC, FILE_MODE);
}

async function writeAll(fh: FileHandle, data: Buffer): Promise<void> {
  for (let at = 0; at < data.length;) {
    const { bytesWritten } = await fh.write(data, at, data.length - at);
    at += bytesWritten;
  }
}

async function readAll(fh: FileHandle, into: Buffer, offset: number, length: number, position: number): Promise<void> {
  for (let done = 0; done < length;) {
    const { bytesRead } = await fh.read(into, offset + done, length - done, position + done);
    if (bytesRead === 0) throw new Error('durability: file shrank while being read');
    done += bytesRead;
  }
}

/** Copies `dataDir/name` into the directory `to` and fsyncs the copy (the caller syncs `to`). */
export async function copyDurably(dataDir: string, name: string, to: string): Promise<void> {
  await copyFile(join(dataDir, name), join(to, name));
  // copyFile keeps the source's mode, which an older data dir may have had wider.
  await chmod(join(to, name), FILE_MODE);
  const fh = await open(join(to, name), 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Makes created, renamed and removed directory entries durable. */
export async function syncDir(dir: string): Promise<void> {
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** The data files of a directory, sequence numbers ascending. */
export interface DataFiles {
  journals: number[];
  snapshots: number[];
  temps: string[];
  /** Entries of DERIVED_DATA that are there. */
  derived: string[];
}

/**
 * What programs on the engine keep in its data directory, derived from its data (Hindsight's search index): there
 * with no journal and no snapshot, it shows the data it was built from is missing.
 */
export const DERIVED_DATA = ['search'];

export async function listDataDir(dir: string): Promise<DataFiles> {
  const journals: number[] = [];
  const snapshots: number[] = [];
  const temps: string[] = [];
  const derived: string[] = [];
  for (const name of await readdir(dir)) {
    if (DERIVED_DATA.includes(name)) derived.push(name);
    const journal = JOURNAL_RE.exec(name);
    const snapshot = SNAPSHOT_RE.exec(name);
    if (journal) journals.push(Number(journal[1]));
    else if (snapshot) snapshots.push(Number(snapshot[1]));
    else if (TEMP_RE.test(name)) temps.push(name);
  }
  const ascending = (a: number, b: number) => a - b;
  return { journals: journals.sort(ascending), snapshots: snapshots.sort(ascending), temps, derived };
}
