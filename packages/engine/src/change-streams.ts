/**
 * Change streams over the change log (changes.ts): `aggregate` with a leading `$changeStream` stage on a
 * collection, a database (`aggregate: 1`) or the cluster (`admin`, `allChangesForCluster`), then tailable
 * `getMore`s that wait for new events. Unlike a standalone mongod (which refuses with 40573), the engine serves
 * them. What it does not implement is refused: fullDocument / fullDocumentBeforeChange lookups (238; events
 * carry no fullDocument and no updateDescription, since the log keeps no document contents),
 * startAtOperationTime (238), showExpandedEvents (238).
 */
import { Aggregator } from 'mingo/aggregator';
import { Timestamp } from 'bson';
import { parseResumeToken, resumeToken, type ChangeEvent, type ChangeLog } from './changes';
import { CommandError, ErrorCode, badValue, typeMismatch } from './errors';
import { MINGO_OPTIONS, compileFilter, mingoError } from './filter';
import { BATCH_BYTES } from './limits';
import { bsonSize, bsonTypeName, isPlainObject, type Doc } from './values';

/** How long a getMore waits for events when the client names no maxTimeMS (mongod's awaitData default). */
const DEFAULT_AWAIT_MS = 1000;
/** Stages mongod allows after $changeStream. */
const EVENT_STAGES = new Set([
  '$match',
  '$project',
  '$addFields',
  '$set',
  '$unset',
  '$replaceRoot',
  '$replaceWith',
  '$redact',
]);
const STAGE_OPTIONS = new Set([
  'resumeAfter',
  'startAfter',
  'startAtOperationTime',
  'fullDocument',
  'fullDocumentBeforeChange',
  'allChangesForCluster',
  'showExpandedEvents',
  'showSystemEvents',
  'showMigrationEvents',
  'allowToRunOnConfigDB',
  'allowToRunOnSystemNS',
]);
const INTERNAL_DBS = new Set(['admin', 'config', 'local']);

/** What a stream watches: one collection, one database, or (both undefined) the cluster. */
interface Scope {
  db?: string;
  coll?: string;
}

/** One open change stream: its position in the log and what it has still to return. */
export class ChangeStreamCursor {
  /** Sequence number of the last event scanned. */
  private position: number;
  /** An event that invalidated the stream, whose invalidate event is still to be returned. */
  private invalidating?: ChangeEvent;
  /** The invalidate event has been returned: the cursor is done. */
  closed = false;
  /** killCursors ran while a getMore waited. */
  killed = false;
  /** Ends the wait of the getMore waiting for events, if one is. */
  private wakeWaiting?: () => void;
  private readonly inScope = new Map<number, boolean>();

  constructor(
    private readonly log: ChangeLog,
    private readonly scope: Scope,
    private readonly stages: ((docs: Doc[]) => Doc[])[],
    start: { seq: number; invalidate: boolean; startAfter: boolean } | undefined,
  ) {
    this.position = start?.seq ?? log.visibleSeq;
    if (start && !start.invalidate && start.seq >= log.firstSeq) {
      // Resuming right after the event that invalidated this stream returns that invalidate again, as mongod does.
      const event = log.event(start.seq);
      if (this.watches(start.seq) && this.invalidates(event)) this.invalidating = event;
    }
  }

  /** The next events (at most `limit`) that are visible now; never waits. */
  batch(limit: number): Doc[] {
    const docs: Doc[] = [];
    let bytes = 0;
    while (!this.closed && docs.length < limit && bytes < BATCH_BYTES) {
      if (this.invalidating) {
        const event = this.invalidating;
        for (const doc of this.transform(invalidateDocument(this.log.dataDirId, event))) docs.push(doc);
        this.closed = true;
        break;
      }
      if (this.position >= this.log.visibleSeq) break;
      const seq = ++this.position;
      if (!this.watches(seq)) continue;
      const event = this.log.event(seq);
      if (this.invalidates(event)) this.invalidating = event;
      // A collection stream sees its collection's drop, not the dropDatabase after it (nor an old journal's lone dropDatabase).
      if (event.type === 'dropDatabase' && this.scope.coll !== undefined) continue;
      for (const doc of this.transform(eventDocument(this.log.dataDirId, event))) {
        docs.push(doc);
        bytes += bsonSize(doc);
      }
    }
    return docs;
  }

  /** The resume token of the position reached (the postBatchResumeToken). */
  get token(): { _data: string } {
    if (this.closed && this.invalidating) return resumeToken(this.log.dataDirId, this.invalidating.seq, true);
    return resumeToken(this.log.dataDirId, this.position);
  }

  /** Waits until an event after the position is visible, or `ms`, or the cursor is killed. */
  wait(ms: number): Promise<void> {
    const { done, wake } = this.log.waitBeyond(this.position, ms);
    this.wakeWaiting = wake;
    return done;
  }

