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

/** What GET /ready answers: the last known state, never a wait on the database. */
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
 * The database's health, kept current by the driver's topology events (no request waits on a ping) and by the writes
 * that fail or succeed ({@link recordFailure}). While an operation's failure marks it unreachable, a ping in the
 * background says when it is back; `check()` probes with a write only while writes are failing, so that readiness
 * returns once the database can write again even when no client writes.
 */
export class DatabaseHealth implements HealthSource {
  private reachable = true;
  private writeFailing = false;
  private recoveryPing: NodeJS.Timeout | undefined;
  private readonly onTopology = (event: TopologyDescriptionChangedEvent) => {
    this.reachable = event.newDescription.hasKnownServers;
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

  close(): void {
    clearTimeout(this.recoveryPing);
    this.client.off('topologyDescriptionChanged', this.onTopology);
  }
}

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
