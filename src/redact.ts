/**
 * Secrets (API keys, the embedding endpoint, database credentials) kept out of replies and logs: every log line
 * (logger.ts), every client error (errors.ts formatError) and configuration errors pass through {@link redact}.
 */

const REDACTED = '[redacted]';
/** Shorter values are too likely to occur in ordinary text to be replaced everywhere. */
const MIN_SECRET_LENGTH = 6;
const secrets = new Set<string>();
let longestFirst: string[] = [];

/**
 * URI credentials (`scheme://user:password@`) wherever they appear, registered or not (e.g. in a driver's message).
 * The scheme is at most 32 characters: unbounded, the pattern scanned from every word boundary of a text such as
 * `a.a.a.…` to its end, quadratic in its length (20,000 characters: 0.6 s), and error messages can echo user input.
 */
const URI_CREDENTIALS = /\b([a-z][a-z0-9+.-]{0,31}:\/\/)([^\s:@/]*):([^\s@/]+)@/gi;
const BEARER = /\b(Bearer\s+)[^\s"',;]+/gi;

/** Adds values that must never be shown (configuration secrets); empty and very short values are ignored. */
export function registerSecrets(values: Iterable<string | undefined>): void {
  for (const value of values) {
    if (value && value.length >= MIN_SECRET_LENGTH) secrets.add(value);
  }
  // A secret that contains another (a URL and its key) is replaced whole first.
  longestFirst = [...secrets].sort((a, b) => b.length - a.length);
}

/** `text` with every registered secret, URI password and bearer token replaced by `[redacted]`. */
export function redact(text: string): string {
  let result = text;
  for (const secret of longestFirst) if (result.includes(secret)) result = result.split(secret).join(REDACTED);
  return result.replace(URI_CREDENTIALS, `$1$2:${REDACTED}@`).replace(BEARER, `$1${REDACTED}`);
}

/** The password of a connection string, if it has one (registered with the whole URI). */
export function uriPassword(uri: string | undefined): string | undefined {
  if (!uri) return undefined;
  const match = /^[a-z][a-z0-9+.-]*:\/\/[^:@/]*:([^@/]+)@/i.exec(uri);
  if (!match) return undefined;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return match[1];
  }
}
