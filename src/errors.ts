import { randomUUID } from 'node:crypto';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { unwrapResolverError } from '@apollo/server/errors';
import { MongoServerError } from 'mongodb';
import { CodedError } from './coded-error';
import { isUnreachableError, isWriteStorageError, type DatabaseHealth } from './db/health';
import type { Logger } from './logger';
import { countGraphQLError } from './observability/metrics';
import { errorRequest } from './observability/tracing';
import { redact } from './redact';

/** Client-facing errors: each has a fixed `extensions.code` that clients can switch on. */
export class NotFoundError extends GraphQLError {
  constructor(message: string, extensions: Record<string, unknown> = {}) {
    super(message, { extensions: { code: 'NOT_FOUND', ...extensions } });
  }
}

export class ValidationError extends GraphQLError {
  /** `field` names the input that was rejected (dot path, e.g. `input.content`). */
  constructor(message: string, field?: string, extensions: Record<string, unknown> = {}) {
    super(message, { extensions: { code: 'BAD_USER_INPUT', ...(field ? { field } : {}), ...extensions } });
  }
}

export class ConflictError extends GraphQLError {
  constructor(message: string, extensions: Record<string, unknown> = {}) {
    super(message, { extensions: { code: 'CONFLICT', ...extensions } });
  }
}

export class UnauthenticatedError extends GraphQLError {
  constructor(message = 'Authentication required: send Authorization: Bearer <api key>.') {
    super(message, { extensions: { code: 'UNAUTHENTICATED' } });
  }
}

export class ForbiddenError extends GraphQLError {
  constructor(message = 'Not allowed.') {
    super(message, { extensions: { code: 'FORBIDDEN' } });
  }
}

/**
 * A dependency (embedding endpoint, vector index) is unavailable; the request may be retried. Search and embeddings
 * throw coded-error.ts's ServiceUnavailableError instead, which clients see as this.
 */
export class UnavailableError extends GraphQLError {
  constructor(message: string, extensions: Record<string, unknown> = {}) {
    super(message, { extensions: { code: 'SERVICE_UNAVAILABLE', ...extensions } });
  }
}

/** Codes produced by GraphQL itself, Apollo, type-graphql validation and the classes above: passed through as they are. */
const CLIENT_CODES = new Set([
  'NOT_FOUND',
  'BAD_USER_INPUT',
  'CONFLICT',
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'SERVICE_UNAVAILABLE',
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'PERSISTED_QUERY_NOT_FOUND',
  'PERSISTED_QUERY_NOT_SUPPORTED',
  'OPERATION_RESOLUTION_FAILURE',
  'BAD_REQUEST',
  'TIMEOUT',
  'REQUEST_CANCELLED',
  // A write stopped part-way by a damaged stored value, saying what it did write (see recordAction).
  'STORED_VALUE_INVALID',
]);

/** True for MongoDB's duplicate key error (E11000), raised by unique indexes. */
export function isDuplicateKeyError(error: unknown): error is MongoServerError {
  return error instanceof MongoServerError && error.code === 11000;
}

/** MongoDB's MaxTimeMSExpired (code 50): a command ran past the maxTimeMS the request's deadline gave it. */
function isMaxTimeExpired(error: unknown): boolean {
  return error instanceof MongoServerError && error.code === 50;
}

/**
 * graphql-js rejects an argument value it cannot coerce at execution time (e.g. a variable holding null for a
 * non-null argument with a default) with a plain GraphQLError that wraps no thrown error, and stops coercing
 * variables after 50 bad values with one that names no variable: both are bad input.
 */
function isArgumentCoercionError(error: unknown): boolean {
  let cause = error;
  while (cause instanceof GraphQLError && cause.originalError) cause = cause.originalError;
  return (
    cause instanceof GraphQLError &&
    /^(Argument "[^"]+" (of |has invalid)|Too many errors processing variables)/.test(cause.message)
  );
}

/**
 * Apollo refuses some requests before running them (a persisted query of an unknown version or whose hash does not
 * match) with an uncoded GraphQLError that asks for HTTP 400: that is a bad request.
 */
function isRefusedRequest(error: unknown): boolean {
  const status =
    error instanceof GraphQLError ? (error.extensions.http as { status?: unknown } | undefined)?.status : undefined;
  return typeof status === 'number' && status >= 400 && status < 500;
}

/** The client's message when `error` says the database cannot serve now (unreachable, or cannot store writes). */
function databaseUnavailable(error: unknown): string | undefined {
  if (isUnreachableError(error)) return 'The database is unreachable; retry later.';
  if (isWriteStorageError(error)) return 'The database could not store the write; retry later.';
  return undefined;
}

