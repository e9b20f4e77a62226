import {
  MongoNetworkError,
  MongoNotConnectedError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
  type Db,
  type MongoClient,
  type TopologyDescriptionChangedEvent,
} from 'mongodb';

/** What GET /ready answers: the database's state, checked at most {@link READY_MAX_AGE_MS} before. */
export interface DatabaseHealthState {
  /** The driver knows a server it can reach (its monitor's heartbeats, or an operation's network error, update it). */
  reachable: boolean;
  /** The last database write failed to be made durable, and no write has succeeded since. */
  writeFailing: boolean;
  /** Set when the embedded data directory is damaged and the server serves no data: which file, where, what to do. */
  damaged: string | null;
}

/** Why the database cannot serve now (what GET /ready and `serverInfo` say), or null when it can. */
export function unavailableReason(state: DatabaseHealthState): string | null {
  if (state.damaged) return state.damaged;
  if (!state.reachable) return 'database unreachable';
  if (state.writeFailing) return 'database writes failing';
  return null;
}

/** What GET /ready and `serverInfo.storage` read: {@link DatabaseHealth}, or {@link DamagedStorage} in degraded mode. */
export interface HealthSource {
  readonly state: DatabaseHealthState;
  check(): Promise<DatabaseHealthState>;
  close(): void;
}

/** The health of a data directory the embedded engine refused to open: unavailable, saying why, until a restart. */
export class DamagedStorage implements HealthSource {
  readonly state: DatabaseHealthState;

  constructor(reason: string) {
    this.state = { reachable: false, writeFailing: false, damaged: reason };
  }

  check(): Promise<DatabaseHealthState> {
    return Promise.resolve(this.state);
  }

  close(): void {}
}

/**
 * The database's health, kept current by the driver's topology events, by the operations that fail or succeed
 * ({@link recordFailure}) and by `check()`'s own ping: the driver's monitor learns of a database gone only at its next
 * heartbeat, while requests fail at once, so `check()` (GET /ready) pings live unless a ping answered less than
 * {@link READY_MAX_AGE_MS} ago, waiting at most {@link READY_PING_TIMEOUT_MS}. While it is known unreachable (a failed
 * operation or ping, or the monitor), `check()` answers at once and pings in the background (every
 * {@link RECOVERY_PING_MS}) say when it is back. `check()` probes with a write only while writes are failing, so that
 * readiness returns once the database can write again even when no client writes.
 */
export class DatabaseHealth implements HealthSource {
  private reachable = true;
  private writeFailing = false;
  private recoveryPing: NodeJS.Timeout | undefined;
  /** When a ping of `check()` last answered (performance.now()), and the ping in flight, shared by concurrent checks. */
  private lastPingAt = Number.NEGATIVE_INFINITY;
  private pinging: Promise<void> | undefined;
  private readonly onTopology = (event: TopologyDescriptionChangedEvent) => {
    this.reachable = event.newDescription.hasKnownServers;
    if (!this.reachable) this.pingUntilReachable();
  };

  constructor(
    private readonly client: MongoClient,
    private readonly db: Db,
    private readonly timeoutMs: number,
  ) {
    client.on('topologyDescriptionChanged', this.onTopology);
  }

  get state(): DatabaseHealthState {
    return { reachable: this.reachable, writeFailing: this.writeFailing, damaged: null };
  }

  get ready(): boolean {
    return this.reachable && !this.writeFailing;
  }

  /**
   * Records what a failed operation says of the database: unreachable (at once, without waiting for the driver's
   * monitor; its next topology event says when a server is known again), or unable to store a write (not when the
   * input was at fault).
   */
  recordFailure(error: unknown): void {
    if (isUnreachableError(error)) {
      this.reachable = false;
      this.pingUntilReachable();
    } else if (isWriteStorageError(error)) this.writeFailing = true;
  }

  /**
   * An operation's failure may arrive after the driver's monitor already found the server again, with no topology
   * event to follow: pings every RECOVERY_PING_MS until one answers or a topology event says a server is known.
   */
  private pingUntilReachable(): void {
    if (this.recoveryPing) return;
    this.recoveryPing = setTimeout(async () => {
      if (!this.reachable) {
        try {
          await this.db.command({ ping: 1 }, { timeoutMS: this.timeoutMs });
          this.reachable = true;
        } catch {
          // Still unreachable: try again.
        }
      }
      this.recoveryPing = undefined;
      if (!this.reachable) this.pingUntilReachable();
    }, RECOVERY_PING_MS).unref();
  }

  /**
   * The current state; while writes are failing, first one bounded probe write (an empty `$set` on a missing document
   * of a collection that is never read), whose success clears the failure.
   */
  async check(): Promise<DatabaseHealthState> {
    // Known down: the recovery pings (every RECOVERY_PING_MS) say when it is back, so no ping waits here.
    if (this.reachable && performance.now() - this.lastPingAt > READY_MAX_AGE_MS) await (this.pinging ??= this.ping());
    if (this.writeFailing && this.reachable) {
      try {
        await this.db
          .collection(PROBE_COLLECTION)
          .updateOne(
            { _id: 'write-probe' as never },
            { $set: { at: new Date() } },
            { upsert: true, timeoutMS: this.timeoutMs },
          );
        this.writeFailing = false;
      } catch {
        // Still failing: /ready stays 503.
      }
    }
    return this.state;
  }

  /** One live ping: its answer marks the database reachable, its failure unreachable (as an operation's would). */
  private async ping(): Promise<void> {
    try {
      await this.db.command({ ping: 1 }, { timeoutMS: Math.min(this.timeoutMs, READY_PING_TIMEOUT_MS) });
      this.reachable = true;
      this.lastPingAt = performance.now();
    } catch (error) {
      // A database that answers with an error is reachable; no answer, or none in time, is not.
      if (!(error instanceof MongoServerError)) {
        this.reachable = false;
        this.pingUntilReachable();
      }
    } finally {
      this.pinging = undefined;
    }
  }

  close(): void {
    clearTimeout(this.recoveryPing);
    this.client.off('topologyDescriptionChanged', this.onTopology);
  }
}

/** The oldest ping GET /ready answers from; an older one is repeated first. */
export const READY_MAX_AGE_MS = 1000;
/** How long GET /ready's ping waits for the database (DB_TIMEOUT_MS when shorter). */
export const READY_PING_TIMEOUT_MS = 1000;

/** How often a database marked unreachable by a failed operation is pinged, to see whether it is back. */
const RECOVERY_PING_MS = 500;

/** Written only by the readiness probe; holds one document. */
export const PROBE_COLLECTION = 'hindsight_health';

/** The driver could not reach the database (down, unreachable, closed): the request may be retried. */
export function isUnreachableError(error: unknown): boolean {
  return (
    error instanceof MongoServerSelectionError ||
    error instanceof MongoNetworkError ||
    error instanceof MongoNotConnectedError ||
    error instanceof MongoTopologyClosedError
  );
}

/** mongod's OutOfDiskSpace, and the embedded engine's InternalError for a journal write that failed. */
const STORAGE_CODES = new Set([14031]);

/** The database could not store a write (disk full, journal write failed). */
export function isWriteStorageError(error: unknown): boolean {
  return (
    error instanceof MongoServerError &&
    (STORAGE_CODES.has(Number(error.code)) || /could not be made durable/.test(error.message))
  );
}
