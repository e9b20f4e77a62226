import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import {
  createSourceEventStream,
  execute,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLSchema,
} from 'graphql';
import { CloseCode } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import type { AppDeps } from '../app';
import type { Caller } from '../auth/caller';
import { createContext, type Context } from '../context';
import { createErrorFormatter } from '../errors';
import { openSubscription } from '../observability/metrics';
import { callerOf } from './auth';

/** What a connection keeps from its `connection_init`: who it is, and so which database it follows. */
type ConnectionScope = {
  scope?: { caller: Caller; context: Context };
};

/**
 * GraphQL subscriptions over WebSocket (the graphql-ws protocol) on /graphql. The key comes in
 * `connectionParams.authorization` (`Bearer <key>`) and applies to the whole connection: none or a bad one closes it
 * with 4401. Each event runs the operation in a fresh context of the connection's caller and tenant database.
 */
export class SubscriptionServer {
  private readonly wss = new WebSocketServer({ noServer: true });
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
          const authorization = ctx.connectionParams?.authorization;
          const caller = await callerOf(typeof authorization === 'string' ? authorization : undefined, deps.keys);
          if (!caller) {
            ctx.extra.socket.close(CloseCode.Unauthorized, 'Unauthorized: send connectionParams.authorization');
            return false;
          }
          const db = await deps.tenantDb(caller.tenant);
          ctx.extra.scope = { caller, context: createContext(deps, { caller, db }) };
          return true;
        },
        context: (ctx) => ctx.extra.scope?.context,
        execute: async (args) => format(await execute(args)),
        subscribe: (args) => this.subscribe(args, format),
      },
      this.wss,
    );
  }

  /** Takes over an upgrade request for /graphql. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.wss.handleUpgrade(req, socket, head, (ws) => this.wss.emit('connection', ws, req));
  }

  async close(): Promise<void> {
    await this.disposable.dispose();
  }

  /** graphql-js's subscribe, but each event executes in a new context (fresh loaders) of the connection's caller. */
  private async subscribe(args: ExecutionArgs, format: (result: ExecutionResult) => ExecutionResult) {
    const source = await createSourceEventStream(args);
    if (!(Symbol.asyncIterator in source)) return format(source);
    const connection = args.contextValue as Context;
    const events = source as AsyncGenerator<unknown>;
    const closed = openSubscription();
    const results: AsyncIterableIterator<ExecutionResult> = {
      next: async () => {
        const event = await events.next();
        if (event.done) {
          closed();
          return { value: undefined, done: true };
        }
        const contextValue = createContext(this.deps, { caller: connection.caller, db: connection.db });
        return { value: format(await execute({ ...args, rootValue: event.value, contextValue })), done: false };
      },
      return: async () => {
        closed();
        await events.return(undefined);
        return { value: undefined, done: true };
      },
      [Symbol.asyncIterator]: () => results,
    };
    return results;
  }
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
