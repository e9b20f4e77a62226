import type { Collection, Db, Document, Filter } from 'mongodb';
import { RequestEndedError } from '../coded-error';

/**
 * One request's lifetime: ended by its deadline (`timeoutMs`, code TIMEOUT) or by `cancel` (its client left, code
 * REQUEST_CANCELLED); `signal` carries the {@link RequestEndedError} as its reason.
 */
export class RequestLifetime {
  readonly deadline: number;
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private yieldedAt = Date.now();

  constructor(readonly timeoutMs: number) {
    this.deadline = Date.now() + timeoutMs;
    this.timer = setTimeout(() => this.expire(), timeoutMs);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  cancel(): void {
    this.controller.abort(new RequestEndedError('REQUEST_CANCELLED'));
  }

  /** Throws the reason once the request has ended. Reads the clock too: no timer fires while work runs on microtasks. */
  check(): void {
    if (Date.now() >= this.deadline) this.expire();
    this.signal.throwIfAborted();
  }

  private expire(): void {
    if (!this.signal.aborted) this.controller.abort(new RequestEndedError('TIMEOUT', this.timeoutMs));
  }

  /**
   * {@link check}, after letting the event loop run when this request has held it for YIELD_AFTER_MS: a query whose
   * searches and cached loads resolve on microtasks alone would otherwise never see its client leave, and would stall
   * every other request until it ends.
   */
  async checkpoint(): Promise<void> {
    if (Date.now() - this.yieldedAt >= YIELD_AFTER_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      this.yieldedAt = Date.now();
    }
    this.check();
  }

  /** Stops the deadline's timer (the answer is sent). */
  release(): void {
    clearTimeout(this.timer);
  }
}

const YIELD_AFTER_MS = 20;

const lifetimes = new WeakMap<Db, RequestLifetime>();

/** The lifetime of the request a {@link boundToRequest} handle serves; undefined for any other handle. */
export function requestLifetimeOf(db: Db): RequestLifetime | undefined {
  return lifetimes.get(db);
}

/**
 * A handle on `db` for one request: every read through its collections (find, findOne, aggregate, countDocuments,
 * distinct, estimatedDocumentCount) first throws the signal's reason once the request has ended, and carries a
 * `maxTimeMS` of what is left of the deadline, so the server stops it too. Writes are left whole: they are single
 * commands, stopped before they start by the checks of the reads and searches around them.
 *
 * The driver's own per-operation deadline (`timeoutMS`, CSOT) is a no-op in driver 7, hence this. Everything else is
 * inherited from `db` (prototype), so the handle is a `Db` wherever one is expected; it costs two small objects per
 * request and one per collection used.
 */
export function boundToRequest(db: Db, lifetime: RequestLifetime): Db {
  const bound = Object.create(db) as Db;
  bound.collection = <T extends Document>(name: string, options?: Parameters<Db['collection']>[1]) =>
    boundCollection(db.collection<T>(name, options), lifetime);
  lifetimes.set(bound, lifetime);
  return bound;
}

/** `options` with `maxTimeMS` no later than the deadline, after throwing if the request has ended. */
function limited<O extends { maxTimeMS?: number }>(options: O | undefined, lifetime: RequestLifetime): O {
  lifetime.check();
  const left = Math.max(1, lifetime.deadline - Date.now());
  return { ...options, maxTimeMS: Math.min(options?.maxTimeMS ?? left, left) } as O;
}

function boundCollection<T extends Document>(collection: Collection<T>, lifetime: RequestLifetime): Collection<T> {
  const bound = Object.create(collection) as Collection<T>;
  // findOne calls this.find: bound through it. The casts keep the drivers' overloads, which arrow functions cannot.
  Object.assign(bound, {
    find: (filter?: Filter<T>, options?: Document) => collection.find(filter ?? {}, limited(options, lifetime)),
    aggregate: (pipeline?: Document[], options?: Document) =>
      collection.aggregate(pipeline, limited(options, lifetime)),
    countDocuments: (filter?: Filter<T>, options?: Document) =>
      collection.countDocuments(filter, limited(options, lifetime)),
    distinct: (key: string, filter?: Filter<T>, options?: Document) =>
      collection.distinct(key, filter ?? {}, limited(options, lifetime)),
    estimatedDocumentCount: (options?: Document) => collection.estimatedDocumentCount(limited(options, lifetime)),
  });
  return bound;
}
