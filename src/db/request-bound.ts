import type { AbstractCursor, Collection, Db, Document, Filter } from 'mongodb';
import { RequestEndedError } from '../coded-error';
import { sharedAttributes, traceSignal, type Attributes, type Span } from '../observability/tracing';

/** How a {@link RequestLifetime} learns that its client left. */
export interface RequestClient {
  /** True once the client has gone (read at each check). */
  gone(): boolean;
  /** Calls `onGone` when the client leaves; returns how to stop watching. */
  watch(onGone: () => void): () => void;
}

/**
 * One request's lifetime: ended by its deadline (`timeoutMs`, code TIMEOUT) or by its client leaving (code
 * REQUEST_CANCELLED); `signal` carries the {@link RequestEndedError} as its reason.
 *
 * The signal, its timer and the watch on the client are made only when something asks for `signal` (an embedding
 * call, a search): most reads only `check` the clock and the client, and these three were a measurable share of a
 * small read's CPU.
 */
export class RequestLifetime {
  readonly deadline: number;
  private controller?: AbortController;
  private timer?: NodeJS.Timeout;
  private stopWatching?: () => void;
  private ended?: RequestEndedError;
  private yieldedAt: number;

  constructor(
    readonly timeoutMs: number,
    private readonly client?: RequestClient,
    /** The request's span when it is traced; null when tracing runs and the sampler left the request out. */
    readonly span?: Span | null,
  ) {
    this.yieldedAt = Date.now();
    this.deadline = this.yieldedAt + timeoutMs;
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.ended) this.controller.abort(this.ended);
      else {
        this.timer = setTimeout(
          () => this.end(new RequestEndedError('TIMEOUT', this.timeoutMs)),
          this.deadline - Date.now(),
        );
        this.stopWatching = this.client?.watch(() => this.cancel());
      }
      // The request's embedding calls are made under this signal: their spans find their parent by it.
      if (this.span !== undefined) traceSignal(this.controller.signal, this.span);
    }
    return this.controller.signal;
  }

  cancel(): void {
    this.end(new RequestEndedError('REQUEST_CANCELLED'));
  }

  /** Throws the reason once the request has ended. Reads the clock too: no timer fires while work runs on microtasks. */
  check(): void {
    if (!this.ended) {
      if (Date.now() >= this.deadline) this.end(new RequestEndedError('TIMEOUT', this.timeoutMs));
      else if (this.client?.gone()) this.cancel();
    }
    if (this.ended) throw this.ended;
  }

  private end(reason: RequestEndedError): void {
    if (this.ended) return;
    this.ended = reason;
    this.controller?.abort(reason);
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

  /** Stops the deadline's timer and the watch on the client (the answer is sent). */
  release(): void {
    if (this.timer) clearTimeout(this.timer);
    this.stopWatching?.();
  }
}

const YIELD_AFTER_MS = 20;

/** Where a bound handle keeps its request's lifetime. */
const LIFETIME = Symbol('request lifetime');
/** Where a bound handle's prototype keeps the database it was made from. */
const UNBOUND = Symbol('unbound database');

type Bound<T> = T & { [LIFETIME]: RequestLifetime };

/** The database a {@link boundToRequest} handle was made from (`db` itself for any other handle): what per-database caches key by. */
export function unboundDb(db: Db): Db {
  return (db as Partial<Record<typeof UNBOUND, Db>>)[UNBOUND] ?? db;
}

/** The lifetime of the request a {@link boundToRequest} handle serves; undefined for any other handle. */
export function requestLifetimeOf(db: Db): RequestLifetime | undefined {
  return (db as Partial<Bound<Db>>)[LIFETIME];
}

