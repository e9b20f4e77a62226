import type { ChangeStream, Collection, Db, Document, MongoClient, ResumeToken, Timestamp } from 'mongodb';
import type { Logger } from '../logger';

/** Where events come from: the database's change streams, or (a standalone mongod) this process's own writes. */
export type ChangeSource = 'CHANGE_STREAM' | 'LOCAL_WRITES';

/** mongod's answer to `$changeStream` when it is not part of a replica set. */
const NO_CHANGE_STREAMS = 40573;

/**
 * How long a failed stream first waits before it is opened again from its resume token; each failure in a row doubles
 * the wait, up to REOPEN_MAX_MS, so an unreachable database is not asked five times a second.
 */
const REOPEN_DELAY_MS = 200;
const REOPEN_MAX_MS = 2000;

/**
 * Errors after which the stream cannot resume from its token (ChangeStreamHistoryLost, InvalidResumeToken,
 * ChangeStreamFatalError): it is opened from now, and consumers are told that they missed events.
 */
const POSITION_LOST = new Set([286, 260, 280]);

/** Events after which a collection is not the one consumers knew: they are told that they missed events. */
const COLLECTION_GONE = new Set(['drop', 'rename', 'dropDatabase', 'invalidate']);

/** One change of one document, shared by every consumer of its collection's stream. */
export interface ChangeEvent {
  operationType: string;
  /** The document's `_id`. */
  id: unknown;
  /**
   * The document as it is now, read once by `_id` for all consumers of this event (the engine's events carry no
   * `fullDocument`); null once it is deleted.
   */
  document<T extends Document = Document>(): Promise<T | null>;
  /** The stream's resume token after this event (absent for a local write): a position to resume after. */
  position?: ResumeToken;
  /** When the database applied the write (the event's wallTime or clusterTime; absent for a local write). */
  at?: Date;
}

/** What a consumer of a feed may also be told. */
export interface FollowOptions {
  /**
   * Events were missed: the stream's position was lost (history no longer kept, a token from another deployment) or
   * the collection was dropped or renamed. Consumers that keep state built from the collection compare it again.
   */
  onLost?: () => void;
  /**
   * A consumer inside the server (live search) rather than a client's subscription: it is left out of `consumers` and
   * `openStreams`, which count what subscribers hold open.
   */
  internal?: boolean;
}

/** A consumer's view of a collection's events: an async iterator whose `return()` leaves at once. */
export interface ChangeFeed extends AsyncIterableIterator<ChangeEvent> {
  return(): Promise<IteratorResult<ChangeEvent>>;
  /** Whether an event that `test` accepts has arrived and waits to be read. */
  queued(test: (event: ChangeEvent) => boolean): boolean;
}

/**
 * Follows collections' change streams for every consumer in this process (subscriptions, live search): one stream
 * per collection of a database, opened for its first consumer and closed when its last one leaves, reopened from its
 * resume token after a stream error. Where the deployment has no change streams, consumers get this process's own
 * writes, which the app's database handles report through `localWrite` (src/db/local-writes.ts).
 */
export class ChangeFollower {
  private readonly streams = new Map<string, FollowedCollection>();
  private detected: ChangeSource | undefined;
  private streamClient: MongoClient | null = null;
  /** Set by `close` (server shutdown): consumers that poll stop. */
  closed = false;

  /**
   * `newClient` gives streams a client of their own, replaced after a stream fails. A stream always has a getMore in
   * flight: when the database goes away, its failure makes the driver select a server at once, which wakes the
   * driver's monitor while the monitor's own connection is being torn down; that check can wait for good (on a
   * socket destroyed before its 'close' event), and the client then never sees the database come back. On their own
   * client, streams put only that client at risk, and closing it ends the stuck check. Without `newClient`, streams
   * use the client of the databases they follow.
   */
  constructor(
    private readonly defaultDb: Db,
    private readonly logger: Logger,
    private readonly newClient?: () => MongoClient,
  ) {}

  /** The handle of `db` that its streams are read through. */
  private streamDb(db: Db): Db {
    if (!this.newClient || this.closed) return db;
    this.streamClient ??= this.newClient();
    return this.streamClient.db(db.databaseName);
  }

  /** A stream read through `db` failed: later streams get a new client, and the old one is closed. */
  private streamFailed(db: Db): void {
    if (!this.streamClient || db.client !== this.streamClient) return;
    const failed = this.streamClient;
    this.streamClient = null;
    failed.close().catch(() => undefined);
  }

  /** Events of `collection` in `db` from now on, until the feed's `return()`. Resolves once the stream is open. */
  async follow(db: Db, collection: string, options: FollowOptions = {}): Promise<ChangeFeed> {
    const key = `${db.databaseName}.${collection}`;
    let followed = this.streams.get(key);
    if (!followed) {
      followed = new FollowedCollection(
        db.collection(collection),
        {
          open: () => this.streamDb(db).collection(collection),
          failed: (stream) => this.streamFailed(stream.db),
        },
        this.logger,
        (source) => this.detect(source),
        () => {
          if (this.streams.get(key) === followed) this.streams.delete(key);
        },
      );
      this.streams.set(key, followed);
    }
    return followed.add(this.detected === 'LOCAL_WRITES', options);
  }

