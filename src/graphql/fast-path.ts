import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  getOperationAST,
  GraphQLError,
  OperationTypeNode,
  NoSchemaIntrospectionCustomRule,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type GraphQLFormattedError,
  type GraphQLSchema,
  type ValidationRule,
} from 'graphql';
import type { CompiledQuery } from 'graphql-jit';
import type { Context } from '../context';
import type { Logger } from '../logger';
import { graphqlFastPath } from '../observability/metrics';
import { noteErrorRequest } from '../observability/tracing';
import { asGraphQLJsError, compileOperation } from './compiled-execution';
import { queryLimitChecks, type QueryLimits } from './query-limits';
import { illFormedVariable } from './well-formed-input';

/**
 * The response content-type Apollo 5 negotiates (`chooseContentTypeForSingleResultResponse`) for each Accept value the
 * fast path takes, keyed as Node hands the header over (repeated headers joined with ", "). Any other value, including
 * ones Apollo would answer alike, goes to Apollo: the fast path never negotiates.
 */
export const RESPONSE_CONTENT_TYPES: ReadonlyMap<string | undefined, string> = new Map([
  [undefined, 'application/json; charset=utf-8'],
  ['', 'application/json; charset=utf-8'],
  ['*/*', 'application/json; charset=utf-8'],
  ['application/json', 'application/json; charset=utf-8'],
  ['application/json, text/plain, */*', 'application/json; charset=utf-8'],
  ['application/graphql-response+json', 'application/graphql-response+json; charset=utf-8'],
  ['application/graphql-response+json, application/json', 'application/graphql-response+json; charset=utf-8'],
  ['application/graphql-response+json, application/json;q=0.9', 'application/graphql-response+json; charset=utf-8'],
  ['application/graphql-response+json,application/json;q=0.9', 'application/graphql-response+json; charset=utf-8'],
  // urql's (@urql/core) for queries and mutations.
  [
    'application/graphql-response+json, application/graphql+json, application/json, text/event-stream, multipart/mixed',
    'application/graphql-response+json; charset=utf-8',
  ],
]);

/**
 * Request content-types the fast path takes. Their essence is application/json, which Apollo's CSRF prevention never
 * blocks (it blocks only the types a browser may send without a preflight: text/plain, multipart/form-data and
 * application/x-www-form-urlencoded).
 */
const REQUEST_CONTENT_TYPES = new Set([
  'application/json',
  'application/json; charset=utf-8',
  'application/json;charset=utf-8',
]);

/** Longer queries always go to Apollo (they are neither parsed nor cached here). */
const MAX_QUERY_CHARS = 100_000;
/**
 * Bounds of the cache of query strings, least recently used dropped first. An entry of the benchmark's session query
 * (its document and compiled code) holds about 65 KB, and parsing, validating and compiling it takes about 3 ms.
 */
const MAX_CACHED_QUERIES = 250;
const MAX_CACHED_CHARS = 1_000_000;

/**
 * A document starting with `mutation` or `subscription`: a write written with its values in the text is a new string
 * each time, so such a text is parsed here only from its second request on (clients send values as variables, and
 * the same text each time).
 */
const WRITE_OPERATION = /^\s*(?:mutation|subscription)\b/;
/** Write texts seen once, remembered to be cached when they come again. */
const MAX_SEEN_WRITES = 1000;
const MAX_SEEN_WRITE_CHARS = 1_000_000;

/**
 * Request extensions that change nothing Apollo does here: Apollo Client 4 sends its name and version as
 * `clientLibrary` in every request. A body with any other extension (a persisted query, say) goes to Apollo.
 */
const INERT_EXTENSIONS = new Set(['clientLibrary']);

/** A POST body in the shape the fast path serves: no extensions but inert ones. */
interface ReadRequest {
  query: string;
  operationName: string | undefined;
  variables: Record<string, unknown> | undefined;
}

