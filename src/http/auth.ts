import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Caller } from '../context';
import { sendJson } from './reply';

/** Resolves the caller from `Authorization: Bearer <key>`; null when API_KEYS is set and the key is missing or wrong. */
export function authenticate(req: IncomingMessage, apiKeys: string[]): Caller | null {
  if (apiKeys.length === 0) return { apiKeyIndex: null };
  const match = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '');
  const index = match ? apiKeys.indexOf(match[1].trim()) : -1;
  return index >= 0 ? { apiKeyIndex: index } : null;
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