  /** Whether writes to the collection must be reported through `localWrite`: no change streams, and someone follows. */
  followsLocally(db: Db, collection: string): boolean {
    return this.detected === 'LOCAL_WRITES' && this.streams.has(`${db.databaseName}.${collection}`);
  }

  /**
   * Tells consumers of a collection about a write this process made (only needed without change streams); the
   * handles of `reportingWrites` (src/db/local-writes.ts) call it for every write.
   */
  localWrite(db: Db, collection: string, id: unknown, operationType = 'update'): void {
    if (this.detected !== 'LOCAL_WRITES') return;
    this.streams.get(`${db.databaseName}.${collection}`)?.dispatch({ operationType, documentKey: { _id: id } });
  }

  /** Whether events come from change streams; found by opening one on the default database the first time. */
  async source(): Promise<ChangeSource> {
    if (this.detected) return this.detected;
    const streamDb = this.streamDb(this.defaultDb);
    const stream = streamDb.watch([], { maxAwaitTimeMS: 1 });
    try {
      await stream.tryNext();
      return this.detect('CHANGE_STREAM');
    } catch (error) {
      if (errorCode(error) === NO_CHANGE_STREAMS) return this.detect('LOCAL_WRITES');
      this.streamFailed(streamDb);
      return this.detect('CHANGE_STREAM');
    } finally {
      await stream.close().catch(() => undefined);
    }
  }

  /**
   * Feeds being read across all collections (a subscription's counts once it has set up and waits for its first
   * event), for tests and metrics.
   */
  get consumers(): number {
    return [...this.streams.values()].reduce((sum, followed) => sum + followed.consumerCount, 0);
  }

  /** Open change streams (one per followed collection) that subscriptions read, for tests and metrics. */
  get openStreams(): number {
    return [...this.streams.values()].filter((followed) => followed.streaming && followed.consumerCount > 0).length;
  }

  /** Ends every feed and closes every stream (server shutdown). */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.streams.values()].map((followed) => followed.close()));
    this.streams.clear();
    await this.streamClient?.close();
  }

  private detect(source: ChangeSource): ChangeSource {
    if (source === 'LOCAL_WRITES' && this.detected !== 'LOCAL_WRITES')
      this.logger.warn('the database has no change streams: subscriptions see only this process’s writes');
    return (this.detected ??= source);
  }
}

interface RawEvent {
  _id?: ResumeToken;
  operationType: string;
  documentKey?: { _id: unknown };
  wallTime?: Date;
  clusterTime?: Timestamp;
}

/** Where a collection's stream is read: `open` gives the collection to watch, `failed` is told when a stream of it fails. */
interface StreamSource {
  open(): Collection;
  failed(stream: Collection): void;
}

/** One collection's stream and its consumers. */
class FollowedCollection {
  private readonly consumers = new Set<Consumer>();
  private stream: ChangeStream<Document, RawEvent> | null = null;
  private token: ResumeToken | undefined;
  private running: Promise<void> | null = null;
  private opened: Promise<void> | null = null;
  private closed = false;
  /** Ends the wait before a reopen (on close). */
  private wake: (() => void) | null = null;

  constructor(
    /** Where the documents of events are read (the app's handle). */
    private readonly collection: Collection,
    private readonly source: StreamSource,
    private readonly logger: Logger,
    private readonly detect: (source: ChangeSource) => ChangeSource,
    private readonly onEmpty: () => void,
  ) {}

  get consumerCount(): number {
    return [...this.consumers].filter((consumer) => consumer.reading && !consumer.internal).length;
  }

  get streaming(): boolean {
    return this.stream !== null;
  }

  async add(localOnly: boolean, options: FollowOptions): Promise<ChangeFeed> {
    const consumer: Consumer = new Consumer(() => this.remove(consumer), options);
    this.consumers.add(consumer);
    if (!localOnly) {
      this.opened ??= new Promise<void>((resolve) => {
        this.running = this.run(resolve);
      });
      await this.opened;
    }
    return consumer;
  }

  dispatch(raw: RawEvent, position?: ResumeToken): void {
    let read: Promise<Document | null> | undefined;
    const id = raw.documentKey?._id;
    const at = raw.wallTime ?? (raw.clusterTime ? new Date(raw.clusterTime.t * 1000) : undefined);
    const event: ChangeEvent = {
      operationType: raw.operationType,
      id,
      ...(position ? { position } : {}),
      ...(at ? { at } : {}),
      document: <T extends Document>() => {
        read ??= raw.operationType === 'delete' ? Promise.resolve(null) : this.collection.findOne({ _id: id as never });
        return read as Promise<T | null>;
      },
    };
    for (const consumer of this.consumers) consumer.push(event);
  }

