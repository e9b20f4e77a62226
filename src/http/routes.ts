import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApolloServer } from '@apollo/server';
import type { MongoClient } from 'mongodb';
import type { AppDeps } from '../app';
import { createContext, type Context } from '../context';
import type { DatabaseKind } from '../db/connection';
import { unavailableReason, type HealthSource } from '../db/health';
import { RequestLifetime } from '../db/request-bound';
import type { RunOperation } from '../mcp/mcp.server';
import type { ToolDefinition } from '../mcp/mcp.tools';
import type { RateLimiter } from '../auth/rate-limit';
import { timeDatabaseCommands } from '../observability/database';
import { collectProcessMetrics, registry } from '../observability/metrics';
import { authenticate, sendRateLimited, sendUnauthenticated } from './auth';
import { checkJsonWidth, parseJsonBody, readBody } from './body';
import { sendJson } from './reply';

/**
 * One HTTP endpoint. `createServer` (server.ts) answers a request with the first route of its list whose path (and
 * method, when set) match, and with a JSON 404 when none does: a new endpoint is a Route added to that list.
 */
export interface Route {
  /** The path answered, exactly (no prefix matching). */
  readonly path: string;
  /** The method answered (`GET`); unset: every method. */
  readonly method?: string;
  /** Answers the request; a rejection is answered by the server (HttpError: its status, else 500). */
  handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> | void;
  /** Releases what the route holds when the server stops. */
  close?(): void;
}

/** The first route answering `method` on `path`, or undefined. */
export function matchRoute(routes: readonly Route[], method: string | undefined, path: string): Route | undefined {
  for (const route of routes) {
    if (route.path === path && (route.method === undefined || route.method === method)) return route;
  }
  return undefined;
}

/** GET /health: the process is up. */
export function healthRoute(deps: Pick<AppDeps, 'version'>): Route {
  return {
    path: '/health',
    method: 'GET',
    handle: (_req, res) =>
      sendJson(res, 200, { status: 'ok', version: deps.version, uptimeSeconds: Math.round(process.uptime()) }),
  };
}

/**
 * GET /ready: 200 while the database is reachable and its writes succeed, else 503 with the reason. Answers from a
 * ping at most a second old, made live when older (see DatabaseHealth), so it waits at most that ping's second.
 */
export function readyRoute(deps: { database: { health: HealthSource; kind: DatabaseKind } }): Route {
  const { health, kind } = deps.database;
  return {
    path: '/ready',
    method: 'GET',
    async handle(_req, res) {
      const reason = unavailableReason(await health.check());
      if (reason) return sendJson(res, 503, { status: 'unavailable', error: reason });
      return sendJson(res, 200, { status: 'ready', database: kind });
    },
    close() {
      health.close();
    },
  };
}

/**
 * GET /metrics: the process's metrics (src/observability/metrics.ts) in the Prometheus text format, for a scraper and
 * for the benchmark (which reads it before and after each load). Open as /health is: it holds counts and latencies,
 * never a name or value a client stored (operation names are the clients' labels, bounded in number). Closing the
 * route stops timing `client`'s commands.
 */
export function metricsRoute(client: MongoClient): Route {
  collectProcessMetrics();
  const stopTiming = timeDatabaseCommands(client);
  return {
    path: '/metrics',
    method: 'GET',
    async handle(_req, res) {
      const text = await registry.metrics();
      res.statusCode = 200;
      res.setHeader('content-type', registry.contentType);
      res.end(text);
    },
    close: stopTiming,
  };
}

/**
 * /mcp: the Model Context Protocol over Streamable HTTP, stateless (a server and transport per request, JSON answers).
 * Each tool runs its GraphQL operation through `apollo` with the context of the request's key, as /graphql would; a
 * request takes from the key's RATE_LIMIT_PER_MIN bucket as a GraphQL request does. The MCP SDK is loaded on the
 * first request: it costs about 0.5 s of CPU to load, which a process that never serves /mcp (a test file) is spared.
 */
export function mcpRoute(
  deps: AppDeps,
  apollo: ApolloServer<Context>,
  rateLimiter: RateLimiter | null,
  tools: readonly ToolDefinition[],
): Route {
  return {
    path: '/mcp',
    async handle(req, res) {
      const caller = await authenticate(req, deps.keys);
      if (!caller) return sendUnauthenticated(res);
      const retryAfter = rateLimiter?.admit(caller.keyId, req.socket.remoteAddress) ?? 0;
      if (retryAfter > 0) return sendRateLimited(res, retryAfter);
      const db = await deps.tenantDb(caller.tenant);
      const lifetime = new RequestLifetime(deps.config.requestTimeoutMs);
      const run: RunOperation = async (query, variables) => {
        const contextValue = createContext(deps, { caller, db, lifetime });
        const response = await apollo.executeOperation({ query, variables }, { contextValue });
        if (response.body.kind !== 'single') throw new Error('MCP tools run single-result operations only');
        return response.body.singleResult;
      };
      const [{ createMcpServer }, { StreamableHTTPServerTransport }] = await Promise.all([
        import('../mcp/mcp.server'),
        import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
      ]);
      const server = createMcpServer(tools, run, deps.version);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.once('close', () => {
        if (!res.writableFinished) lifetime.cancel();
        lifetime.release();
        void server.close();
      });
      await server.connect(transport);
      const text = req.method === 'POST' ? await readBody(req) : undefined;
      if (text !== undefined) checkJsonWidth(text);
      const body = text === undefined ? undefined : parseJsonBody(text);
      await transport.handleRequest(req, res, body);
    },
  };
}