/**
 * Apollo `formatError`: database outages become SERVICE_UNAVAILABLE (recorded in `health`, which /ready
 * reports), client errors pass through, those raised below GraphQL ({@link CodedError}: search,
 * embeddings) as the GraphQLError of their code would; anything else becomes INTERNAL_SERVER_ERROR with an
 * `errorId` that is logged with the stack, so a report from a client can be matched to the log line.
 */
export function createErrorFormatter(logger: Logger, health?: Pick<DatabaseHealth, 'recordFailure'>) {
  const format = formatterOf(logger, health);
  // Whatever a branch passes through (a driver's or an upstream's text), no secret reaches the client.
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const answer = format(formatted, error);
    countGraphQLError(String(answer.extensions?.code ?? 'NONE'));
    const text = JSON.stringify(answer);
    const redacted = redact(text);
    return redacted === text ? answer : (JSON.parse(redacted) as GraphQLFormattedError);
  };
}

function formatterOf(logger: Logger, health?: Pick<DatabaseHealth, 'recordFailure'>) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const limit = queryLimitErrorOf(error);
    if (limit) return { message: limit.message, locations: formatted.locations, extensions: { ...limit.extensions } };
    const original = unwrapResolverError(error);
    const unavailable = databaseUnavailable(original);
    if (unavailable) {
      health?.recordFailure(original);
      // The driver's message names hosts and ports: logged, never answered.
      logger.warn('database unavailable', {
        ...errorRequest(error),
        path: formatted.path,
        error: String((original as Error).message),
      });
      return {
        message: unavailable,
        locations: formatted.locations,
        path: formatted.path,
        extensions: { code: 'SERVICE_UNAVAILABLE' },
      };
    }
    if (isMaxTimeExpired(original)) {
      return {
        message: 'A database command of the request ran out of its deadline.',
        locations: formatted.locations,
        path: formatted.path,
        extensions: { code: 'TIMEOUT' },
      };
    }
    if (original instanceof CodedError)
      return { ...formatted, message: original.message, extensions: { ...original.extensions } };
    const code = formatted.extensions?.code;
    if (typeof code === 'string' && CLIENT_CODES.has(code)) {
      const { stacktrace: _stacktrace, ...extensions } = formatted.extensions ?? {};
      return { ...formatted, extensions };
    }
    if (isArgumentCoercionError(error)) {
      return {
        message: formatted.message,
        locations: formatted.locations,
        path: formatted.path,
        extensions: { code: 'BAD_USER_INPUT' },
      };
    }
    if (isRefusedRequest(error)) {
      return { message: formatted.message, locations: formatted.locations, extensions: { code: 'BAD_REQUEST' } };
    }
    const errorId = randomUUID();
    logger.error('unexpected error', {
      ...errorRequest(error),
      errorId,
      path: formatted.path,
      error: original instanceof Error ? original.message : String(original),
      stack: original instanceof Error ? original.stack : undefined,
    });
    return {
      message: 'Unexpected error.',
      locations: formatted.locations,
      path: formatted.path,
      extensions: { code: 'INTERNAL_SERVER_ERROR', errorId },
    };
  };
}

/**
 * An operation refused before it runs because it exceeds one of the query limits (src/graphql/query-limits.ts):
 * `extensions` hold the code, the measured `value` and the configured `limit`.
 */
export class QueryLimitError extends GraphQLError {
  constructor(
    message: string,
    code: 'QUERY_TOO_LARGE' | 'QUERY_TOO_DEEP' | 'QUERY_TOO_COMPLEX' | 'TOO_MANY_ALIASES',
    value: number | undefined,
    limit: number,
  ) {
    super(message, { extensions: { code, ...(value === undefined ? {} : { value }), limit } });
  }
}

/**
 * graphql's parser stops at `maxTokens` with a syntax error worded so (graphql 16 writes "more that"); the limit is the
 * only number it states.
 */
const TOKEN_LIMIT_MESSAGE = /^Syntax Error: Document contains more tha[nt] (\d+) tokens\. Parsing aborted\.$/;

/** The QueryLimitError behind `error`: one a rule raised (Apollo wraps it) or the parser's token limit. */
function queryLimitErrorOf(error: unknown): QueryLimitError | undefined {
  for (let cause = error; cause instanceof Error; cause = (cause as GraphQLError).originalError) {
    if (cause instanceof QueryLimitError) return cause;
    const tokens = TOKEN_LIMIT_MESSAGE.exec(cause.message);
    if (tokens) {
      const limit = Number(tokens[1]);
      return new QueryLimitError(`The query has more than ${limit} tokens.`, 'QUERY_TOO_LARGE', undefined, limit);
    }
    if (!(cause instanceof GraphQLError)) break;
  }
  return undefined;
}