  /** Reads the stream until the last consumer leaves, reopening it from its token after an error. */
  private async run(opened: () => void): Promise<void> {
    let delay = REOPEN_DELAY_MS;
    while (!this.closed) {
      const watched = this.source.open();
      const stream = watched.watch<Document, RawEvent>(
        [{ $project: { operationType: 1, documentKey: 1, wallTime: 1, clusterTime: 1 } }],
        { ...(this.token ? { resumeAfter: this.token } : {}), maxAwaitTimeMS: 500 },
      );
      this.stream = stream;
      try {
        for (;;) {
          const raw = await stream.tryNext();
          opened();
          delay = REOPEN_DELAY_MS;
          if (this.closed) break;
          this.token = stream.resumeToken ?? this.token;
          if (raw?.documentKey) this.dispatch(raw, this.token);
          else if (raw && COLLECTION_GONE.has(raw.operationType)) {
            this.lost();
            // An invalidated stream is closed and cannot be resumed after its token: it is opened again from now.
            if (raw.operationType === 'invalidate') {
              this.token = undefined;
              break;
            }
          }
          // A closed stream answers at once, without a round trip: reading on would starve the event loop.
          if (stream.closed) break;
        }
      } catch (error) {
        if (this.closed) break;
        if (errorCode(error) === NO_CHANGE_STREAMS) {
          this.detect('LOCAL_WRITES');
          opened();
          break;
        }
        const lost = POSITION_LOST.has(errorCode(error) ?? 0);
        this.logger.warn(
          lost
            ? 'change stream cannot resume from its position; reopening from now'
            : 'change stream failed; reopening from its resume token',
          { collection: this.collection.collectionName, error: error instanceof Error ? error.message : String(error) },
        );
        if (lost) {
          this.token = undefined;
          this.lost();
        } else this.source.failed(watched);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, delay);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.wake = null;
        delay = Math.min(delay * 2, REOPEN_MAX_MS);
      } finally {
        await stream.close().catch(() => undefined);
      }
    }
    this.stream = null;
  }

  private lost(): void {
    for (const consumer of this.consumers) consumer.onLost?.();
  }

  /** Resolves once the stream is closed when `consumer` was its last. */
  private async remove(consumer: Consumer): Promise<void> {
    this.consumers.delete(consumer);
    if (this.consumers.size === 0) await this.close();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.onEmpty();
    for (const consumer of this.consumers) consumer.end();
    this.consumers.clear();
    this.wake?.();
    await this.stream?.close().catch(() => undefined);
    await this.running;
  }
}

/** A queue of events for one consumer; `return()` resolves a pending `next()` as done and leaves the stream. */
class Consumer implements ChangeFeed {
  private readonly queue: ChangeEvent[] = [];
  private waiting: ((result: IteratorResult<ChangeEvent>) => void) | null = null;
  private done = false;
  /** Whether `next()` was called: its consumer has set up. */
  reading = false;

  readonly onLost?: () => void;
  readonly internal: boolean;

  constructor(
    private readonly leave: () => Promise<void>,
    options: FollowOptions,
  ) {
    this.onLost = options.onLost;
    this.internal = options.internal ?? false;
  }

  push(event: ChangeEvent): void {
    if (this.done) return;
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = null;
      resolve({ value: event, done: false });
    } else this.queue.push(event);
  }

  end(): void {
    this.done = true;
    this.queue.length = 0;
    this.waiting?.({ value: undefined, done: true });
    this.waiting = null;
  }

  queued(test: (event: ChangeEvent) => boolean): boolean {
    return this.queue.some(test);
  }

  next(): Promise<IteratorResult<ChangeEvent>> {
    this.reading = true;
    const event = this.queue.shift();
    if (event) return Promise.resolve({ value: event, done: false });
    if (this.done) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => (this.waiting = resolve));
  }

  /** Leaves the stream; resolves once it is closed, when this was its last consumer. */
  async return(): Promise<IteratorResult<ChangeEvent>> {
    if (!this.done) {
      this.end();
      await this.leave();
    }
    return { value: undefined, done: true };
  }

  [Symbol.asyncIterator](): ChangeFeed {
    return this;
  }
}

function errorCode(error: unknown): number | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'number' ? code : undefined;
}

/**
 * The values `select` makes of each event of `feed` (none, one or several), in order. Its `return()` leaves the feed
 * at once, even while waiting for an event.
 */
export function selectFromFeed<T>(
  feed: ChangeFeed,
  select: (event: ChangeEvent) => Promise<T[]>,
): AsyncIterableIterator<T> {
  const ready: T[] = [];
  const iterator: AsyncIterableIterator<T> = {
    async next() {
      while (ready.length === 0) {
        const result = await feed.next();
        if (result.done) return { value: undefined, done: true };
        ready.push(...(await select(result.value)));
      }
      return { value: ready.shift() as T, done: false };
    },
    return: () => feed.return().then(() => ({ value: undefined, done: true as const })),
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}
