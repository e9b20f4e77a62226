import type { IncomingMessage, ServerResponse } from 'node:http';
import { ANONYMOUS_CALLER, type Caller } from '../auth/caller';
import type { KeyStore } from '../auth/keys';
import { sendJson } from './reply';

/**
 * Resolves the caller from `Authorization: Bearer <key>`: anonymous (admin of the default tenant) while no key is
 * configured at all, else the key's role and tenant; null when a key is required and missing, unknown or revoked.
 * Synchronous when the answer is known (API_KEYS, a cached key): most requests never wait for it.
 */
export function authenticate(req: IncomingMessage, keys: KeyStore): Caller | null | Promise<Caller | null> {
  return callerOf(req.headers.authorization, keys);
}

/** The caller an `Authorization` value (`Bearer <key>`) names, as `authenticate` resolves it; also for WebSockets. */
export function callerOf(authorization: string | undefined, keys: KeyStore): Caller | null | Promise<Caller | null> {
  const required = keys.requiredNow();
  if (required === undefined) {
    return keys.required().then((known) => (known ? keyCaller(authorization, keys) : ANONYMOUS_CALLER));
  }
  return required ? keyCaller(authorization, keys) : ANONYMOUS_CALLER;
}

function keyCaller(authorization: string | undefined, keys: KeyStore): Caller | null | Promise<Caller | null> {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  return match ? keys.find(match[1]) : null;
}

/** The answer to a request without a valid key: 401 with a GraphQL-shaped UNAUTHENTICATED error. */
export function sendUnauthenticated(res: ServerResponse): void {
  sendJson(res, 401, {
    errors: [
      {
        message: 'Authentication required: send Authorization: Bearer <api key>.',
        extensions: { code: 'UNAUTHENTICATED' },
      },
    ],
  });
}

/** The answer to a caller over its rate limit: 429 with Retry-After and a GraphQL-shaped RATE_LIMITED error. */
export function sendRateLimited(res: ServerResponse, retryAfterSeconds: number): void {
  res.setHeader('retry-after', String(retryAfterSeconds));
  sendJson(res, 429, {
    errors: [
      {
        message: `Rate limit exceeded (RATE_LIMIT_PER_MIN); retry in ${retryAfterSeconds} s.`,
        extensions: { code: 'RATE_LIMITED', retryAfterSeconds },
      },
    ],
  });
}
