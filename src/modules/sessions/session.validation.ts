import { Double, Int32, calculateObjectSize } from 'bson';
import { ValidationError } from '../../errors';
import { decodeCursor, pageSize } from '../shared/connection';
import { MAX_DURATION_MS, checkJsonInput, checkKeyCount } from '../shared/json-input';
import type { EventLoopMetricsInput, MessagesArgs } from './session.input';
import type { EventLoopMetricsDocument } from './session.document';
import type { MessageWindow } from './session.repository';

/** The rules of seed 001 beyond the GraphQL types; each failure is BAD_USER_INPUT naming the input field. */

/** Limits of seed 001 ("Field Length Constraints" and "Data Validation"). */
export const LIMITS = {
  sessionIdLength: 255,
  sessionTypeLength: 50,
  agentIdLength: 255,
  contentBytes: 100 * 1024,
  commentBytes: 10 * 1024,
  metadataBytes: 1024 * 1024,
  /** Messages per appendMessages call. */
  appendBatch: 500,
} as const;

/** Bytes a value adds to a BSON document (as the value of a one-letter key), for size checks before writing. */
export function bsonBytes(value: unknown): number {
  return calculateObjectSize({ v: value });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/** A metadata dot path (`priority`, `custom_data.tier`): non-empty segments, none starting with $. */
export function checkMetadataPath(path: string, field: string): void {
  const segments = path.split('.');
  const bad = (segment: string) =>
    segment === '' || segment.startsWith('$') || segment.includes('\0') || segment === '__proto__';
  if (segments.some(bad)) {
    throw new ValidationError(
      `${field}: "${path}" is not a metadata path (dot-separated keys, none empty, __proto__ or starting with $).`,
      field,
    );
  }
}

export function checkMetadataSize(bytes: number, field: string): void {
  if (bytes > LIMITS.metadataBytes) {
    throw new ValidationError(
      `${field}: metadata may hold at most ${LIMITS.metadataBytes} bytes (1 MB) in total.`,
      field,
    );
  }
}

/** Agent ids become field names (`agents.<agentId>`): no dot, no leading $, not `__proto__`. */
export function checkAgentId(agentId: string, field: string): void {
  if (agentId.length === 0 || agentId.length > LIMITS.agentIdLength) {
    throw new ValidationError(`${field} must have 1 to ${LIMITS.agentIdLength} characters.`, field);
  }
  if (agentId.includes('.') || agentId.startsWith('$') || agentId.includes('\0') || agentId === '__proto__') {
    throw new ValidationError(`${field} must not contain a dot or NUL, start with $, nor be __proto__.`, field);
  }
}

/** Message content: a string or an array of content blocks (objects), at most 100 KB. */
export function checkContent(content: unknown, field: string): void {
  const isBlocks = Array.isArray(content) && content.every(isPlainObject);
  if (typeof content !== 'string' && !isBlocks) {
    throw new ValidationError(`${field} must be a string or an array of content blocks (objects).`, field);
  }
  checkJsonInput(content, field);
  const bytes = typeof content === 'string' ? Buffer.byteLength(content, 'utf8') : bsonBytes(content);
  if (bytes > LIMITS.contentBytes) {
    throw new ValidationError(
      `${field} may hold at most ${LIMITS.contentBytes} bytes (100 KB); it has ${bytes}.`,
      field,
    );
  }
}

/** Metrics as the seed stores them; totalTokens defaults to input + output. Undefined when nothing is given. */
export function metricsDocument(
  input: EventLoopMetricsInput | null | undefined,
  field: string,
): EventLoopMetricsDocument | undefined {
  if (!input) return undefined;
  for (const [name, value] of Object.entries(input)) {
    if (value === null || value === undefined) continue;
    const path = `${field}.${name}`;
    if (name === 'latencyMs') {
      if (!(Number.isFinite(value) && value >= 0 && value <= MAX_DURATION_MS)) {
        throw new ValidationError(`${path} must be a number of milliseconds from 0 to ${MAX_DURATION_MS}.`, path);
      }
    } else if (!(Number.isSafeInteger(value) && value >= 0)) {
      throw new ValidationError(`${path} must be a non-negative integer.`, path);
    }
  }
  const { latencyMs, inputTokens, outputTokens } = input;
  const totalTokens =
    input.totalTokens ?? (inputTokens != null && outputTokens != null ? inputTokens + outputTokens : null);
  const usage = Object.fromEntries(
    Object.entries({ inputTokens, outputTokens, totalTokens }).filter(
      ([, value]) => value !== null && value !== undefined,
    ),
  );
  const metrics: EventLoopMetricsDocument = {
    ...(latencyMs != null ? { accumulated_metrics: { latencyMs } } : {}),
    ...(Object.keys(usage).length ? { accumulated_usage: usage } : {}),
  };
  return Object.keys(metrics).length ? metrics : undefined;
}

/** An SDK timestamp: kept as the ISO string it is, when it parses as a date. */
export function isoTimestamp(value: unknown, field: string): string {
  if (typeof value !== 'string' || Number.isNaN(Date.parse(value))) {
    throw new ValidationError(`${field} must be an ISO 8601 date string.`, field);
  }
  return value;
}

/** The message id held by a cursor of `Agent.messages`. */
function messageCursor(cursor: string, argument: string): number {
  const [value] = decodeCursor(cursor, argument, 1);
  const id = value instanceof Int32 || value instanceof Double ? value.valueOf() : value;
  if (typeof id !== 'number' || !Number.isInteger(id))
    throw new ValidationError(`${argument} is not a cursor of this list.`, argument);
  return id;
}

/**
 * The window and page size that `Agent.messages` arguments ask for, returning the stored message `fields` (null:
 * whole messages); invalid arguments are BAD_USER_INPUT.
 */
export function messageWindow(
  args: MessagesArgs,
  fields: string[] | null = null,
): { window: MessageWindow; size: number; backward: boolean } {
  if (args.first != null && args.last != null) throw new ValidationError('Pass first or last, not both.', 'last');
  const backward = args.last != null;
  const size = backward ? pageSize(args.last, 'last') : pageSize(args.first, 'first');
  const window: MessageWindow = {
    role: args.role ?? null,
    afterId: args.after ? messageCursor(args.after, 'after') : null,
    beforeId: args.before ? messageCursor(args.before, 'before') : null,
    take: backward ? -size : size,
    fields,
  };
  return { window, size, backward };
}

/** A new session's id (1 to 255 ASCII characters), type (1 to 50 characters) and application name (≤ 255). */
export function checkNewSession(sessionId: string, sessionType: string, applicationName?: string | null): void {
  if (applicationName != null && applicationName.length > LIMITS.sessionIdLength) {
    throw new ValidationError(
      `input.applicationName may have at most ${LIMITS.sessionIdLength} characters.`,
      'input.applicationName',
    );
  }
  if (sessionId.length === 0 || sessionId.length > LIMITS.sessionIdLength || !/^\p{ASCII}*$/u.test(sessionId)) {
    throw new ValidationError(
      `input.sessionId must have 1 to ${LIMITS.sessionIdLength} ASCII characters.`,
      'input.sessionId',
    );
  }
  if (sessionType.length === 0 || sessionType.length > LIMITS.sessionTypeLength) {
    throw new ValidationError(
      `input.sessionType must have 1 to ${LIMITS.sessionTypeLength} characters.`,
      'input.sessionType',
    );
  }
}

/** Metadata keys to set: dot paths, no overlapping pair (`a` and `a.b`), values with storable keys. */
export function checkMetadataUpdate(metadata: Record<string, unknown>): void {
  const paths = Object.keys(metadata);
  checkKeyCount(paths.length, 'metadata');
  paths.forEach((path) => checkMetadataPath(path, 'metadata'));
  let keys = paths.length;
  for (const [path, value] of Object.entries(metadata))
    keys += checkJsonInput(value, `metadata.${path}`, { dotsAllowed: false });
  checkKeyCount(keys, 'metadata');
  const sorted = [...paths].sort();
  sorted.forEach((path, index) => {
    if (index > 0 && path.startsWith(`${sorted[index - 1]}.`)) {
      throw new ValidationError(`metadata: "${sorted[index - 1]}" and "${path}" overlap.`, 'metadata');
    }
  });
}

/** The number of messages one appendMessages call may take. */
export function checkAppendBatch(count: number): void {
  if (count === 0 || count > LIMITS.appendBatch) {
    throw new ValidationError(`Append 1 to ${LIMITS.appendBatch} messages at a time.`, 'inputs');
  }
}

/** A feedback comment: at most 10 KB. */
export function checkComment(comment: string): void {
  const bytes = Buffer.byteLength(comment, 'utf8');
  if (bytes > LIMITS.commentBytes) {
    throw new ValidationError(
      `input.comment may hold at most ${LIMITS.commentBytes} bytes (10 KB); it has ${bytes}.`,
      'input.comment',
    );
  }
}
