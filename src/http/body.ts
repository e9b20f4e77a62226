import type { IncomingMessage } from 'node:http';
import { HttpError } from './reply';

/** Largest request body accepted (a batch of messages or experiences fits easily). */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;

/** The request body as UTF-8 text; a body over {@link MAX_BODY_BYTES} fails with HttpError 413 (the rest is read and dropped). */
export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
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
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
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