/**
 * A handle on `db` for one request: every read through its collections (find, findOne, aggregate, countDocuments,
 * distinct, estimatedDocumentCount) first throws the signal's reason once the request has ended, and carries a
 * `maxTimeMS` of what is left of the deadline, so the server stops it too. Writes are left whole: they are single
 * commands, stopped before they start by the checks of the reads and searches around them.
 *
 * The driver's own per-operation deadline (`timeoutMS`, CSOT) is a no-op in driver 7, hence this. Everything else is
 * inherited from `db` (prototype), so the handle is a `Db` wherever one is expected. The prototypes carrying the bound
 * methods are made once per database and collection name, so a request adds only an object holding its lifetime and
 * never turns a fresh driver object into a prototype.
 */
export function boundToRequest(db: Db, lifetime: RequestLifetime): Db {
  const bound = Object.create(boundDbPrototype(db)) as Bound<Db>;
  bound[LIFETIME] = lifetime;
  return bound;
}

const dbPrototypes = new WeakMap<Db, Db>();

function boundDbPrototype(db: Db): Db {
  let prototype = dbPrototypes.get(db);
  if (!prototype) {
    const collectionPrototypes = new Map<string, Collection>();
    prototype = Object.create(db) as Db;
    Object.defineProperty(prototype, UNBOUND, { value: db });
    prototype.collection = function <T extends Document>(
      this: Bound<Db>,
      name: string,
      options?: Parameters<Db['collection']>[1],
    ): Collection<T> {
      // Collections with options are rare (none today): bound afresh, without caching.
      let collectionPrototype = options ? undefined : collectionPrototypes.get(name);
      if (!collectionPrototype) {
        collectionPrototype = boundCollectionPrototype(db.collection(name, options));
        if (!options) collectionPrototypes.set(name, collectionPrototype);
      }
      const bound = Object.create(collectionPrototype) as Bound<Collection<T>>;
      bound[LIFETIME] = this[LIFETIME];
      return bound;
    };
    // The reads that decode replies themselves (bson-reader.ts) send their find and aggregate commands this way.
    prototype.command = function (this: Bound<Db>, command: Document, options?: Parameters<Db['command']>[1]) {
      const name = Object.keys(command)[0] ?? 'command';
      const target = name === 'getMore' ? command.collection : command[name];
      return traced(
        this[LIFETIME],
        name,
        { dbName: db.databaseName, collectionName: typeof target === 'string' ? target : undefined },
        () => db.command(command, options),
      );
    };
    dbPrototypes.set(db, prototype);
  }
  return prototype;
}

/** `options` with `maxTimeMS` no later than the deadline, after throwing if the request has ended. */
function limited<O extends { maxTimeMS?: number }>(options: O | undefined, lifetime: RequestLifetime): O {
  lifetime.check();
  const left = Math.max(1, lifetime.deadline - Date.now());
  return { ...options, maxTimeMS: Math.min(options?.maxTimeMS ?? left, left) } as O;
}

/** A database call's span name and attributes: few, the same for every call, so made once (no key built per call). */
interface DatabaseSpanKind {
  name: string;
  attributes: Attributes;
}

/** By database, collection ('' for none) and command. */
const DATABASE_SPAN_KINDS = new Map<string, Map<string, Map<string, DatabaseSpanKind>>>();

function databaseSpanKind(command: string, dbName: string, collectionName: string | undefined): DatabaseSpanKind {
  let ofDb = DATABASE_SPAN_KINDS.get(dbName);
  if (!ofDb) DATABASE_SPAN_KINDS.set(dbName, (ofDb = new Map()));
  let ofCollection = ofDb.get(collectionName ?? '');
  if (!ofCollection) ofDb.set(collectionName ?? '', (ofCollection = new Map()));
  let kind = ofCollection.get(command);
  if (!kind) {
    kind = {
      name: collectionName ? `${command} ${collectionName}` : command,
      attributes: sharedAttributes({
        'db.system.name': 'mongodb',
        'db.operation.name': command,
        'db.namespace': dbName,
        ...(collectionName ? { 'db.collection.name': collectionName } : {}),
      }),
    };
    ofCollection.set(command, kind);
  }
  return kind;
}

