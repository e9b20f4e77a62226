import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';

/** Where a Hindsight server answers and how to authenticate to it. */
export interface HindsightConnection {
  /** The GraphQL endpoint, e.g. `http://127.0.0.1:4000/graphql`. */
  url: string;
  /** An API key (`Authorization: Bearer <key>`); omit only for a server without keys (loopback, no API_KEYS). */
  apiKey?: string;
  /** The fetch to use; default: the global one. */
  fetch?: typeof fetch;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
}

/** One error of a GraphQL answer, as Hindsight formats it. */
export interface HindsightErrorDetail {
  message: string;
  path?: readonly (string | number)[];
  extensions?: { code?: string; field?: string; [key: string]: unknown };
}

/**
 * A request Hindsight refused or could not answer: `code` is the GraphQL error's `extensions.code` (`BAD_USER_INPUT`,
 * `NOT_FOUND`, `FORBIDDEN`, `UNAUTHENTICATED`, …; `HTTP_<status>` when the answer was not GraphQL), `field` the input
 * it names, `errors` every error of the answer.
 */
export class HindsightError extends Error {
  override readonly name = 'HindsightError';
  readonly code: string;
  readonly field: string | undefined;
  readonly status: number;
  readonly errors: readonly HindsightErrorDetail[];

  constructor(status: number, errors: readonly HindsightErrorDetail[], operation: string) {
    const first = errors[0];
    const code = first?.extensions?.code ?? `HTTP_${status}`;
    super(`Hindsight ${operation}: ${code}: ${first?.message ?? `HTTP ${status}`}`);
    this.code = code;
    this.field = typeof first?.extensions?.field === 'string' ? first.extensions.field : undefined;
    this.status = status;
    this.errors = errors;
  }
}

type Document<TResult, TVariables> = DocumentTypeDecoration<TResult, TVariables> & { toString(): string };

/** The operation's name, for error messages. */
function operationName(query: string): string {
  return /\b(?:query|mutation)\s+(\w+)/.exec(query)?.[1] ?? 'operation';
}

/**
 * Sends typed operations (src/generated/graphql.ts) to Hindsight over fetch. Every error in an answer, and any answer
 * without data, is thrown as a {@link HindsightError}: a caller never mistakes a refusal for an empty result.
 */
export class HindsightClient {
  private readonly fetch: typeof fetch;

  constructor(private readonly connection: HindsightConnection) {
    if (!connection.url) throw new TypeError('HindsightClient: url is required.');
    this.fetch = connection.fetch ?? globalThis.fetch;
  }

  async request<TResult, TVariables>(document: Document<TResult, TVariables>, variables: TVariables): Promise<TResult> {
    const query = document.toString();
    const name = operationName(query);
    const response = await this.fetch(this.connection.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json, application/json',
        ...(this.connection.apiKey ? { authorization: `Bearer ${this.connection.apiKey}` } : {}),
        ...this.connection.headers,
      },
      body: JSON.stringify({ query, variables, operationName: name }),
    });
    const text = await response.text();
    let body: { data?: TResult | null; errors?: HindsightErrorDetail[] } | undefined;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (body?.errors?.length) throw new HindsightError(response.status, body.errors, name);
    if (!response.ok || !body || body.data == null) {
      throw new HindsightError(response.status, [{ message: text.slice(0, 500) || response.statusText }], name);
    }
    return body.data;
  }
}
