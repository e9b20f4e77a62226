/**
 * Repair of a damaged data directory (`npm run db -- --repair`, `repairDataDir`): what `DurableLog.open` refuses
 * with a DataDamagedError, this salvages. Every file it changes is first copied to `damaged-<time>/` in the data
 * directory, beside a `repair-report.json` of what was lost; the engine must not be running on the directory.
 *
 * - A journal keeps every record whose length and checksum verify: after a damaged stretch, reading resumes at
 *   the next offset where a record verifies.
 * - A snapshot keeps its verifiable records that still make sense in order (documents whose collection record was
 *   lost cannot be placed and are skipped); its end marker is rewritten with the new counts. Should change log
 *   records be lost, the whole change log is dropped and the directory's id moved aside, so no resume token handed
 *   out before can resume at a wrong place.
 * - A missing journal is replaced by an empty one, a missing snapshot before the oldest journal by an empty one,
 *   and an id file or derived data (DERIVED_DATA) with no data at all is moved aside: the engine then starts with
 *   what is left (empty), and what was derived is built again from it.
 * - What is kept is replayed, in recovery's order, into a scratch Store: a journaled op that cannot apply there (an
 *   update of a document whose insert was lost) is left out of its journal, or recovery would stop at it.
 */
import { mkdir, open, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { deserialize, type Document } from 'bson';
import { DIR_MODE, FILE_MODE } from './files';
import { ID_FILE } from './changes';
import {
  BSON_READ,
  DataDamagedError,
  Kind,
  type JournalOp,
  SNAPSHOT_FORMAT,
  copyDurably,
  decodeConcatenated,
  decodeOp,
  frame,
  isJournalHeader,
  journalHeader,
  journalName,
  listDataDir,
  nextRecord,
  recordSizeAt,
  snapshotLoader,
  snapshotName,
  syncDir,
  toBson,
} from './durability';
import { Store } from './store';
import { formatValue } from './values';

/** A stretch of a file that no record verifies in. */
export interface LostRange {
  offset: number;
  bytes: number;
  /** Records the stretch held, when their length fields still chain across it; null when they do not. */
  records: number | null;
}

/** A journaled op left out because it cannot apply to what was salvaged before it. */
export interface DroppedOp {
  kind: JournalOp['t'];
  /** `db.coll`, for ops on a collection. */
  ns: string | null;
  /** The document's `_id` as the shell prints it, for ops on a document. */
  id: string | null;
  reason: string;
}

/** What repair did to one file. */
export interface RepairedFile {
  file: string;
  /**
   * `damaged`: records failed in it; `missing`: another file shows it existed; `unreadable`: the id file; `stale`:
   * derived from data that is gone.
   */
  status: 'damaged' | 'missing' | 'unreadable' | 'stale';
  /** Size before repair (0 when missing). */
  bytes: number;
  keptRecords: number;
  /**
   * Verifiable records left out because what they depend on was lost (snapshot documents, change log, journal
   * records none of whose ops could apply).
   */
  droppedRecords: number;
  /** Journal ops left out of kept records, or of dropped ones, because they could not apply. */
  droppedOps: DroppedOp[];
  lost: LostRange[];
  /** What was done, for people. */
  action: string;
}

export interface RepairReport {
  dataDir: string;
  /** Where the originals and the report were put; null when nothing needed repair. */
  damagedDir: string | null;
  /** The JSON report in `damagedDir`. */
  reportFile: string | null;
  files: RepairedFile[];
  /** Bytes in damaged stretches, over all files. */
  lostBytes: number;
  /** One line per file, as the CLI prints them. */
  summary: string[];
}

/**
 * Repairs `dataDir` so the engine starts again with every record that can be verified (see the file comment).
 * The engine must not be running on it. Returns the report (also written as `damaged-<time>/repair-report.json`).
 */
export async function repairDataDir(dataDir: string): Promise<RepairReport> {
  const files = await listDataDir(dataDir);
  const base = files.snapshots.at(-1) ?? 0;
  const first = Math.max(base, 1);
  const journals = files.journals.filter((seq) => seq >= first);
  const repairs: { entry: RepairedFile; write: ((damagedDir: string) => Promise<void>) | null }[] = [];
  let dropChangeLog = false;
  // What recovery will load, replayed as it will be, so that journal ops that cannot apply are found.
  const scratch = new Store();
  const hasId = await readFile(join(dataDir, ID_FILE)).then(
    () => true,
    () => false,
  );
  // As recovery decides it: the snapshot says so, or the id file with no snapshot; then every journal after a headed one.
  let headerExpected = base > 0 ? false : hasId;

  if (base > 0) {
    const name = snapshotName(base);
    const data = await readFile(join(dataDir, name));
    const { records, lost } = scan(data);
    const load = (file: Buffer): void => {
      scratch.reset();
      const loader = snapshotLoader(dataDir, name, scratch);
      for (const { offset, end } of scan(file).records) loader.record(file.subarray(offset + 8, end), offset);
      headerExpected = loader.end(file.length, file.length).journalHeaders;
    };
    if (lost.length === 0) {
      try {
        load(data);
      } catch (error) {
        // Every record verifies, but the file is cut at a record boundary (no end marker; empty): what followed is
        // unknown.
        if (!(error instanceof DataDamagedError)) throw error;
        lost.push({ offset: data.length, bytes: 0, records: null });
      }
    }
    if (lost.length > 0) {
      const salvaged = salvageSnapshot(data, records, base);
      dropChangeLog = salvaged.changeLogLost;
      repairs.push({
        entry: {
          file: name,
          status: 'damaged',
          bytes: data.length,
          keptRecords: salvaged.kept,
          droppedRecords: salvaged.dropped,
          droppedOps: [],
          lost,
          action: `rewritten with its ${salvaged.kept} verifiable records`,
        },
        write: () => replaceFile(dataDir, name, salvaged.file),
      });
      load(salvaged.file);
    }
  }
  // Journals from the snapshot's own to the newest, each there and intact.
  const last = Math.max(journals.at(-1) ?? 0, base > 0 ? base : 0);
  if (base === 0 && journals.length > 0 && journals[0] > 1) {
    const name = snapshotName(journals[0]);
    repairs.push({
      entry: missingEntry(name, `an empty snapshot written: what came before ${journalName(journals[0])} is lost`),
      write: () => replaceFile(dataDir, name, emptySnapshot(journals[0])),
    });
  }
  for (let seq = base === 0 ? (journals[0] ?? 1) : first; seq <= last; seq++) {
    const name = journalName(seq);
    if (!journals.includes(seq)) {
      repairs.push({
        entry: missingEntry(name, 'a journal of only its header written in its place: its records are lost'),
        write: () => replaceFile(dataDir, name, journalHeader(seq)),
      });
      continue;
    }
    const data = await readFile(join(dataDir, name));
    const { records, lost } = scan(data);
    const headed = records[0]?.offset === 0 && isJournalHeader(data.subarray(8, records[0].end));
    const headerLost = headerExpected && !headed;
    headerExpected ||= headed;
    // A journal from before headers existed stays without one, or an empty journal after it would be refused.
    const replayed = replayJournal(data, records, scratch, headerExpected ? seq : null);
    if (headerLost && lost.length === 0) lost.push({ offset: 0, bytes: 0, records: null });
    if (lost.length === 0 && replayed.droppedOps.length === 0) continue;
    const left = replayed.droppedOps.length > 0 ? ` less ${replayed.droppedOps.length} ops that cannot apply` : '';
    repairs.push({
      entry: {
        file: name,
        status: 'damaged',
        bytes: data.length,
        keptRecords: replayed.kept,
        droppedRecords: replayed.dropped,
        droppedOps: replayed.droppedOps,
        lost,
        action: `rewritten with its ${replayed.kept} verifiable records${left}`,
      },
      write: () => replaceFile(dataDir, name, replayed.file),
    });
  }
  const id = await readFile(join(dataDir, ID_FILE), 'utf8').catch(() => null);
  const noData = base === 0 && journals.length === 0;
  if (id !== null && (noData || dropChangeLog || !/^[0-9A-F]{32}$/.test(id.trim()))) {
    repairs.push({
      entry: {
        file: ID_FILE,
        status: noData ? 'missing' : 'unreadable',
        bytes: Buffer.byteLength(id),
        keptRecords: 0,
        droppedRecords: 0,
        droppedOps: [],
        lost: [],
        action: noData
          ? 'moved aside: no journal or snapshot is left, so the engine starts empty'
          : 'moved aside: the engine makes a new id, and resume tokens handed out before are refused',
      },
      write: () => rm(join(dataDir, ID_FILE)),
    });
  }
  // Moved, not copied, aside: nothing in it is lost, and a stale index must not be restored against an empty database.
  for (const name of noData ? files.derived : []) {
    repairs.push({
      entry: {
        ...missingEntry(
          name,
          'moved aside: built from data no journal or snapshot holds; built again from what is left',
        ),
        status: 'stale',
      },
      write: (damagedDir) => rename(join(dataDir, name), join(damagedDir, name)),
    });
  }

  if (repairs.length === 0)
    return { dataDir, damagedDir: null, reportFile: null, files: [], lostBytes: 0, summary: ['nothing to repair'] };

  const damagedDir = join(dataDir, `damaged-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  await mkdir(damagedDir, { mode: DIR_MODE });
  // Every original is copied aside (and fsynced) before any file is changed.
  for (const { entry } of repairs) {
    if (entry.status === 'damaged' || entry.status === 'unreadable' || entry.file === ID_FILE)
      await copyDurably(dataDir, entry.file, damagedDir);
  }
  await syncDir(damagedDir);
  for (const { write } of repairs) await write?.(damagedDir);
  await syncDir(dataDir);

  const entries = repairs.map((r) => r.entry);
  const lostBytes = entries.reduce((sum, e) => sum + e.lost.reduce((s, l) => s + l.bytes, 0), 0);
  const summary = entries.map(describe);
  const reportFile = join(damagedDir, 'repair-report.json');
  const report: RepairReport = { dataDir, damagedDir, reportFile, files: entries, lostBytes, summary };
  await writeFile(reportFile, `${JSON.stringify({ ...report, at: new Date().toISOString() }, null, 2)}\n`, {
    mode: FILE_MODE,
  });
  return report;
}

interface Span {
  offset: number;
  end: number;
}

/** Every record of `buf` that verifies, and the stretches between them that do not. */
export function scan(buf: Buffer): { records: Span[]; lost: LostRange[] } {
  const records: Span[] = [];
  const lost: LostRange[] = [];
  for (let at = 0; at < buf.length;) {
    const size = recordSizeAt(buf, at);
    if (size > 0) {
      records.push({ offset: at, end: at + size });
      at += size;
      continue;
    }
    const next = nextRecord(buf, at + 1);
    const end = next < 0 ? buf.length : next;
    lost.push({ offset: at, bytes: end - at, records: chainedRecords(buf, at, end) });
    at = end;
  }
  return { records, lost };
}

/** How many records the length fields from `at` step over to land exactly on `end`, or null if they do not. */
function chainedRecords(buf: Buffer, at: number, end: number): number | null {
  let count = 0;
  while (at + 8 <= end) {
    at += 8 + buf.readUInt32LE(at);
    count++;
  }
  return at === end ? count : null;
}

/**
 * The snapshot rebuilt from its verifiable records, in order: documents are kept only under the collection
 * record they belong to, collections under their database; the change log only if none of its records was lost.
 */
function salvageSnapshot(
  data: Buffer,
  records: Span[],
  seq: number,
): { file: Buffer; kept: number; dropped: number; changeLogLost: boolean } {
  const first = records[0] ? data.subarray(records[0].offset + 8, records[0].end) : null;
  const journalHeaders =
    first?.[0] === Kind.Header && deserialize(first.subarray(1), BSON_READ).journalHeaders === true;
  const out: Buffer[] = [
    frame([
      Uint8Array.of(Kind.Header),
      toBson({ format: SNAPSHOT_FORMAT, seq, ...(journalHeaders && { journalHeaders }) }),
    ]),
  ];
  const sidecar: Buffer[] = [];
  let database: string | null = null;
  let collection = false;
  const counts = { databases: 0, collections: 0, documents: 0, sidecar: 0 };
  let end: Document | null = null;
  let dropped = 0;
  let previousEnd = 0;
  for (const { offset, end: stop } of records) {
    // After a lost stretch, documents may belong to a collection record that was in it: they wait for the next one.
    if (offset !== previousEnd) collection = false;
    previousEnd = stop;
    const record = data.subarray(offset, stop);
    const body = record.subarray(8);
    const payload = body.subarray(1);
    switch (body[0]) {
      case Kind.Header:
        continue;
      case Kind.Database:
        database = deserialize(payload, BSON_READ).name as string;
        collection = false;
        counts.databases++;
        break;
      case Kind.Collection:
        collection = database !== null && deserialize(payload, BSON_READ).db === database;
        if (!collection) {
          dropped++;
          continue;
        }
        counts.collections++;
        break;
      case Kind.Documents:
      case Kind.Packed:
        if (!collection) {
          dropped++;
          continue;
        }
        counts.documents += decodeConcatenated(body, 1).length;
        break;
      case Kind.Sidecar:
        sidecar.push(record);
        continue;
      case Kind.End:
        end = deserialize(payload, BSON_READ);
        continue;
      default:
        dropped++;
        continue;
    }
    out.push(record);
  }
  const changeLogLost = !end || (end.sidecar ?? 0) !== sidecar.length;
  if (changeLogLost) dropped += sidecar.length;
  else out.push(...sidecar);
  counts.sidecar = changeLogLost ? 0 : sidecar.length;
  out.push(frame([Uint8Array.of(Kind.End), toBson(counts)]));
  return { file: Buffer.concat(out), kept: records.length - dropped, dropped, changeLogLost };
}

/**
 * Applies the ops of a journal's verifiable `records` to `state` in order, leaving out each op that cannot apply
 * (apply throws before changing anything for those: a patch of a missing document or of a path it lacks). A record
 * keeps its original bytes unless ops were left out of it, and goes when none are left (a record is never empty).
 * The rewritten journal begins with a fresh header of journal `seq` (none when null).
 */
function replayJournal(
  data: Buffer,
  records: Span[],
  state: Store,
  seq: number | null,
): { file: Buffer; kept: number; dropped: number; droppedOps: DroppedOp[] } {
  const header = seq === null ? [] : [journalHeader(seq)];
  const out: Buffer[] = [...header];
  const droppedOps: DroppedOp[] = [];
  let dropped = 0;
  for (const { offset, end } of records) {
    const body = data.subarray(offset + 8, end);
    if (isJournalHeader(body)) continue;
    const ops: Buffer[] = [];
    const keep: Buffer[] = [];
    for (let at = 0; at < body.length; at += body.readInt32LE(at))
      ops.push(body.subarray(at, at + body.readInt32LE(at)));
    for (const bytes of ops) {
      const decoded = decodeOp(bytes, state.keepsPacked);
      const op = typeof decoded === 'string' ? (deserialize(bytes, BSON_READ) as JournalOp) : decoded;
      try {
        if (typeof decoded === 'string') throw new Error(decoded);
        state.apply(op);
        keep.push(bytes);
      } catch (error) {
        droppedOps.push(droppedOp(op, error));
      }
    }
    if (keep.length === ops.length) out.push(data.subarray(offset, end));
    else if (keep.length > 0) out.push(frame(keep));
    else dropped++;
  }
  return { file: Buffer.concat(out), kept: out.length - header.length, dropped, droppedOps };
}

function droppedOp(op: JournalOp, error: unknown): DroppedOp {
  const ns = 'coll' in op ? `${op.db}.${op.coll}` : null;
  const id = op.t === 'put' ? op.doc._id : op.t === 'patch' || op.t === 'del' ? op.id : undefined;
  const reason = error instanceof Error ? error.message.replace(/^durability: /, '') : String(error);
  return { kind: op.t, ns, id: id === undefined ? null : formatValue(id), reason };
}

/** A snapshot of nothing, standing for state that is lost. */
function emptySnapshot(seq: number): Buffer {
  return Buffer.concat([
    frame([Uint8Array.of(Kind.Header), toBson({ format: SNAPSHOT_FORMAT, seq })]),
    frame([Uint8Array.of(Kind.End), toBson({ databases: 0, collections: 0, documents: 0, sidecar: 0 })]),
  ]);
}

function missingEntry(file: string, action: string): RepairedFile {
  return { file, status: 'missing', bytes: 0, keptRecords: 0, droppedRecords: 0, droppedOps: [], lost: [], action };
}

function describe(entry: RepairedFile): string {
  const ops = entry.droppedOps.map((op) => `a ${op.kind} left out: ${op.reason}`);
  if (entry.lost.length === 0) return [`${entry.file}: ${entry.status}; ${entry.action}`, ...ops].join('; ');
  const ranges = entry.lost
    .map(
      (l) =>
        `${l.bytes} bytes at byte ${l.offset} (${l.records === 1 ? '1 record' : `${l.records ?? 'an unknown number of'} records`})`,
    )
    .join(', ');
  const dropped = entry.droppedRecords > 0 ? `, ${entry.droppedRecords} records left out` : '';
  return [`${entry.file}: ${entry.status}, lost ${ranges}${dropped}; ${entry.action}`, ...ops].join('; ');
}

/** Writes `name` as a temp file, fsyncs it and renames it over the original. */
async function replaceFile(dataDir: string, name: string, data: Buffer): Promise<void> {
  const temp = join(dataDir, `${name}.repair`);
  const fh = await open(temp, 'w', FILE_MODE);
  try {
    await fh.writeFile(data);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(temp, join(dataDir, name));
}