/**
 * Runs one database call of a traced request as a child span of the request's, named as the command it sends and
 * the collection it targets (when it has one).
 */
function traced<T>(
  lifetime: RequestLifetime,
  command: string,
  target: { dbName: string; collectionName?: string },
  run: () => Promise<T>,
): Promise<T> {
  const request = lifetime.span;
  if (!request) return run();
  const kind = databaseSpanKind(command, target.dbName, target.collectionName);
  const span = request.child(kind.name, kind.attributes);
  return run().then(
    (value) => {
      span.end();
      return value;
    },
    (error: unknown) => {
      span.fail(error);
      span.end();
      throw error;
    },
  );
}

/** A cursor of a traced request: its first read (the command that opens it) is a span. */
function tracedCursor<C extends AbstractCursor>(
  cursor: C,
  lifetime: RequestLifetime,
  command: string,
  collection: Collection,
): C {
  if (!lifetime.span) return cursor;
  const { toArray, next } = cursor;
  let opened = false;
  const first = <T>(read: () => Promise<T>): Promise<T> => {
    if (opened) return read();
    opened = true;
    return traced(lifetime, command, collection, read);
  };
  Object.assign(cursor, {
    toArray: () => first(() => toArray.call(cursor)),
    next: () => first(() => next.call(cursor)),
  });
  return cursor;
}

/** The write methods, by the command each sends: traced, never bound to the deadline (see boundToRequest). */
const WRITES: Record<string, string> = {
  insertOne: 'insert',
  insertMany: 'insert',
  updateOne: 'update',
  updateMany: 'update',
  replaceOne: 'update',
  deleteOne: 'delete',
  deleteMany: 'delete',
  findOneAndUpdate: 'findAndModify',
  findOneAndReplace: 'findAndModify',
  findOneAndDelete: 'findAndModify',
  bulkWrite: 'bulkWrite',
};

/** `collection` with its reads bound to the lifetime of the object made from it (`this[LIFETIME]`), and traced. */
function boundCollectionPrototype(collection: Collection): Collection {
  const prototype = Object.create(collection) as Collection;
  // findOne calls this.find: bound through it. The casts keep the drivers' overloads, which plain methods cannot.
  Object.assign(prototype, {
    find(this: Bound<Collection>, filter?: Filter<Document>, options?: Document) {
      const lifetime = this[LIFETIME];
      return tracedCursor(collection.find(filter ?? {}, limited(options, lifetime)), lifetime, 'find', collection);
    },
    aggregate(this: Bound<Collection>, pipeline?: Document[], options?: Document) {
      const lifetime = this[LIFETIME];
      return tracedCursor(
        collection.aggregate(pipeline, limited(options, lifetime)),
        lifetime,
        'aggregate',
        collection,
      );
    },
    countDocuments(this: Bound<Collection>, filter?: Filter<Document>, options?: Document) {
      const lifetime = this[LIFETIME];
      return traced(lifetime, 'aggregate', collection, () =>
        collection.countDocuments(filter, limited(options, lifetime)),
      );
    },
    distinct(this: Bound<Collection>, key: string, filter?: Filter<Document>, options?: Document) {
      const lifetime = this[LIFETIME];
      return traced(lifetime, 'distinct', collection, () =>
        collection.distinct(key, filter ?? {}, limited(options, lifetime)),
      );
    },
    estimatedDocumentCount(this: Bound<Collection>, options?: Document) {
      const lifetime = this[LIFETIME];
      return traced(lifetime, 'count', collection, () => collection.estimatedDocumentCount(limited(options, lifetime)));
    },
  });
  for (const [method, command] of Object.entries(WRITES)) {
    const write = (collection as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>)[method];
    Object.defineProperty(prototype, method, {
      value(this: Bound<Collection>, ...args: unknown[]) {
        return traced(this[LIFETIME], command, collection, () => write.apply(collection, args));
      },
    });
  }
  return prototype;
}
