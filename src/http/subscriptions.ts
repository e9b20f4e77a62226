import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import {
  createSourceEventStream,
  execute,
  type ExecutionArgs,
  type ExecutionResult,
  type FormattedExecutionResult,
  GraphQLError,
  type GraphQLSchema,
  print,
} from 'graphql';
import { CloseCode } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer, type WebSocket } from 'ws';
import type { AppDeps } from '../app';
import type { Caller } from '../auth/caller';
import { createContext, type Context } from '../context';
import { createErrorFormatter } from '../errors';
import { openSubscription } from '../observability/metrics';
import { callerOf } from './auth';
import { MAX_READ_BODY_BYTES } from './body';

/** What a connection keeps from its `connection_init`: who it is, and so which database it follows. */
type ConnectionScope = {
  scope?: { caller: Caller; context: Context };
};

/** Where a subscriber's events go straight to: its connection, and its subscription's id as JSON. */
interface Delivery {
  socket: WebSocket;
  idJson: string;
}

/**
 * GraphQL subscriptions over WebSocket (the graphql-ws protocol) on /graphql. The key comes in
 * `connectionParams.authorization` (`Bearer <key>`; see authorizationOf) and applies to the whole connection: none or
 * a bad one closes it with 4401. Each event runs the operation in a fresh context of the caller's role and tenant
 * database, once for all subscribers of the same operation.
 */
export class SubscriptionServer {
  // A subscription is a read: a message over MAX_READ_BODY_BYTES closes the connection with 1009 (ws's default: 100 MiB).
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: MAX_READ_BODY_BYTES });
  private readonly shared = new Map<string, SharedOperation>();
  /** Each subscription's delivery, by the execution arguments graphql-ws hands to `context`, then to `subscribe`. */
  private readonly deliveries = new WeakMap<ExecutionArgs, Delivery>();
  private readonly disposable: { dispose(): void | Promise<void> };

  constructor(
    private readonly deps: AppDeps,
    schema: GraphQLSchema,
  ) {
    const formatError = createErrorFormatter(deps.logger, deps.database.health);
    // Answered as over HTTP: known codes pass, anything else is "Unexpected error." (formatted errors are plain JSON).
    const format = (result: ExecutionResult): ExecutionResult =>
      result.errors
        ? ({
            ...result,
            errors: result.errors.map((error) => formatError(error.toJSON(), error)),
          } as unknown as ExecutionResult)
        : result;
    this.disposable = useServer<Record<string, unknown>, ConnectionScope>(
      {
        schema,
        onConnect: async (ctx) => {
          const caller = await callerOf(authorizationOf(ctx.connectionParams), deps.keys);
          if (!caller) {
            ctx.extra.socket.close(CloseCode.Unauthorized, 'Unauthorized: send connectionParams.authorization');
            return false;
          }
          const db = await deps.tenantDb(caller.tenant);
          ctx.extra.scope = { caller, context: createContext(deps, { caller, db }) };
          return true;
        },
        context: (ctx, id, _payload, args) => {
          this.deliveries.set(args, { socket: ctx.extra.socket, idJson: JSON.stringify(id) });
          return ctx.extra.scope?.context;
        },
        execute: async (args) => format(await execute(args)),
        // Results are formatted already, their errors plain JSON: sent as they are (graphql-ws would call each error's
        // toJSON, which plain objects lack, and end the subscription).
        onNext: (_ctx, _id, _payload, _args, result) =>
          result.errors ? (result as unknown as FormattedExecutionResult) : undefined,
        subscribe: (args) => this.subscribe(args, format),
      },
      this.wss,
    );
  }

  /** Takes over an upgrade request for /graphql. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      batchSends(ws, socket);
      quietOversizedMessages(ws);
      this.wss.emit('connection', ws, req);
    });
  }

  async close(): Promise<void> {
    await this.disposable.dispose();
  }

  /**
   * Subscribers currently attached to a set-up source (its change feed open, waiting for events): for tests and
   * metrics. Identical operations share one source, so this, not the follower's consumers, counts subscribers.
   */
  get subscribers(): number {
    let count = 0;
    for (const shared of this.shared.values()) if (shared.ready) count += shared.subscriberCount;
    return count;
  }

  /**
   * graphql-js's subscribe, except that subscribers of the same operation share it (see SharedOperation): one source
   * stream, and each event executed once, in a new context (fresh loaders), for all of them.
   */
  private async subscribe(args: ExecutionArgs, format: (result: ExecutionResult) => ExecutionResult) {
    const { caller, db } = args.contextValue as Context;
    const key = sharingKey(args, caller);
    let shared = this.shared.get(key);
    if (!shared) {
      // Only the role and the tenant (and so the database) are the caller's part in the key: the shared execution gets
      // a caller with no key id, so that no resolver can make one subscriber's result depend on anything else.
      const sharedCaller: Caller = { role: caller.role, tenant: caller.tenant, keyId: null };
      const created = new SharedOperation(
        args,
        () => createContext(this.deps, { caller: sharedCaller, db }),
        format,
        () => {
          if (this.shared.get(key) === created) this.shared.delete(key);
        },
      );
      this.shared.set(key, created);
      shared = created;
    }
    return shared.join(this.deliveries.get(args));
  }
}

