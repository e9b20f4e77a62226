import type { IncomingMessage, ServerResponse } from 'node:http';
import type { MongoClient } from 'mongodb';
import type { AppDeps } from '../app';
import type { DatabaseKind } from '../db/connection';
import { unavailableReason, type HealthSource } from '../db/health';
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
 * GET /ready: 200 while the database is reachable and its writes succeed, else 503 with the reason. Answers from the
 * health the driver's events keep (see DatabaseHealth), so it never waits for an unreachable database.
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

/** What GET /metrics reports of GraphQL requests (see GraphQLBridge). */
export interface GraphQLCounters {
  readonly requests: number;
  readonly inFlight: number;
  readonly fastPathAnswered: number;
}

/**
 * GET /metrics: process memory, GraphQL requests, those of them the fast path answered, and database commands since
 * start (the benchmark reads it before and after each load). Closing the route stops counting database commands.
 */
export function metricsRoute(graphql: GraphQLCounters, client: MongoClient): Route {
  // Database commands are counted from the pool's checkout events: each command an operation sends checks a
  // connection out once, and the driver emits these events anyway. Command monitoring (monitorCommands) counts the
  // same, but deserializes every reply a second time for its events: measured +30–50% driver CPU on reads.
  let databaseCommands = 0;
  const countCommand = () => {
    databaseCommands++;
  };
  client.on('connectionCheckedOut', countCommand);
  return {
    path: '/metrics',
    method: 'GET',
    handle(_req, res) {
      const memory = process.memoryUsage();
      sendJson(res, 200, {
        graphqlRequests: graphql.requests,
        graphqlFastPath: graphql.fastPathAnswered,
        graphqlInFlight: graphql.inFlight,
        databaseCommands,
        rssBytes: memory.rss,
        heapUsedBytes: memory.heapUsed,
        heapTotalBytes: memory.heapTotal,
        externalBytes: memory.external,
        uptimeSeconds: Math.round(process.uptime()),
      });
    },
    close() {
      client.off('connectionCheckedOut', countCommand);
    },
  };
}
