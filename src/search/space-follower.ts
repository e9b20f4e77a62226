import type { Db } from 'mongodb';
import type { ChangeEvent, ChangeFeed } from '../db/change-follower';
import { watchFollowerLag } from '../observability/metrics';
import { collectionKey } from './space-state';
import type { SpaceDefinition } from './space';
import type { SearchOptions } from './types';

/**
 * How a space learns of writes made by other processes (or tools writing MongoDB directly) while the server runs:
 * `changeStream`: its collection's change stream; `polling`: the deployment has no change streams, so the collection
 * is compared every `pollMs`; `off`: it does not (before the space is first loaded, or in atlas mode a space without
 * text paths: the database searches its vectors, and it holds nothing in-process).
 */
export type FollowMode = 'changeStream' | 'polling' | 'off';

/** Where a space's following stands (see {@link SpaceFollower.status}); read by serverInfo and metrics. */
export interface FollowStatus {
  mode: FollowMode;
  /** The space reflects every write made before this time (null: not followed, or not yet caught up). */
  position: Date | null;
  /**
   * Seconds behind the stream: the age of the oldest write received and not yet applied (0 when all are), or, when
   * polling, the time since the last comparison began.
   */
  lagSeconds: number;
}

/** What the follower asks of the spaces of one collection (SpaceLifecycle): each call covers the ready ones. */
export interface FollowTarget {
  /** Applies events read from the stream; their order is the stream's. */
  applyEvents(groupKey: string, events: ChangeEvent[]): Promise<void>;
  /** Applies the writes since the spaces' positions (the gap before the stream opened); false when they cannot be had. */
  catchUpFromPositions(groupKey: string): Promise<boolean>;
  /** Compares the whole collection with the spaces (no usable position, or polling). */
  compareWhole(groupKey: string, withPosition: boolean): Promise<void>;
}

/** Events applied per round: a round reads their documents back in one query. */
const EVENT_BATCH = 1000;
/** How long following waits after a failed round (the database unreachable) before it tries again. */
const RETRY_MS = 500;

/**
 * Keeps the in-process spaces of one database current with writes made by anyone: one loop per collection (and id
 * field), started when a space of it is first ready, reading the collection's events from the app's change follower
 * (src/db/change-follower.ts, shared with subscriptions) and applying them in batches through the same code as a
 * restore's catch-up. A lost position makes it compare the whole collection; without change streams it compares every
 * `pollMs`.
 */
export class SpaceFollower {
  private readonly groups = new Map<string, FollowedCollection>();
  private closed = false;
  /** Stops reporting the spaces' lags to /metrics. */
  private unwatchLag: (() => void) | null = null;

  constructor(
    private readonly db: Db,
    private readonly options: SearchOptions,
    private readonly target: FollowTarget,
  ) {}

  /** Whether spaces of this database follow writes at all (with a change follower, in either mode). */
  private get enabled(): boolean {
    return this.options.changes !== undefined && !this.closed;
  }

  /**
   * A space was (re)loaded: its collection is followed from now on; if it was already, the space is caught up from
   * its own position (events applied before it was ready did not reach it).
   */
  ready(definition: SpaceDefinition): void {
    if (!this.enabled) return;
    const key = collectionKey(definition);
    const followed = this.groups.get(key);
    if (followed) {
      followed.spaces.add(definition.name);
      followed.catchUpDue();
    } else {
      const started = new FollowedCollection(this.db, definition.collection, key, this.options, this.target);
      started.spaces.add(definition.name);
      this.groups.set(key, started);
      started.start();
    }
    this.unwatchLag ??= watchFollowerLag(() => this.lags());
  }

  /** The lag of every followed space, for /metrics. */
  private *lags(): Iterable<[string, number]> {
    for (const followed of this.groups.values()) {
      const { mode, lagSeconds } = followed.status();
      if (mode !== 'off') for (const space of followed.spaces) yield [space, lagSeconds];
    }
  }

  /** Where a space's following stands. */
  status(definition: SpaceDefinition): FollowStatus {
    return this.groups.get(collectionKey(definition))?.status() ?? { mode: 'off', position: null, lagSeconds: 0 };
  }

  /** Stops following (shutdown): resolves once no work of it runs and its feeds are closed. */
  async close(): Promise<void> {
    this.closed = true;
    this.unwatchLag?.();
    await Promise.all([...this.groups.values()].map((followed) => followed.stop()));
  }
}

/** One collection's following: a reader of its feed and one round of work at a time. */
class FollowedCollection {
  /** The names of the spaces of this collection that were ready once. */
  readonly spaces = new Set<string>();
  private mode: FollowMode = 'off';
  private readonly pending: ChangeEvent[] = [];
  /** Applied now: the first event of the round in progress (its time is how far behind the spaces are). */
  private applying: ChangeEvent | null = null;
  private catchUpWanted = true;
  private compareWanted = false;
  private working: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private position: Date | null = null;
  private feed: ChangeFeed | null = null;
  private reading: Promise<void> | null = null;