/**
 * What makes two subscriptions the same operation: the operation's text and name, its variables, and the caller's role
 * and tenant. A different spelling of the same operation is a different key: it is only not shared.
 */
function sharingKey(args: ExecutionArgs, caller: Caller): string {
  const text = args.document.loc?.source.body ?? print(args.document);
  return JSON.stringify([caller.tenant, caller.role, args.operationName ?? null, args.variableValues ?? null, text]);
}

/**
 * The subscribers of one operation: its source event stream is made once, for the first of them, and each event is
 * executed once and the result handed to every subscriber attached at the time, in order: N identical subscribers
 * cost one read of the change feed and one execution per event, not N. The source is left (its change feed freed)
 * when the last subscriber leaves.
 */
class SharedOperation {
  private readonly attached = new Set<Subscriber>();
  private readonly setUp: Promise<ExecutionResult | AsyncGenerator<unknown>>;
  private source: AsyncGenerator<unknown> | null = null;
  ready = false;

  constructor(
    private readonly args: ExecutionArgs,
    private readonly contextForEvent: () => Context,
    private readonly format: (result: ExecutionResult) => ExecutionResult,
    private readonly onEmpty: () => void,
  ) {
    this.setUp = createSourceEventStream(args).then(
      (source) => {
        if (Symbol.asyncIterator in source) {
          this.ready = true;
          this.source = source as AsyncGenerator<unknown>;
          void this.pump(this.source);
        } else this.onEmpty();
        return source as ExecutionResult | AsyncGenerator<unknown>;
      },
      (error: unknown) => {
        this.onEmpty();
        throw error;
      },
    );
  }

  get subscriberCount(): number {
    return this.attached.size;
  }

  /**
   * A subscriber's results from now on; or the operation's error result when its source could not be made. With a
   * delivery, its events are written to its connection directly (see `pump`) and the iterator only ends.
   */
  async join(delivery?: Delivery): Promise<ExecutionResult | AsyncIterableIterator<ExecutionResult>> {
    const closed = openSubscription();
    const subscriber = new Subscriber(() => this.leave(subscriber), closed, delivery);
    this.attached.add(subscriber);
    try {
      const source = await this.setUp;
      if (Symbol.asyncIterator in source) return subscriber;
      return this.format(source as ExecutionResult);
    } finally {
      if (!this.ready) {
        this.attached.delete(subscriber);
        closed();
      }
    }
  }

  private leave(subscriber: Subscriber): void {
    if (!this.attached.delete(subscriber) || this.attached.size > 0) return;
    this.onEmpty();
    // Leaves the change feed at once, even while the pump waits for an event.
    void this.source?.return(undefined);
  }

