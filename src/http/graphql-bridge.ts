import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApolloServer, HeaderMap, type ApolloServerPlugin, type HTTPGraphQLRequest } from '@apollo/server';
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginUsageReportingDisabled,
} from '@apollo/server/plugin/disabled';
import { ApolloServerPluginDrainHttpServer } from '@apollo/server/plugin/drainHttpServer';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import type { GraphQLSchema } from 'graphql';
import type { AppDeps } from '../app';
import { DEFAULT_TENANT } from '../auth/caller';
import type { Config } from '../config';
import { createContext, type Context } from '../context';
import { RequestLifetime, type RequestClient } from '../db/request-bound';
import { createErrorFormatter } from '../errors';
import { compiledExecution } from '../graphql/compiled-execution';
import { FastPath } from '../graphql/fast-path';
import { queryLimitChecks, type QueryLimits } from '../graphql/query-limits';
import { wellFormedInputPlugin } from '../graphql/well-formed-input';
import { RateLimiter } from '../auth/rate-limit';
import { graphqlInFlight, graphqlRequests } from '../observability/metrics';
import { operationOf } from '../observability/operation';
import { GraphQLRequestSignals } from '../observability/request-signals';
import { activeTracer, noteErrorRequest } from '../observability/tracing';
import { authenticate, sendRateLimited, sendUnauthenticated } from './auth';
import { checkJsonWidth, checkReadBodySize, parseJsonBody, readBody } from './body';
import { playgroundLandingPage } from './playground';
import type { Route } from './routes';

/**
 * Appends the request's STORED_VALUE_INVALID errors (src/modules/shared/stored-values.ts) to Apollo's response, and
 * notes which request each error arose in, for the lines the error formatter logs (it runs after this hook).
 */
const storedValueErrorsPlugin: ApolloServerPlugin<Context> = {
  async requestDidStart() {
    return {
      async didEncounterErrors({ contextValue, errors }) {
        const fields = contextValue?.logFields;
        if (fields) for (const error of errors) noteErrorRequest(error, fields);
      },
      async willSendResponse({ contextValue, response }) {
        // executeOperation may run without a context built by createContext (tests): nothing to append then.
        const stored = contextValue?.storedValues?.errors;
        if (!stored?.length || response.body.kind !== 'single') return;
        const { singleResult } = response.body;
        singleResult.errors = [...(singleResult.errors ?? []), ...stored];
      },
    };
  },
};

/** The client of one HTTP request: gone when its connection closed before the answer was complete. */
class HttpClient implements RequestClient {
  constructor(private readonly res: ServerResponse) {}

  gone(): boolean {
    return this.res.destroyed && !this.res.writableFinished;
  }

  watch(onGone: () => void): () => void {
    const closed = () => {
      if (!this.res.writableFinished) onGone();
    };
    this.res.once('close', closed);
    return () => this.res.off('close', closed);
  }
}

function queryLimits(config: Config): QueryLimits {
  return {
    maxTokens: config.maxQueryTokens,
    maxDepth: config.maxQueryDepth,
    maxAliases: config.maxAliases,
    maxCost: config.maxQueryCost,
  };
}

/**
 * POST/GET /graphql (GET also serves the playground to browsers): the caller's key, the body, then the fast path
 * (src/graphql/fast-path.ts), which answers repeated operations without Apollo's pipeline with the same answer, else
 * Apollo.
 */
export class GraphQLBridge implements Route {
  readonly path = '/graphql';

  private constructor(
    readonly apollo: ApolloServer<Context>,
    private readonly fastPath: FastPath,
    private readonly deps: AppDeps,
    /** RATE_LIMIT_PER_MIN's buckets; /mcp takes from the same ones. */
    readonly rateLimiter: RateLimiter | null,
  ) {}