/** What the cache holds for one query string. */
interface CachedQuery {
  /** Null when the query does not parse or validate: Apollo answers it with its errors. */
  document: DocumentNode | null;
  /**
   * Per operation name (undefined: none given): the compiled operation, or null when it is a subscription or does not
   * compile. Names that select no operation are not stored, so this stays within the document's operations.
   */
  operations: Map<string | undefined, CompiledOperation | null>;
}

interface CompiledOperation {
  compiled: CompiledQuery;
  /** A mutation must never run twice: once run, the fast path answers whatever happens. */
  mutation: boolean;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The body as Apollo would read it, or null for anything else (Apollo then answers, with its errors if any). */
function readRequest(body: unknown): ReadRequest | null {
  if (!isRecord(body)) return null;
  const { query, operationName, variables, extensions } = body;
  if (extensions !== undefined && extensions !== null) {
    if (!isRecord(extensions)) return null;
    for (const key in extensions) if (!INERT_EXTENSIONS.has(key)) return null;
  }
  if (typeof query !== 'string' || query === '' || query.length > MAX_QUERY_CHARS) return null;
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') return null;
  if (variables !== undefined && variables !== null && !isRecord(variables)) return null;
  return { query, operationName: operationName ?? undefined, variables: variables ?? undefined };
}

/** A Map bounded by its number of entries and the total length of its keys, dropping the least recently used. */
class LruCache<V> {
  private readonly entries = new Map<string, V>();
  private chars = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly maxChars: number,
  ) {}

  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: string, value: V): void {
    if (!this.entries.delete(key)) this.chars += key.length;
    this.entries.set(key, value);
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries && this.chars <= this.maxChars) break;
      this.entries.delete(oldest);
      this.chars -= oldest.length;
    }
  }
}

/**
 * Answers repeated queries and mutations without Apollo's request pipeline, with exactly the response Apollo would
 * send.
 *
 * Apollo's fixed cost per request (a sha256 of the query, content negotiation, header maps, the plugin hooks' promise
 * chain) was about a tenth of a small read's CPU. Here a query string is parsed and validated once (with the schema,
 * rules and parse options Apollo uses: graphql's specified rules and the query limits' checks), and its operations are
 * compiled once by graphql-jit. A request is then a cache lookup and the compiled function; its resolver errors are
 * formatted with Apollo's formatError, so the operation runs once whatever its result. Mutations get the one check
 * Apollo's plugins add (wellFormedInputPlugin's, before anything runs).
 *
 * Whatever could answer differently goes to Apollo untouched, before anything runs: other content-types or Accept
 * values, extensions but Apollo Client's `clientLibrary` (persisted queries, say), documents that do not parse,
 * validate or pass the limits, subscriptions, a write text's first request, operations graphql-jit cannot (or may not:
 * too long) compile, mutations with an ill-formed variable, and variables that do not coerce.
 */
export class FastPath {
  private readonly queries = new LruCache<CachedQuery>(MAX_CACHED_QUERIES, MAX_CACHED_CHARS);
  private readonly seenWrites = new LruCache<true>(MAX_SEEN_WRITES, MAX_SEEN_WRITE_CHARS);

  private readonly checks: ReturnType<typeof queryLimitChecks>;
  private readonly rules: readonly ValidationRule[];

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly logger: Logger,
    limits: QueryLimits,
    private readonly maxCompiledChars: number,
    private readonly formatError: (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError,
    introspection: boolean,
  ) {
    this.checks = queryLimitChecks(limits);
    // Apollo's rules: with introspection off it adds NoSchemaIntrospectionCustomRule.
    this.rules = [
      ...specifiedRules,
      ...this.checks.validationRules,
      ...(introspection ? [] : [NoSchemaIntrospectionCustomRule]),
    ];
  }

