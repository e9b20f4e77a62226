/**
 * Errors with a client-facing code raised below the GraphQL layer (search, embeddings), which must not depend on
 * GraphQL. `extensions` has the shape of a GraphQLError's: `code` first, then details. `formatError` (errors.ts)
 * answers one with the same message, code and details as the GraphQLError subclass of that code would.
 */
export class CodedError extends Error {
  readonly extensions: { readonly code: CodedErrorCode } & Readonly<Record<string, unknown>>;

  constructor(code: CodedErrorCode, message: string, extensions: Record<string, unknown> = {}) {
    super(message);
    this.name = new.target.name;
    this.extensions = { code, ...extensions };
  }

  get code(): CodedErrorCode {
    return this.extensions.code;
  }
}

/** The codes a {@link CodedError} may carry: each is one of the client codes of errors.ts. */
export type CodedErrorCode = 'BAD_USER_INPUT' | 'SERVICE_UNAVAILABLE' | 'TIMEOUT' | 'REQUEST_CANCELLED';

/** Input that cannot be served as given (code BAD_USER_INPUT, as errors.ts's ValidationError). */
export class BadInputError extends CodedError {
  constructor(message: string, extensions: Record<string, unknown> = {}) {
    super('BAD_USER_INPUT', message, extensions);
  }
}

/** A dependency (embedding endpoint, vector index) is unavailable; the request may be retried (code SERVICE_UNAVAILABLE, as errors.ts's UnavailableError). */
export class ServiceUnavailableError extends CodedError {
  constructor(message: string, extensions: Record<string, unknown> = {}) {
    super('SERVICE_UNAVAILABLE', message, extensions);
  }
}

/**
 * The request's work stopped: its deadline (REQUEST_TIMEOUT_MS) passed (code TIMEOUT) or its client went away (code
 * REQUEST_CANCELLED). The reason of the request's AbortSignal, so whatever checks the signal throws this.
 */
export class RequestEndedError extends CodedError {
  constructor(code: 'TIMEOUT' | 'REQUEST_CANCELLED', timeoutMs?: number) {
    super(
      code,
      code === 'TIMEOUT'
        ? `The request did not finish within its deadline of ${timeoutMs} ms.`
        : 'The client closed the connection before the answer.',
      code === 'TIMEOUT' ? { limit: timeoutMs } : {},
    );
  }
}
