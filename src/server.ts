import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApolloServer, HeaderMap, type HTTPGraphQLRequest } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginUsageReportingDisabled } from '@apollo/server/plugin/disabled';
import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer';
import { ApolloServerPluginLandingPageLocalDefault } from '@apollo/server/plugin/landingPage/default';
import type { GraphQLSchema } from 'graphql';
import type { AppDeps } from './app';
import { createContext, type Caller, type Context } from './context';
import { createErrorFormatter } from './errors';
import { compiledExecution } from './graphql/compiled-execution';
import { FastPath } from './graphql/fast-path';

/** Largest request body accepted (a batch of messages or experiences fits easily). */
const MAX_BODY_BYTES = 32 * 1024 * 1024;

export interface HindsightServer {
  apollo: ApolloServer<Context>;
  httpServer: http.Server;
  /** Starts listening; resolves with the GraphQL URL. */
  listen(port: number, host: string): Promise<string>;
  /** Stops accepting, lets in-flight requests finish (up to SHUTDOWN_TIMEOUT_MS), then closes connections. */
  stop(): Promise<void>;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(payload) });
  res.end(payload);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new HttpError(413, `Request body larger than ${MAX_BODY_BYTES} bytes.`));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Resolves the caller from `Authorization: Bearer <key>`; null when API_KEYS is set and the key is missing or wrong. */
function authenticate(req: IncomingMessage, apiKeys: string[]): Caller | null {
  if (apiKeys.length === 0) return { apiKeyIndex: null };
  const match = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '');
  const index = match ? apiKeys.indexOf(match[1].trim()) : -1;
  return index >= 0 ? { apiKeyIndex: index } : null;
}

/**
 * Builds the HTTP server: POST/GET /graphql (GET also serves the playground to browsers), GET /health (process
 * up), GET /ready (database answers ping) and GET /metrics (process memory, GraphQL requests, those of them the fast
 * path answered, and database commands since start: the benchmark reads it before and after each load). Repeated
 * reads skip Apollo's pipeline with the same answer (src/graphql/fast-path.ts). Reused by main and by the tests.
 */
