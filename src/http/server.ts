import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ApolloServer } from '@apollo/server';
import type { GraphQLSchema } from 'graphql';
import type { AppDeps } from '../app';
import type { Context } from '../context';
import { Cors } from './cors';
import { GraphQLBridge } from './graphql-bridge';
import { playgroundRoutes } from './playground';
import { HttpError, sendJson } from './reply';
import { checkedRootFieldRoles } from '../auth/auth-checker';
import { startTracing } from '../observability/tracing';
import { defineTools } from '../mcp/mcp.tools';
import { acceptUpgrades, SubscriptionServer } from './subscriptions';
import { healthRoute, matchRoute, mcpRoute, metricsRoute, readyRoute, type Route } from './routes';

export interface HindsightServer {
  apollo: ApolloServer<Context>;
  httpServer: http.Server;
  /** graphql-ws on /graphql (its `subscribers` count is for tests and metrics). */
  subscriptions: SubscriptionServer;
  /** Starts listening; resolves with the GraphQL URL. */
  listen(port: number, host: string): Promise<string>;
  /** Stops accepting, lets in-flight requests finish (up to SHUTDOWN_TIMEOUT_MS), then closes connections. */
  stop(): Promise<void>;
}

/**
 * How long an idle keep-alive connection is kept: longer than the clients and proxies that pool connections keep one
 * idle (nginx and cloud load balancers 60 s, undici 4 s), so that the client closes it first. Were the server first, a
 * request the client sends on it as it closes is reset unanswered (`fetch failed`), a large body most surely.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/** An HTTP server whose idle connections the client closes first (see KEEP_ALIVE_TIMEOUT_MS). */
export function createHttpServer(listener?: http.RequestListener): http.Server {
  const server = http.createServer(listener);
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  return server;
}

const LOOPBACK_HOST = /^(?:localhost|127\.0\.0\.1|\[::1\])(?::\d+)?$/i;

/**
 * DNS-rebinding defence: while no key is configured (and ALLOW_ANONYMOUS is off), a browser page from another origin
 * that resolves its name to this machine must not drive the API, so only loopback names are answered. Loopback Host
 * headers never wait for the key lookup.
 */
function hostAllowed(deps: AppDeps, host: string | undefined): boolean | Promise<boolean> {
  if (deps.config.allowAnonymous || (host !== undefined && LOOPBACK_HOST.test(host))) return true;
  return deps.keys.requiredNow() ?? deps.keys.required();
}

/**
 * Builds the HTTP server: /graphql (graphql-bridge.ts), /mcp, GET /health, GET /ready and GET /metrics (routes.ts), the
 * playground's assets (playground.ts), a JSON 404 for anything else; CORS (cors.ts) for all of them. Reused by main
 * and by the tests.
 */
export async function createServer(deps: AppDeps, schema: GraphQLSchema): Promise<HindsightServer> {
  const { logger } = deps;
  // Known before the first request, which then never waits for it (see KeyStore.required).
  await deps.keys.required();
  const tracing = startTracing(deps.config, deps.version, logger);
  const httpServer = createHttpServer();
  const graphql = await GraphQLBridge.create(deps, schema, httpServer);
  // The MCP tools take their roles from the schema's root fields: a schema built without them (tests) has no /mcp.
  const roles = checkedRootFieldRoles(schema);
  // First match wins (see Route): /graphql is first, as nearly every request is one.
  const routes: Route[] = [
    graphql,
    ...(roles ? [mcpRoute(deps, graphql.apollo, graphql.rateLimiter, defineTools(schema, roles))] : []),
    metricsRoute(deps.database.client),
    healthRoute(deps),
    readyRoute(deps),
    ...(deps.config.playground ? playgroundRoutes() : []),
  ];
  const cors = new Cors(deps.config.corsOrigins);
  const subscriptions = new SubscriptionServer(deps, schema);
  acceptUpgrades(httpServer, subscriptions, async (req) => hostAllowed(deps, req.headers.host));

  httpServer.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const respond = async () => {
      // Before the host and key checks, so that a browser app can read their refusals too.
      if (cors.apply(req, res)) return;
      const allowed = hostAllowed(deps, req.headers.host);
      if (!(allowed instanceof Promise ? await allowed : allowed)) {
        return sendJson(res, 403, {
          errors: [
            {
              message:
                'Host not allowed: with no API key configured, only localhost, 127.0.0.1 and [::1] are answered.',
              extensions: { code: 'FORBIDDEN_HOST' },
            },
          ],
        });
      }
      const route = matchRoute(routes, req.method, url.pathname);
      if (route) return route.handle(req, res, url);
      sendJson(res, 404, { error: `No route for ${req.method} ${url.pathname}. The API is at /graphql.` });
    };
    respond().catch((error: unknown) => {
      if (error instanceof HttpError) {
        if (!res.headersSent)
          sendJson(res, error.status, {
            errors: [{ message: error.message, extensions: { code: error.code, ...error.extensions } }],
          });
        return;
      }
      logger.error('request failed', { error: error instanceof Error ? error.stack : String(error) });
      if (!res.headersSent)
        sendJson(res, 500, {
          errors: [{ message: 'Unexpected error.', extensions: { code: 'INTERNAL_SERVER_ERROR' } }],
        });
      else res.destroy();
    });
  });

  return {
    apollo: graphql.apollo,
    httpServer,
    subscriptions,
    listen(port, host) {
      return new Promise((resolve, reject) => {
        httpServer.once('error', reject);
        httpServer.listen(port, host, () => {
          httpServer.off('error', reject);
          const address = httpServer.address() as AddressInfo;
          const shownHost = host === '0.0.0.0' || host === '::' ? 'localhost' : host;
          resolve(`http://${shownHost}:${address.port}/graphql`);
        });
      });
    },
    async stop() {
      // The drain plugin stops accepting and waits for in-flight requests before closing idle connections.
      await graphql.apollo.stop();
      for (const route of routes) route.close?.();
      await subscriptions.close();
      await deps.messageIndex.close();
      await deps.changes.close();
      await tracing?.close();
      if (httpServer.listening) await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}
