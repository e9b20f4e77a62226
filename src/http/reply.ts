import type { ServerResponse } from 'node:http';

/**
 * A request the server refuses before GraphQL sees it: answered with `status` and `code` (BAD_REQUEST unless a limit
 * names its own, with the limit in `extensions`).
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code = 'BAD_REQUEST',
    readonly extensions: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** Writes `body` as a complete JSON response. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(payload),
  });
  res.end(payload);
}