export async function createServer(deps: AppDeps, schema: GraphQLSchema): Promise<HindsightServer> {
  const { config, logger } = deps;
  const httpServer = http.createServer();
  const apollo = new ApolloServer<Context>({
    gateway: compiledExecution(schema, logger),
    formatError: createErrorFormatter(logger),
    includeStacktraceInErrorResponses: false,
    // The fast path validates with graphql's specified rules, which is what Apollo validates with as configured here:
    // introspection on, no maxRecursiveSelections, no validationRules. Changing one of these changes both.
    introspection: true,
    // main.ts owns SIGINT/SIGTERM. Apollo's own handlers (installed unless NODE_ENV=test) raced it: the process never
    // exited, so the search index was never saved either.
    stopOnTerminationSignals: false,
    // None of these has per-request hooks, which the fast path (src/graphql/fast-path.ts) does not run. A plugin that
    // needs to see every operation must make the fast path hand requests to Apollo.
    plugins: [
      // The default cache-control plugin wraps every field resolver to collect cache hints, which nothing here sets
      // (responses are never cached): measured ~15-20% of the CPU of a nested read.
      ApolloServerPluginCacheControlDisabled(),
      // Apollo would install usage reporting on its own when APOLLO_KEY and APOLLO_GRAPH_REF are set; it would miss the
      // fast path's requests, so it is off rather than partial.
      ApolloServerPluginUsageReportingDisabled(),
      ApolloServerPluginDrainHttpServer({ httpServer, stopGracePeriodMillis: config.shutdownTimeoutMs }),
      ApolloServerPluginLandingPageLocalDefault({ embed: true, includeCookies: false }),
    ],
  });
  await apollo.start();
  const fastPath = new FastPath(schema, logger);

  // Database commands are counted from the pool's checkout events: each command an operation sends checks a
  // connection out once, and the driver emits these events anyway. Command monitoring (monitorCommands) counts the
  // same, but deserializes every reply a second time for its events: measured +30–50% driver CPU on reads.
  let graphqlRequests = 0;
  let graphqlInFlight = 0;
  let databaseCommands = 0;
  const countCommand = () => {
    databaseCommands++;
  };
  deps.database.client.on('connectionCheckedOut', countCommand);

  const handleGraphQL = async (req: IncomingMessage, res: ServerResponse, url: URL) => {
    const caller = authenticate(req, config.apiKeys);
    const method = (req.method ?? 'GET').toUpperCase();
    const search = url.search;
    const wantsPage = method === 'GET' && !search && (req.headers.accept ?? '').includes('text/html');
    if (!caller && !wantsPage) {
      sendJson(res, 401, { errors: [{ message: 'Authentication required: send Authorization: Bearer <api key>.', extensions: { code: 'UNAUTHENTICATED' } }] });
      return;
    }
    const context = () => createContext(deps, { caller: caller ?? { apiKeyIndex: null } });
    let body: unknown;
    if (method === 'POST') {
      const text = await readBody(req);
      try {
        body = text ? JSON.parse(text) : {};
      } catch {
        throw new HttpError(400, 'Request body is not valid JSON.');
      }
      if (await fastPath.answer(req, res, body, context)) return;
    }
    const headers = new HeaderMap();
    for (const [key, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
    }
    const httpGraphQLRequest: HTTPGraphQLRequest = { method, headers, search, body };
    const response = await apollo.executeHTTPGraphQLRequest({
      httpGraphQLRequest,
      context: async () => context(),
    });
    for (const [key, value] of response.headers) res.setHeader(key, value);
    res.statusCode = response.status ?? 200;
    if (response.body.kind === 'complete') {
      res.end(response.body.string);
      return;
    }
    for await (const chunk of response.body.asyncIterator) res.write(chunk);
    res.end();
  };

  httpServer.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const route = async () => {
      if (url.pathname === '/graphql') {
        graphqlRequests++;
        graphqlInFlight++;
        return handleGraphQL(req, res, url).finally(() => graphqlInFlight--);
      }
      if (url.pathname === '/metrics' && req.method === 'GET') {
        const memory = process.memoryUsage();
        return sendJson(res, 200, {
          graphqlRequests,
          graphqlFastPath: fastPath.answered,
          graphqlInFlight,
          databaseCommands,
          rssBytes: memory.rss,
          heapUsedBytes: memory.heapUsed,
          heapTotalBytes: memory.heapTotal,
          externalBytes: memory.external,
          uptimeSeconds: Math.round(process.uptime()),
        });
      }
      if (url.pathname === '/health' && req.method === 'GET') {
        return sendJson(res, 200, { status: 'ok', version: deps.version, uptimeSeconds: Math.round(process.uptime()) });
      }
      if (url.pathname === '/ready' && req.method === 'GET') {
        try {
          await deps.database.db.command({ ping: 1 });
          return sendJson(res, 200, { status: 'ready', database: deps.database.kind });
        } catch (error) {
          return sendJson(res, 503, { status: 'unavailable', error: error instanceof Error ? error.message : String(error) });
        }
      }
      sendJson(res, 404, { error: `No route for ${req.method} ${url.pathname}. The API is at /graphql.` });
    };
    route().catch((error: unknown) => {
      if (error instanceof HttpError) {
        if (!res.headersSent) sendJson(res, error.status, { errors: [{ message: error.message, extensions: { code: 'BAD_REQUEST' } }] });
        return;
      }
      logger.error('request failed', { error: error instanceof Error ? error.stack : String(error) });
      if (!res.headersSent) sendJson(res, 500, { errors: [{ message: 'Unexpected error.', extensions: { code: 'INTERNAL_SERVER_ERROR' } }] });
      else res.destroy();
    });
  });

  return {
    apollo,
    httpServer,
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
      await apollo.stop();
      deps.database.client.off('connectionCheckedOut', countCommand);
      if (httpServer.listening) await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}