  constructor(
    private readonly db: Db,
    private readonly collection: string,
    private readonly key: string,
    private readonly options: SearchOptions,
    private readonly target: FollowTarget,
  ) {}

  status(): FollowStatus {
    const oldest = this.applying?.at ?? this.pending[0]?.at;
    const since = this.mode === 'polling' ? this.position : oldest;
    const lagSeconds = since ? Math.max(0, Date.now() - since.getTime()) / 1000 : 0;
    return { mode: this.mode, position: this.position, lagSeconds };
  }

  catchUpDue(): void {
    this.catchUpWanted = true;
    this.kick();
  }

  /** Stops following; resolves once the round running (if any) is over and the feed is closed. */
  async stop(): Promise<void> {
    this.halt();
    // A feed still opening is closed by `read` itself once open: waiting for it could outlast the database.
    if (this.feed) {
      await this.feed.return();
      await this.reading;
    }
    await this.working;
  }

  private halt(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
  }

  start(): void {
    this.reading = this.read();
  }

  /** Reads the feed until it ends (or, without change streams, starts polling). */
  private async read(): Promise<void> {
    const changes = this.options.changes!;
    const log = { collection: this.collection, db: this.db.databaseName };
    try {
      if ((await changes.source()) === 'LOCAL_WRITES') return this.poll();
      this.mode = 'changeStream';
      const feed = (this.feed = await changes.follow(this.db, this.collection, {
        internal: true,
        onLost: () => {
          this.compareWanted = true;
          this.kick();
        },
      }));
      // Stopped while the feed opened: `stop` found no feed to close, and iterating it now would wait for an event.
      if (this.stopped) await feed.return();
      else {
        // The writes between the spaces' loads and the stream's opening.
        this.kick();
        for await (const event of feed) {
          if (this.stopped) break;
          this.pending.push(event);
          this.kick();
        }
      }
    } catch (error) {
      this.options.logger.error('search: following the collection failed', { ...log, error: messageOf(error) });
    }
    // The feed ended (server shutdown).
    this.mode = 'off';
    this.halt();
  }

  /** Without change streams: the collection is compared with the spaces every `pollMs` (0: never). */
  private poll(): void {
    const pollMs = this.options.pollMs ?? 0;
    this.options.logger.warn(
      pollMs
        ? 'search: the database has no change streams; spaces compare their collection with it periodically'
        : 'search: the database has no change streams and SEARCH_POLL_MS is 0; spaces see only this process’s writes',
      { collection: this.collection, db: this.db.databaseName, pollMs },
    );
    this.catchUpWanted = false;
    this.position = new Date();
    if (!pollMs) return;
    this.mode = 'polling';
    this.timer = setInterval(() => {
      if (this.options.changes?.closed) this.halt();
      this.compareWanted = true;
      this.kick();
    }, pollMs);
    this.timer.unref();
  }

  private get due(): boolean {
    return !this.stopped && (this.compareWanted || this.catchUpWanted || this.pending.length > 0);
  }

  private kick(): void {
    this.working ??= this.work().finally(() => {
      this.working = null;
      if (this.due) this.kick();
    });
  }

  /** Rounds until nothing is due: a whole comparison, a catch-up from the positions, or a batch of events. */
  private async work(): Promise<void> {
    while (this.due) {
      const started = new Date();
      let batch: ChangeEvent[] = [];
      // What a failed round leaves to do again.
      let retry = () => {};
      try {
        if (this.compareWanted) {
          retry = () => (this.compareWanted = true);
          this.compareWanted = false;
          this.catchUpWanted = false;
          // What the comparison reads reflects every event received so far.
          this.pending.length = 0;
          await this.target.compareWhole(this.key, this.mode === 'changeStream');
          this.position = started;
        } else if (this.catchUpWanted) {
          retry = () => (this.catchUpWanted = true);
          this.catchUpWanted = false;
          if (await this.target.catchUpFromPositions(this.key)) this.position = this.pending[0]?.at ?? started;
          else this.compareWanted = true;
        } else {
          batch = this.pending.splice(0, EVENT_BATCH);
          retry = () => this.pending.unshift(...batch);
          this.applying = batch[0];
          await this.target.applyEvents(this.key, batch);
          this.position = batch[batch.length - 1].at ?? started;
        }
      } catch (error) {
        retry();
        this.options.logger.warn('search: following the collection failed; retrying', {
          collection: this.collection,
          db: this.db.databaseName,
          error: messageOf(error),
        });
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      } finally {
        this.applying = null;
      }
    }
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