  /** Starts Apollo for `schema`; its drain plugin stops `httpServer` gracefully on `apollo.stop()`. */
  static async create(deps: AppDeps, schema: GraphQLSchema, httpServer: http.Server): Promise<GraphQLBridge> {
    const { config, logger } = deps;
    const limits = queryLimits(config);
    const formatError = createErrorFormatter(logger, deps.database.health);
    const apollo = new ApolloServer<Context>({
      gateway: compiledExecution(schema, logger, config.maxCompiledQueryChars),
      formatError,
      includeStacktraceInErrorResponses: false,
      // The fast path parses and validates as Apollo does as configured here: graphql's specified rules plus the query
      // limits' rules and parse options, introspection as configured (off: Apollo adds NoSchemaIntrospectionCustomRule),
      // no maxRecursiveSelections. Changing one changes both.
      ...queryLimitChecks(limits),
      introspection: config.introspection,
      // main.ts owns SIGINT/SIGTERM. Apollo's own handlers (installed unless NODE_ENV=test) raced it: the process never
      // exited, so the search index was never saved either.
      stopOnTerminationSignals: false,
      // None of these but wellFormedInputPlugin and storedValueErrorsPlugin has per-request hooks, which the fast path
      // (src/graphql/fast-path.ts) does not run: it makes both their checks itself. A plugin that needs to see every
      // operation must make the fast path hand requests to Apollo.
      plugins: [
        // The default cache-control plugin wraps every field resolver to collect cache hints, which nothing here sets
        // (responses are never cached): measured ~15-20% of the CPU of a nested read.
        ApolloServerPluginCacheControlDisabled(),
        // Apollo would install usage reporting on its own when APOLLO_KEY and APOLLO_GRAPH_REF are set; it would miss the
        // fast path's requests, so it is off rather than partial.
        ApolloServerPluginUsageReportingDisabled(),
        ApolloServerPluginDrainHttpServer({ httpServer, stopGracePeriodMillis: config.shutdownTimeoutMs }),
        config.playground ? playgroundLandingPage(deps.keys) : ApolloServerPluginLandingPageDisabled(),
        // Mutations only; the fast path hands such a mutation to Apollo for this refusal.
        wellFormedInputPlugin(),
        // The fast path appends these errors itself.
        storedValueErrorsPlugin,
      ],
    });
    await apollo.start();
    const fastPath = new FastPath(
      schema,
      logger,
      limits,
      config.maxCompiledQueryChars,
      formatError,
      config.introspection,
    );
    const rateLimiter = config.rateLimitPerMin > 0 ? new RateLimiter(config.rateLimitPerMin) : null;
    return new GraphQLBridge(apollo, fastPath, deps, rateLimiter);
  }

  handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    graphqlRequests.inc();
    graphqlInFlight.inc();
    const requestId = randomUUID();
    const tracer = activeTracer();
    // Null while tracing runs: a request the sampler left out, none of whose work is traced either.
    const span = tracer ? (tracer.startRequest(requestId) ?? null) : undefined;
    const signals = new GraphQLRequestSignals(span ?? undefined);
    // Both the fast path and Apollo answer within it: ended by the deadline or by the client leaving before the answer.
    const lifetime = new RequestLifetime(this.deps.config.requestTimeoutMs, new HttpClient(res), span);
    const answered = this.answer(req, res, url, lifetime, requestId, signals);
    return answered.finally(() => {
      lifetime.release();
      graphqlInFlight.dec();
      signals.end(res.statusCode);
    });
  }

  private async answer(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    lifetime: RequestLifetime,
    requestId: string,
    signals: GraphQLRequestSignals,
  ): Promise<void> {
    const { deps } = this;
    const found = authenticate(req, deps.keys);
    // Awaited only when the key had to be looked up: most requests resolve at once.
    const caller = found instanceof Promise ? await found : found;
    const method = (req.method ?? 'GET').toUpperCase();
    const search = url.search;
    const wantsPage = method === 'GET' && !search && (req.headers.accept ?? '').includes('text/html');
    if (!caller && !wantsPage) {
      sendUnauthenticated(res);
      return;
    }
    const retryAfter = this.rateLimiter?.admit(caller?.keyId, req.socket.remoteAddress) ?? 0;
    if (retryAfter > 0) {
      sendRateLimited(res, retryAfter);
      return;
    }
    // The playground page runs no operation; it gets the least role.
    const scope = caller ?? { role: 'reader' as const, tenant: DEFAULT_TENANT, keyId: null };
    const tenantDb = deps.tenantDb(scope.tenant);
    const db = tenantDb instanceof Promise ? await tenantDb : tenantDb;
    const context = () => createContext(deps, { caller: scope, db, lifetime, requestId });
    let body: unknown;
    if (method === 'POST') {
      const text = await readBody(req);
      checkJsonWidth(text);
      body = parseJsonBody(text);
      const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
      const operation = operationOf(fields.query, fields.operationName);
      signals.named(operation);
      checkReadBodySize(text, body, operation);
      if (await this.fastPath.answer(req, res, body, context)) return;
    } else {
      signals.named(operationOf(url.searchParams.get('query'), url.searchParams.get('operationName')));
    }
    const headers = new HeaderMap();
    for (const [key, value] of Object.entries(req.headers)) {
      if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
    }
    const httpGraphQLRequest: HTTPGraphQLRequest = { method, headers, search, body };
    const response = await this.apollo.executeHTTPGraphQLRequest({
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
  }
}