  /** Reads the source until the last subscriber leaves; an error ends every subscriber with it. */
  private async pump(source: AsyncGenerator<unknown>): Promise<void> {
    try {
      for (;;) {
        if (this.attached.size === 0) break;
        const event = await source.next();
        if (event.done || this.attached.size === 0) break;
        const result = this.format(
          await execute({ ...this.args, rootValue: event.value, contextValue: this.contextForEvent() }),
        );
        // The result's JSON is made once for every subscriber, not once per subscriber by graphql-ws.
        let payload: string | undefined;
        for (const subscriber of this.attached)
          if (subscriber.delivery) subscriber.send((payload ??= JSON.stringify(result)));
          else subscriber.push(result);
      }
      for (const subscriber of this.attached) subscriber.end();
    } catch (error) {
      // A failed source (the database, say) ends each subscription with a coded error, masked as over HTTP.
      const failure = this.format({
        errors: [new GraphQLError('Unexpected error.', { originalError: asError(error) })],
      });
      for (const subscriber of this.attached) {
        subscriber.push(failure);
        subscriber.end();
      }
    } finally {
      this.attached.clear();
      this.onEmpty();
      await source.return(undefined);
    }
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * Makes the frames `ws` sends in one run of the microtask queue leave in one write: its TCP socket is corked at the
 * first send and uncorked once the queue has run (process.nextTick runs then). An event's results reach the
 * connection's N subscribers in one run, so they cost one system call, not N (ws writes each frame at once otherwise).
 */
function batchSends(ws: WebSocket, socket: Duplex): void {
  const send = ws.send.bind(ws) as (...args: unknown[]) => void;
  let corked = false;
  const uncork = () => {
    corked = false;
    socket.uncork();
  };
  ws.send = ((...args: unknown[]) => {
    if (!corked && !socket.destroyed) {
      corked = true;
      socket.cork();
      process.nextTick(uncork);
    }
    send(...args);
  }) as WebSocket['send'];
}

/**
 * One subscriber: its events written to its connection directly (with a delivery) or queued for graphql-ws to read;
 * `return()` (the client unsubscribed or left) detaches it at once.
 */
class Subscriber implements AsyncIterableIterator<ExecutionResult> {
  private readonly queue: ExecutionResult[] = [];
  private waiting: ((result: IteratorResult<ExecutionResult>) => void) | null = null;
  private done = false;

  constructor(
    private readonly leave: () => void,
    /** Counts it closed in /metrics (idempotent), whether the client left or the source ended. */
    private readonly closed: () => void,
    readonly delivery?: Delivery,
  ) {}

  /**
   * Writes an event's `next` message (its result's JSON given) to the subscriber's connection: the message graphql-ws
   * would send, without its per-subscriber encoding and await. Messages keep their order on the socket.
   */
  send(payload: string): void {
    const { delivery } = this;
    if (this.done || !delivery || delivery.socket.readyState !== delivery.socket.OPEN) return;
    delivery.socket.send(`{"id":${delivery.idJson},"type":"next","payload":${payload}}`);
  }

  push(result: ExecutionResult): void {
    if (this.done) return;
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = null;
      resolve({ value: result, done: false });
    } else this.queue.push(result);
  }

  /** No more results: a pending `next()` resolves as done, queued results are still read. */
  end(): void {
    this.done = true;
    this.closed();
    this.waiting?.({ value: undefined, done: true });
    this.waiting = null;
  }

  next(): Promise<IteratorResult<ExecutionResult>> {
    const result = this.queue.shift();
    if (result) return Promise.resolve({ value: result, done: false });
    if (this.done) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => (this.waiting = resolve));
  }

  return(): Promise<IteratorResult<ExecutionResult>> {
    if (!this.done) {
      this.queue.length = 0;
      this.end();
      this.leave();
    }
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<ExecutionResult> {
    return this;
  }
}

/**
 * The key a connection sends: `authorization` in its connectionParams, in any case, or in their `headers` object: the
 * shapes apps send (`{ authorization }`, `{ Authorization }`, and `{ headers: { Authorization } }`, Hasura's).
 */
function authorizationOf(params: Record<string, unknown> | undefined): string | undefined {
  for (const holder of [params, params?.headers]) {
    if (typeof holder !== 'object' || holder === null) continue;
    for (const [name, value] of Object.entries(holder)) {
      if (name.toLowerCase() === 'authorization' && typeof value === 'string') return value;
    }
  }
  return undefined;
}

/** Hands WebSocket upgrades of /graphql to `subscriptions`; refuses any other path. */
export function acceptUpgrades(
  httpServer: Server,
  subscriptions: SubscriptionServer,
  allowed: (req: IncomingMessage) => Promise<boolean>,
): void {
  httpServer.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    allowed(req).then(
      (ok) => (ok && path === '/graphql' ? subscriptions.upgrade(req, socket, head) : socket.destroy()),
      () => socket.destroy(),
    );
  });
}

/**
 * ws closes a connection whose message passes maxPayload with 1009 and emits the error too, which graphql-ws logs
 * with console.error as a fault of the implementation: any client could fill the log so. That error alone is not
 * emitted; the close stands.
 */
function quietOversizedMessages(ws: WebSocket): void {
  const emit = ws.emit.bind(ws);
  ws.emit = ((event: string | symbol, ...args: unknown[]) =>
    event === 'error' && (args[0] as { code?: unknown } | undefined)?.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH'
      ? false
      : emit(event, ...args)) as WebSocket['emit'];
}
