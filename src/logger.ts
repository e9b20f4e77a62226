import type { LogLevel } from './config';
import { redact } from './redact';

const SEVERITY: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** A JSON-lines logger whose lines never hold a secret (redact.ts); `write` is injectable so tests can capture what would be logged. */
export function createLogger(
  level: LogLevel,
  write: (line: string) => void = (line) => process.stdout.write(line + '\n'),
): Logger {
  const log =
    (at: LogLevel) =>
    (message: string, fields: Record<string, unknown> = {}) => {
      if (SEVERITY[at] < SEVERITY[level]) return;
      // Redacted whole: a secret may sit in any field (an upstream body, a driver's message with a URI).
      write(redact(JSON.stringify({ time: new Date().toISOString(), level: at, message, ...fields })));
    };
  return { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}

/** A logger that drops everything (tests that do not assert on logs). */
export const silentLogger: Logger = createLogger('error', () => undefined);