  /**
   * killCursors: a getMore waiting for events answers CursorKilled at once, as mongod interrupts it, rather than at
   * the end of its maxTimeMS (a client closing its stream waited that long for the getMore in flight).
   */
  kill(): void {
    this.killed = true;
    this.wakeWaiting?.();
  }

  private watches(seq: number): boolean {
    const id = this.log.namespaceOf(seq);
    let watched = this.inScope.get(id);
    if (watched === undefined) {
      const ns = this.log.namespace(id);
      const { db, coll } = this.scope;
      if (db === undefined) watched = !INTERNAL_DBS.has(ns.db);
      else watched = ns.db === db && (coll === undefined || ns.coll === undefined || ns.coll === coll);
      this.inScope.set(id, watched);
    }
    return watched;
  }

  private invalidates(event: ChangeEvent): boolean {
    if (this.scope.db === undefined) return false;
    if (this.scope.coll === undefined) return event.type === 'dropDatabase';
    return event.type === 'drop' || event.type === 'rename' || event.type === 'dropDatabase';
  }

  private transform(doc: Doc): Doc[] {
    let docs = [doc];
    for (const stage of this.stages) docs = stage(docs);
    for (const out of docs) {
      if (!isPlainObject(out._id) || out._id._data !== (doc._id as Doc)._data || Object.keys(out._id).length !== 1) {
        this.closed = true;
        throw new CommandError(
          ErrorCode.ChangeStreamFatalError,
          'Encountered an event whose _id field, which contains the resume token, was modified by the pipeline. Modifying the _id field of an event makes it impossible to resume the stream from that point. Only transformations that retain the unmodified _id field are allowed.',
        );
      }
    }
    return docs;
  }
}

function eventDocument(dataDirId: string, event: ChangeEvent): Doc {
  const doc: Doc = { _id: resumeToken(dataDirId, event.seq), operationType: event.type, ...clock(event) };
  doc.ns = event.ns.coll === undefined ? { db: event.ns.db } : { db: event.ns.db, coll: event.ns.coll };
  if (event.to) doc.to = { db: event.to.db, coll: event.to.coll };
  if (event.id !== undefined) doc.documentKey = { _id: event.id };
  return doc;
}

function invalidateDocument(dataDirId: string, event: ChangeEvent): Doc {
  return { _id: resumeToken(dataDirId, event.seq, true), operationType: 'invalidate', ...clock(event) };
}

/**
 * clusterTime: seconds of the event's wall time (which never goes back) and the low 32 bits of its sequence
 * number, so it increases with the log as mongod's oplog timestamps do.
 */
function clock(event: ChangeEvent): Doc {
  return {
    clusterTime: new Timestamp({ t: Math.floor(event.wall / 1000), i: event.seq % 0x100000000 }),
    wallTime: new Date(event.wall),
  };
}

/** Compiles the stages after $changeStream; $match uses the engine's matcher, the others mingo. */
function compileStages(stages: unknown[]): ((docs: Doc[]) => Doc[])[] {
  return stages.map((stage, index) => {
    if (!isPlainObject(stage) || Object.keys(stage).length !== 1) {
      throw new CommandError(
        40323,
        `A pipeline stage specification object must contain exactly one field (stage ${index + 1}).`,
      );
    }
    const [name] = Object.keys(stage);
    if (name === '$changeStream')
      throw new CommandError(40602, '$changeStream is only valid as the first stage in a pipeline');
    if (!EVENT_STAGES.has(name))
      throw new CommandError(ErrorCode.IllegalOperation, `${name} is not permitted in a $changeStream pipeline`);
    if (name === '$match') {
      const match = compileFilter(stage.$match);
      return (docs) => docs.filter((doc) => match(doc));
    }
    let aggregator: Aggregator;
    try {
      aggregator = new Aggregator([stage], MINGO_OPTIONS);
    } catch (error) {
      throw mingoError(error);
    }
    return (docs) => {
      try {
        return aggregator.run(docs) as Doc[];
      } catch (error) {
        throw mingoError(error);
      }
    };
  });
}

