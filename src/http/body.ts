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
 * Refuses a body whose JSON is wider than the limits allow, before it is parsed: building an object of a million keys
 * held the server 1.9 s, so the text is scanned instead (strings skipped natively, the rest one character at a time),
 * stopping at the first limit passed: an object of more than {@link MAX_VARIABLE_KEYS} keys or more than
 * {@link MAX_VARIABLE_VALUES} values (object keys and list items) in all, with HttpError 413, code
 * VARIABLES_TOO_LARGE. Text that is not JSON is left to JSON.parse to report.
 */
export function checkJsonWidth(text: string): void {
  // Each key costs at least 5 characters (`"":0,`), each list item 2 (`0,`): a shorter text is within both limits.
  if (text.length <= 4 * MAX_VARIABLE_KEYS) return;
  // Per open object or list: its commas so far, whether it holds anything, whether it is an object.
  const commas: number[] = [];
  const empty: boolean[] = [];
  const object: boolean[] = [];
  let values = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
    const top = commas.length - 1;
    if (c === 0x7d || c === 0x5d) {
      // } or ]
      if (top < 0) return;
      if (!empty[top]) values++;
      commas.pop();
      empty.pop();
      object.pop();
    } else if (c === 0x2c) {
      // ,
      if (top < 0) return;
      values++;
      if (++commas[top] >= MAX_VARIABLE_KEYS && object[top]) {
        throw tooWide(
          `An object of the variables holds more than ${MAX_VARIABLE_KEYS} keys; at most ${MAX_VARIABLE_KEYS} are allowed.`,
          MAX_VARIABLE_KEYS,
        );
      }
    } else {
      if (top >= 0) empty[top] = false;
      if (c === 0x7b || c === 0x5b) {
        // { or [
        commas.push(0);
        empty.push(true);
        object.push(c === 0x7b);
      } else if (c === 0x22) {
        // a string: on to its closing quote, one not escaped by an odd number of backslashes
        let end = text.indexOf('"', i + 1);
        for (;;) {
          if (end < 0) return;
          let slashes = 0;
          while (text.charCodeAt(end - 1 - slashes) === 0x5c) slashes++;
          if (slashes % 2 === 0) break;
          end = text.indexOf('"', end + 1);
        }
        i = end;
      }
    }
    if (values > MAX_VARIABLE_VALUES) {
      throw tooWide(
        `The variables hold more than ${MAX_VARIABLE_VALUES} values (keys and list items); at most ${MAX_VARIABLE_VALUES} are allowed.`,
        MAX_VARIABLE_VALUES,
      );
    }
  }
}

function tooWide(message: string, limit: number): HttpError {
  return new HttpError(413, message, 'VARIABLES_TOO_LARGE', { limit });
}

/**
 * Refuses a request running no mutation whose body passes {@link MAX_READ_BODY_BYTES} (HttpError 413, code
 * REQUEST_TOO_LARGE): `text` is the body as read, `body` as parsed, `operation` what its document runs (operationOf).
 */
export function checkReadBodySize(text: string, body: unknown, operation: OperationName): void {
  // A UTF-16 unit is at most 3 bytes of UTF-8: most bodies need no count.
  if (text.length * 3 <= MAX_READ_BODY_BYTES || Buffer.byteLength(text) <= MAX_READ_BODY_BYTES) return;
  const query = typeof body === 'object' && body !== null ? (body as { query?: unknown }).query : undefined;
  const mutation =
    operation.type === 'mutation' ||
    (operation.type === 'unknown' && typeof query === 'string' && /\bmutation\b/.test(query));
  if (mutation) return;
  throw new HttpError(
    413,
    `A request running no mutation may have a body of at most ${MAX_READ_BODY_BYTES} bytes (a search's query included).`,
    'REQUEST_TOO_LARGE',
    { limit: MAX_READ_BODY_BYTES },
  );
}