  /**
   * Answers the POST `req`, whose body parsed as JSON to `body`, when it is a cached operation. Resolves false, having
   * run and written nothing, when Apollo must answer it.
   */
  async answer(
    req: IncomingMessage,
    res: ServerResponse,
    body: unknown,
    createContext: () => Context,
  ): Promise<boolean> {
    const contentType = RESPONSE_CONTENT_TYPES.get(req.headers.accept);
    if (contentType === undefined || !REQUEST_CONTENT_TYPES.has(req.headers['content-type'] ?? '')) return false;
    const request = readRequest(body);
    if (!request) return false;
    const operation = this.compiledFor(request.query, request.operationName);
    if (!operation) return false;
    const { compiled, mutation } = operation;
    // Apollo refuses it before anything runs (wellFormedInputPlugin), with its error.
    if (mutation && request.variables && illFormedVariable(request.variables) !== undefined) return false;
    let payload: string;
    try {
      const context = createContext();
      const result = await compiled.query(undefined, context, request.variables);
      // Only variables that do not coerce leave `data` undefined (nothing has run): Apollo reports them, with status 400.
      // A mutation that has run is answered here whatever its result: sent to Apollo it would run again.
      if (result.data === undefined || (result.extensions !== undefined && !mutation)) return false;
      // Apollo's body: its stringifyResult (JSON.stringify and a newline) of { errors, data, extensions }. Resolver
      // errors are answered here, formatted as Apollo formats them: handing them to Apollo ran the operation twice.
      // Substituted stored values follow them, as graphql-bridge.ts's plugin appends them on Apollo's path.
      const resolverErrors =
        result.errors?.map((error) => {
          const graphQLError = asGraphQLJsError(error);
          noteErrorRequest(graphQLError, context.logFields);
          return this.formatted(graphQLError);
        }) ?? [];
      const errors = [...resolverErrors, ...context.storedValues.errors];
      payload =
        JSON.stringify({
          ...(errors.length ? { errors } : {}),
          data: result.data,
          ...(result.extensions !== undefined ? { extensions: result.extensions } : {}),
        }) + '\n';
    } catch (error) {
      // graphql-jit reports resolvers' errors in the result: a throw is the fast path's own failure, before or after
      // the operation ran. A query goes to Apollo; a mutation may have written, so the failure is the answer.
      if (mutation) throw error;
      return false;
    }
    // As graphql-bridge.ts (src/http) writes Apollo's response, so that the headers Node adds come out the same.
    res.setHeader('content-type', contentType);
    res.statusCode = 200;
    res.end(payload);
    graphqlFastPath.inc();
    return true;
  }

  /**
   * An execution error as Apollo's normalizeAndFormatErrors formats it (includeStacktraceInErrorResponses off): a
   * missing code becomes INTERNAL_SERVER_ERROR, then formatError. Resolvers set no `extensions.http`.
   */
  private formatted(error: GraphQLError): GraphQLFormattedError {
    const extensions = { ...error.extensions, code: error.extensions.code ?? 'INTERNAL_SERVER_ERROR' };
    try {
      return this.formatError({ ...error.toJSON(), extensions }, error);
    } catch {
      return { message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR' } };
    }
  }

  /** The compiled operation for this query and operation name; null when Apollo must answer it. */
  private compiledFor(query: string, operationName: string | undefined): CompiledOperation | null {
    let cached = this.queries.get(query);
    if (!cached) {
      if (WRITE_OPERATION.test(query) && this.seenWrites.get(query) === undefined) {
        this.seenWrites.set(query, true);
        return null;
      }
      cached = { document: this.validated(query), operations: new Map() };
      this.queries.set(query, cached);
    }
    const { document, operations } = cached;
    if (!document) return null;
    let compiled = operations.get(operationName);
    if (compiled === undefined) {
      const operation = getOperationAST(document, operationName);
      if (!operation) return null;
      const query =
        operation.operation === OperationTypeNode.SUBSCRIPTION
          ? null
          : compileOperation(this.schema, document, operationName, this.logger, this.maxCompiledChars);
      compiled = query && { compiled: query, mutation: operation.operation === OperationTypeNode.MUTATION };
      operations.set(operationName, compiled);
    }
    return compiled;
  }

  private validated(query: string): DocumentNode | null {
    let document: DocumentNode;
    try {
      document = parse(query, this.checks.parseOptions);
    } catch {
      return null;
    }
    return validate(this.schema, document, this.rules).length === 0 ? document : null;
  }
}