/** The open stream a `$changeStream` aggregate asks for, validated as mongod validates it. */
export function openChangeStream(
  log: ChangeLog,
  db: string,
  target: string | undefined,
  pipeline: unknown[],
): { cursor: ChangeStreamCursor; ns: string } {
  const spec = (pipeline[0] as Doc).$changeStream;
  if (!isPlainObject(spec))
    throw typeMismatch(`the $changeStream stage specification must be an object, got ${bsonTypeName(spec)}`);
  for (const key of Object.keys(spec)) {
    if (!STAGE_OPTIONS.has(key))
      throw new CommandError(40415, `BSON field '$changeStream.${key}' is an unknown field.`);
  }
  const cluster = spec.allChangesForCluster === true;
  if (cluster && (db !== 'admin' || target !== undefined)) {
    throw new CommandError(
      ErrorCode.InvalidNamespace,
      "A $changeStream with 'allChangesForCluster:true' may only be opened on the 'admin' database, and with no collection name",
    );
  }
  if (!cluster && INTERNAL_DBS.has(db))
    throw new CommandError(
      ErrorCode.InvalidNamespace,
      `$changeStream may not be opened on the internal ${db} database`,
    );
  const fullDocument = spec.fullDocument ?? 'default';
  if (fullDocument !== 'default') {
    if (!['updateLookup', 'whenAvailable', 'required'].includes(fullDocument as string))
      badEnum('fullDocument', fullDocument);
    throw new CommandError(
      ErrorCode.NotImplemented,
      `fullDocument: '${String(fullDocument)}' is not supported by the embedded engine (its change log keeps no documents); watch without it and read the documents by documentKey`,
    );
  }
  const before = spec.fullDocumentBeforeChange ?? 'off';
  if (before !== 'off') {
    if (!['whenAvailable', 'required'].includes(before as string)) badEnum('fullDocumentBeforeChange', before);
    throw new CommandError(
      ErrorCode.NotImplemented,
      `fullDocumentBeforeChange: '${String(before)}' is not supported by the embedded engine (it keeps no pre-images)`,
    );
  }
  for (const flag of ['showExpandedEvents', 'showSystemEvents', 'showMigrationEvents'] as const) {
    if (spec[flag] === true)
      throw new CommandError(ErrorCode.NotImplemented, `${flag} is not supported by the embedded engine`);
  }
  const resumeOptions = (['resumeAfter', 'startAfter', 'startAtOperationTime'] as const).filter(
    (option) => spec[option] !== undefined && spec[option] !== null,
  );
  if (resumeOptions.length > 1)
    throw new CommandError(40674, 'Only one type of resume option is allowed, but multiple were found.');
  if (resumeOptions[0] === 'startAtOperationTime') {
    throw new CommandError(
      ErrorCode.NotImplemented,
      'startAtOperationTime is not supported by the embedded engine; resume with resumeAfter or startAfter and a resume token',
    );
  }
  let start: { seq: number; invalidate: boolean; startAfter: boolean } | undefined;
  if (resumeOptions.length) {
    const startAfter = resumeOptions[0] === 'startAfter';
    const point = parseResumeToken(spec[resumeOptions[0]], log.dataDirId);
    if (point.invalidate && !startAfter) {
      throw new CommandError(
        ErrorCode.InvalidResumeToken,
        "Attempting to resume a change stream using 'resumeAfter' is not allowed from an invalidate notification.",
      );
    }
    if (point.seq > log.visibleSeq) {
      throw new CommandError(
        ErrorCode.InvalidResumeToken,
        `the resume token names change ${point.seq}, but this data directory's latest change is ${log.visibleSeq}: it was restored from an older copy`,
      );
    }
    if (point.seq < log.firstSeq - 1) {
      throw new CommandError(
        ErrorCode.ChangeStreamHistoryLost,
        `Resume of change stream was not possible, as the resume point may no longer be in the change log: it resumes after change ${point.seq}, the oldest change kept is ${log.firstSeq} (the engine keeps the latest ${log.limit})`,
      );
    }
    start = { ...point, startAfter };
  }
  const stages = compileStages(pipeline.slice(1));
  const scope: Scope = cluster ? {} : { db, coll: target };
  const ns = target === undefined ? `${db}.$cmd.aggregate` : `${db}.${target}`;
  return { cursor: new ChangeStreamCursor(log, scope, stages, start), ns };
}

function badEnum(field: string, value: unknown): never {
  throw badValue(`Enumeration value '${String(value)}' for field '$changeStream.${field}' is not a valid value.`);
}

/**
 * A getMore on a stream: returns the events after its position; with none, waits up to `maxTimeMS` (default
 * 1 s) for new ones without blocking the engine, then returns an empty batch.
 */
export async function streamGetMore(
  cursor: ChangeStreamCursor,
  batchSize: number | undefined,
  maxTimeMS: number | undefined,
): Promise<Doc[]> {
  const limit = batchSize && batchSize > 0 ? batchSize : Infinity;
  const deadline = Date.now() + (maxTimeMS && maxTimeMS > 0 ? maxTimeMS : DEFAULT_AWAIT_MS);
  for (;;) {
    const docs = cursor.batch(limit);
    if (docs.length || cursor.closed) return docs;
    const left = deadline - Date.now();
    if (left <= 0) return docs;
    await cursor.wait(left);
    if (cursor.killed)
      throw new CommandError(ErrorCode.CursorKilled, 'the change stream cursor was killed while waiting for changes');
  }
}
