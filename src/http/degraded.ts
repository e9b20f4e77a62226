import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  execute,
  getOperationAST,
  GraphQLError,
  Kind,
  parse,
  validate,
  type DocumentNode,
  type GraphQLSchema,
} from 'graphql';
import { DEFAULT_TENANT, type Caller } from '../auth/caller';
import { DamagedStorage } from '../db/health';
import type { Logger } from '../logger';
import type { ServerInfoContext } from '../modules/server-info/server-info.resolver';
import { parseJsonBody, readBody } from './body';
import { HttpError, sendJson } from './reply';
import { healthRoute, matchRoute, readyRoute, type Route } from './routes';
import { createHttpServer } from './server';

/** The running degraded server (see {@link createDegradedServer}). */
export interface DegradedServer {
  /** Starts listening; resolves with the GraphQL URL. */
  listen(port: number, host: string): Promise<string>;
  stop(): Promise<void>;
}

/** What the degraded server reports of itself in `serverInfo`. */
export type DegradedInfo = Omit<ServerInfoContext['deps'], 'database'> & { database: { kind: 'EMBEDDED' } };

/** Root fields answered without a database. */
const ANSWERED_FIELDS = new Set(['serverInfo', '__typename']);

/**
 * What the server runs instead of the API when the embedded engine refused a damaged data directory: it serves no
 * data and touches no file, but says why where operators and supervisors look. GET /health 200; GET /ready 503 with
 * `reason`; a query of `serverInfo` only is answered (its `database.storage` is DAMAGED with `reason`); every other
 * operation is refused with SERVICE_UNAVAILABLE and the reason. No API key is asked for: nothing but the version and
 * the reason (file and offset, no path) is served.
 */
export function createDegradedServer(
  info: DegradedInfo,
  reason: string,
  schema: GraphQLSchema,
  logger: Logger,
): DegradedServer {
  const storage = new DamagedStorage(reason);
  // The auth checker runs on serverInfo here too; nothing else is answered, so a reader stands in for any caller.
  const context: ServerInfoContext & { caller: Caller } = {
    caller: { role: 'reader', tenant: DEFAULT_TENANT, keyId: null },
    deps: { ...info, database: { kind: info.database.kind, version: '', health: storage } },
  };
  const graphqlRoute: Route = {
    path: '/graphql',
    async handle(req, res, url) {
      const request = await graphqlRequest(req, url);
      let document: DocumentNode;
      try {
        document = parse(request.query);
      } catch (error) {
        return sendErrors(res, 400, (error as GraphQLError).message, 'GRAPHQL_PARSE_FAILED');
      }
      const invalid = validate(schema, document);
      if (invalid.length > 0) return sendErrors(res, 400, invalid[0].message, 'GRAPHQL_VALIDATION_FAILED');
      const operation = getOperationAST(document, request.operationName);
      if (!operation) return sendErrors(res, 400, 'No operation to run: name one with operationName.', 'BAD_REQUEST');
      const answered =
        operation.operation === 'query' &&
        operation.selectionSet.selections.every(
          (selection) => selection.kind === Kind.FIELD && ANSWERED_FIELDS.has(selection.name.value),
        );
      if (!answered) {
        return sendErrors(res, 503, `The server serves no data: ${reason}.`, 'SERVICE_UNAVAILABLE');
      }
      const result = await execute({
        schema,
        document,
        operationName: request.operationName,
        variableValues: request.variables,
        contextValue: context,
      });
      sendJson(res, 200, result);
    },
  };
  const routes = [graphqlRoute, healthRoute(info), readyRoute({ database: { health: storage, kind: 'EMBEDDED' } })];

  const httpServer = createHttpServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const route = matchRoute(routes, req.method, url.pathname);
    if (!route) return sendJson(res, 404, { error: `No route for ${req.method} ${url.pathname}.` });
    Promise.resolve(route.handle(req, res, url)).catch((error: unknown) => {
      if (res.headersSent) return res.destroy();
      if (error instanceof HttpError) return sendErrors(res, error.status, error.message, 'BAD_REQUEST');
      logger.error('request failed', { error: error instanceof Error ? error.stack : String(error) });
      sendErrors(res, 500, 'Unexpected error.', 'INTERNAL_SERVER_ERROR');
    });
  });

  return {
    listen(port, host) {
      return new Promise((resolve, reject) => {
        httpServer.once('error', reject);
        httpServer.listen(port, host, () => {
          httpServer.off('error', reject);
          const { port: bound } = httpServer.address() as AddressInfo;
          const shownHost = host === '0.0.0.0' || host === '::' ? 'localhost' : host;
          resolve(`http://${shownHost}:${bound}/graphql`);
        });
      });
    },
    async stop() {
      httpServer.closeIdleConnections();
      if (httpServer.listening) await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}

interface GraphQLRequest {
  query: string;
  operationName?: string;
  variables?: Record<string, unknown>;
}

/** The operation of a GET (query string) or POST (JSON body) request. */
async function graphqlRequest(req: IncomingMessage, url: URL): Promise<GraphQLRequest> {
  const raw: Record<string, unknown> =
    req.method === 'GET'
      ? {
          query: url.searchParams.get('query') ?? undefined,
          operationName: url.searchParams.get('operationName') ?? undefined,
          variables: url.searchParams.has('variables') ? parseJsonBody(url.searchParams.get('variables')!) : undefined,
        }
      : ((parseJsonBody(await readBody(req)) ?? {}) as Record<string, unknown>);
  if (typeof raw !== 'object' || typeof raw.query !== 'string') {
    throw new HttpError(400, 'A GraphQL request needs a "query" string.');
  }
  return {
    query: raw.query,
    operationName: typeof raw.operationName === 'string' ? raw.operationName : undefined,
    variables: raw.variables && typeof raw.variables === 'object' ? (raw.variables as Record<string, unknown>) : {},
  };
}

function sendErrors(res: ServerResponse, status: number, message: string, code: string): void {
  sendJson(res, status, { errors: [new GraphQLError(message, { extensions: { code } }).toJSON()] });
}
