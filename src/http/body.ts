import type { IncomingMessage } from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import type { OperationName } from '../observability/operation';
import { HttpError } from './reply';

/** Largest request body accepted (a batch of messages or experiences fits easily). */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;
/**
 * Largest body of a request that runs no mutation (a read, a search): its texts are a search's query and ids, and a
 * search reads every character of its query, so a 31 MB query once held the server for 10 s.
 */
export const MAX_READ_BODY_BYTES = 1024 * 1024;
/** Keys one object of a request's variables may hold: an input type has a few dozen fields, JSON MAX_METADATA_KEYS. */
export const MAX_VARIABLE_KEYS = 10_000;
/** Values a request's variables may hold in all (object keys and list items, at every depth). */
export const MAX_VARIABLE_VALUES = 200_000;

/**
 * The request body as UTF-8 text; a body over {@link MAX_BODY_BYTES} fails with HttpError 413 (the rest is read and
 * dropped). Each chunk is decoded as it arrives: decoding 12 MB of multi-byte text at once held the event loop 150–580
 * ms, a chunk of 64 KB takes about a millisecond.
 */
export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const decoder = new StringDecoder('utf8');
    const chunks: string[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        // The rest is read and dropped rather than the socket destroyed: a client still sending would otherwise see a
        // reset connection instead of the 413.
        chunks.length = 0;
        reject(new HttpError(413, `Request body larger than ${MAX_BODY_BYTES} bytes.`));
        return;
      }
      chunks.push(decoder.write(chunk));
    });
    req.on('end', () => {
      chunks.push(decoder.end());
      resolve(chunks.join(''));
    });
    req.on('error', reject);
  });
}

/** A request body parsed as JSON (an empty body is `{}`); one that is not JSON fails with HttpError 400. */
export function parseJsonBody(text: string): unknown {
  try {
    return text ? JSON.parse(text) : {};
  } catch {
    throw new HttpError(400, 'Request body is not valid JSON.');
  }
}

/**
 * Refuses, before any GraphQL work, a request too large for what it runs: over {@link MAX_READ_BODY_BYTES} without a
 * mutation (HttpError 413, code REQUEST_TOO_LARGE), or variables wider than {@link MAX_VARIABLE_KEYS} keys in one object
 * or holding more than {@link MAX_VARIABLE_VALUES} values (HttpError 413, code VARIABLES_TOO_LARGE). `text` is the body
 * as read, `body` as parsed, `operation` what its document runs (operationOf). The walk stops at the first limit passed.
 */
export function checkRequestSize(text: string, body: unknown, operation: OperationName): void {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return;
  const { query, variables } = body as { query?: unknown; variables?: unknown };
  // A UTF-16 unit is at most 3 bytes of UTF-8: most bodies need no count.
  if (text.length * 3 > MAX_READ_BODY_BYTES && Buffer.byteLength(text) > MAX_READ_BODY_BYTES) {
    const mutation =
      operation.type === 'mutation' ||
      (operation.type === 'unknown' && typeof query === 'string' && /\bmutation\b/.test(query));
    if (!mutation) {
      throw new HttpError(
        413,
        `A request running no mutation may have a body of at most ${MAX_READ_BODY_BYTES} bytes (a search's query included).`,
        'REQUEST_TOO_LARGE',
        { limit: MAX_READ_BODY_BYTES },
      );
    }
  }
  if (typeof variables === 'object' && variables !== null) checkVariables(variables);
}

function checkVariables(variables: object): void {
  const pending: unknown[] = [variables];
  let values = 0;
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value !== 'object' || value === null) continue;
    let size: number;
    if (Array.isArray(value)) {
      size = value.length;
      for (const item of value) if (typeof item === 'object' && item !== null) pending.push(item);
    } else {
      const keys = Object.keys(value);
      size = keys.length;
      if (size > MAX_VARIABLE_KEYS) {
        throw new HttpError(
          413,
          `An object of the variables holds ${size} keys; at most ${MAX_VARIABLE_KEYS} are allowed.`,
          'VARIABLES_TOO_LARGE',
          { limit: MAX_VARIABLE_KEYS },
        );
      }
      for (const key of keys) {
        const item = (value as Record<string, unknown>)[key];
        if (typeof item === 'object' && item !== null) pending.push(item);
      }
    }
    values += size;
    if (values > MAX_VARIABLE_VALUES) {
      throw new HttpError(
        413,
        `The variables hold more than ${MAX_VARIABLE_VALUES} values (keys and list items); at most ${MAX_VARIABLE_VALUES} are allowed.`,
        'VARIABLES_TOO_LARGE',
        { limit: MAX_VARIABLE_VALUES },
      );
    }
  }
}
