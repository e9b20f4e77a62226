import type { Document, IndexDescription } from 'mongodb';
import type { Retention } from '../../config';
import { ValidationError } from '../../errors';

/**
 * Expiry of stored records: a collection's retention (RETENTION_*) and a record's own `expiresAt`, both enforced by
 * TTL indexes, so the database (the embedded engine's TTL pass or mongod's TTL monitor) deletes them, and the
 * deletes reach the search spaces and subscribers as change events like any other.
 */

/**
 * The per-record expiry index: a record whose expiry field (a date) has passed is deleted. Partial, so that it holds
 * only the records that have an expiry and costs the others' writes nothing.
 */
export function expiresAtIndex(field: string): IndexDescription {
  return {
    key: { [field]: 1 },
    name: `${field}_ttl`,
    expireAfterSeconds: 0,
    partialFilterExpression: { [field]: { $type: 'date' } },
  };
}

/**
 * The retention index on `field` (a creation or last-activity date) when the collection has a retention, else none.
 * Named `<field>_retention`: listed as the collection's conditional index, so it is dropped when the retention is.
 */
export function retentionIndexes(
  field: string,
  retention: Retention | undefined,
  options: Pick<IndexDescription, 'partialFilterExpression'> & { direction?: 1 | -1 } = {},
): IndexDescription[] {
  if (!retention) return [];
  const { direction = 1, ...rest } = options;
  return [
    { key: { [field]: direction }, name: retentionIndexName(field), expireAfterSeconds: retention.seconds, ...rest },
  ];
}

export function retentionIndexName(field: string): string {
  return `${field}_retention`;
}

/** The expiry a write asks for (`expiresAt` or `ttlSeconds`, at most one). */
export interface ExpiryInput {
  expiresAt?: Date | null;
  ttlSeconds?: number | null;
}

/**
 * When the record written at `now` expires: undefined when the input asks for no expiry. Both fields, an `expiresAt`
 * not after `now`, or a `ttlSeconds` below 1 are BAD_USER_INPUT naming the field (`<path>.expiresAt`).
 */
export function expiryOf(input: ExpiryInput, now: Date, path = 'input'): Date | undefined {
  const { expiresAt, ttlSeconds } = input;
  const hasAt = expiresAt !== undefined && expiresAt !== null;
  const hasTtl = ttlSeconds !== undefined && ttlSeconds !== null;
  if (hasAt && hasTtl) {
    throw new ValidationError(`Give ${path}.expiresAt or ${path}.ttlSeconds, not both.`, `${path}.ttlSeconds`);
  }
  if (hasAt) {
    if (!(expiresAt.getTime() > now.getTime())) {
      throw new ValidationError(`${path}.expiresAt must be in the future.`, `${path}.expiresAt`);
    }
    return expiresAt;
  }
  if (hasTtl) {
    if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1) {
      throw new ValidationError(`${path}.ttlSeconds must be an integer of at least 1.`, `${path}.ttlSeconds`);
    }
    return new Date(now.getTime() + ttlSeconds * 1000);
  }
  return undefined;
}

/** The descriptions of the expiry fields, the same on every write input and type. */
export const EXPIRY_DESCRIPTIONS = {
  expiresAt:
    'When it expires: gone for every read from then on, deleted by the database (a TTL index) within about a minute after. Not with ttlSeconds.',
  ttlSeconds: 'Seconds from now (at least 1) after which it expires, as expiresAt. Not with expiresAt.',
  stored:
    'When it expires: gone for every read from then on, deleted by the database (a TTL index) within about a minute after; null: kept (see serverInfo.retention).',
} as const;

/**
 * The condition of records not expired at `now` (`field` missing, null or after it). The TTL monitor deletes an
 * expired record up to a minute or more later; until then every read leaves it out, as if deleted.
 */
export function unexpiredAt(field: string, now: Date): Document {
  return { $or: [{ [field]: null }, { [field]: { $gt: now } }] };
}

/** `filter` restricted to records not expired at `now` (its own `$or`, if any, kept beside the expiry's). */
export function withUnexpired(filter: Document, field: string, now: Date): Document {
  return filter.$or === undefined
    ? { ...filter, ...unexpiredAt(field, now) }
    : { $and: [filter, unexpiredAt(field, now)] };
}

/** Whether a stored record's expiry (a Date, or anything else another tool wrote: then no expiry) has passed at `now`. */
export function isExpiredAt(expiresAt: unknown, now: Date): boolean {
  return expiresAt instanceof Date && expiresAt.getTime() <= now.getTime();
}
