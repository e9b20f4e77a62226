import type { Document } from 'mongodb';

/** Where a collection keeps a memory's validity (the shared data contract's names). */
export interface ValidityFields {
  validFrom: string;
  validUntil: string;
  supersededBy: string;
  endedReason: string;
  /** The per-record expiry of the TTL index: past it a memory is gone for readers before the database deletes it. */
  expiresAt: string;
}

export const EXPERIENCE_VALIDITY: ValidityFields = {
  validFrom: 'valid_from',
  validUntil: 'valid_until',
  supersededBy: 'superseded_by',
  endedReason: 'ended_reason',
  expiresAt: 'expires_at',
};

export const INSIGHT_VALIDITY: ValidityFields = {
  validFrom: 'validFrom',
  validUntil: 'validUntil',
  supersededBy: 'supersededBy',
  endedReason: 'endedReason',
  expiresAt: 'expiresAt',
};

/** How a read chooses memories by validity: `includeSuperseded` and `asOf` as the list and search fields take them. */
export interface ValidityArgs {
  includeSuperseded?: boolean | null;
  asOf?: Date | null;
}

/** A memory's state as stored; any field may be missing (documents written by other tools). */
export type StoredValidity = Record<string, unknown>;

/** A stored date (a Date, or a string another tool wrote); null when missing or unreadable. */
export function validityDate(value: unknown): Date | null {
  const date = value instanceof Date ? value : typeof value === 'string' ? new Date(value) : null;
  return date && Number.isFinite(date.getTime()) ? date : null;
}

/** Whether `field` (a date) is missing, null or after `at`. */
function openAfter(field: string, at: Date): Document {
  return { $or: [{ [field]: null }, { [field]: { $gt: at } }] };
}

/**
 * The filter of memories current at `at`: not superseded, `validUntil` open or after `at`, `validFrom` missing or
 * at or before `at` (the contract's definition), and not expired (the TTL monitor deletes an expired memory up to a
 * minute or more later; readers must not see it meanwhile).
 */
export function currentAt(fields: ValidityFields, at: Date): Document {
  return {
    [fields.supersededBy]: null,
    $and: [
      openAfter(fields.validUntil, at),
      { $or: [{ [fields.validFrom]: null }, { [fields.validFrom]: { $lte: at } }] },
      openAfter(fields.expiresAt, at),
    ],
  };
}

/** Width of the time window {@link currentAround} rounds to. */
const WINDOW_MS = 60_000;

/**
 * A filter passing every memory current at `now`, for searches: those superseded or retired are left out exactly (by
 * their replacement and reason, which do not change with time), while the time bounds are rounded to the minute (a
 * memory whose validity starts or ends naturally within the minute around `now` passes too), so the search index
 * caches one filter per minute instead of resolving a new one per search. Callers drop the extra ones by
 * {@link isCurrentAt}.
 */
export function currentAround(fields: ValidityFields, now: Date): Document {
  const start = Math.floor(now.getTime() / WINDOW_MS) * WINDOW_MS;
  return {
    [fields.supersededBy]: null,
    [fields.endedReason]: null,
    $and: [
      openAfter(fields.validUntil, new Date(start)),
      { $or: [{ [fields.validFrom]: null }, { [fields.validFrom]: { $lte: new Date(start + WINDOW_MS) } }] },
      openAfter(fields.expiresAt, new Date(start)),
    ],
  };
}

/**
 * The filter of memories as the store stood at `asOf`: recorded by then (`recordedBy`) and, unless
 * `includeSuperseded`, valid then (validFrom ≤ asOf < validUntil; superseding and retiring set validUntil to their
 * moment, so what ended later was still valid).
 */
export function asOfQuery(
  fields: ValidityFields,
  asOf: Date,
  recordedBy: Document,
  includeSuperseded: boolean,
): Document {
  if (includeSuperseded) return recordedBy;
  return {
    $and: [
      recordedBy,
      openAfter(fields.validUntil, asOf),
      { $or: [{ [fields.validFrom]: null }, { [fields.validFrom]: { $lte: asOf } }] },
      openAfter(fields.expiresAt, asOf),
    ],
  };
}

/**
 * The validity filter of a list: current at `now` by default, the store at `asOf`, or nothing (`includeSuperseded`
 * alone).
 */
export function validityQuery(
  fields: ValidityFields,
  args: ValidityArgs,
  now: Date,
  recordedBy: (asOf: Date) => Document,
): Document {
  if (args.asOf) return asOfQuery(fields, args.asOf, recordedBy(args.asOf), args.includeSuperseded === true);
  return args.includeSuperseded ? {} : currentAt(fields, now);
}

/** Both filters (an empty one is left out, so an absent filter stays absent). */
export function bothFilters(a: Document, b: Document): Document {
  if (Object.keys(b).length === 0) return a;
  if (Object.keys(a).length === 0) return b;
  return { $and: [a, b] };
}

/** Whether a stored memory is current at `at` (as {@link currentAt} selects it). */
export function isCurrentAt(fields: ValidityFields, stored: StoredValidity, at: Date): boolean {
  if (stored[fields.supersededBy] != null) return false;
  // Most memories are open-ended: nothing to parse.
  if (stored[fields.validUntil] == null && stored[fields.expiresAt] == null && stored[fields.validFrom] == null)
    return true;
  const until = validityDate(stored[fields.validUntil]);
  if (stored[fields.validUntil] != null && (!until || until <= at)) return false;
  const expires = validityDate(stored[fields.expiresAt]);
  if (expires && expires <= at) return false;
  const from = validityDate(stored[fields.validFrom]);
  return stored[fields.validFrom] == null || (from !== null && from <= at);
}

/** A memory's standing at `now`, as `status` reports it. */
export enum MemoryStatus {
  CURRENT = 'CURRENT',
  SUPERSEDED = 'SUPERSEDED',
  RETIRED = 'RETIRED',
  EXPIRED = 'EXPIRED',
  PENDING = 'PENDING',
}

/**
 * The status of a stored memory: superseded when it has a replacement, retired when it ended with a reason and none,
 * expired when its validUntil (or its expiresAt) passed otherwise, pending before its validFrom.
 */
export function memoryStatus(fields: ValidityFields, stored: StoredValidity, now: Date): MemoryStatus {
  if (stored[fields.supersededBy] != null) return MemoryStatus.SUPERSEDED;
  const expires = validityDate(stored[fields.expiresAt]);
  if (expires && expires <= now) return MemoryStatus.EXPIRED;
  const until = validityDate(stored[fields.validUntil]);
  if (until && until <= now) return stored[fields.endedReason] != null ? MemoryStatus.RETIRED : MemoryStatus.EXPIRED;
  const from = validityDate(stored[fields.validFrom]);
  return from && from > now ? MemoryStatus.PENDING : MemoryStatus.CURRENT;
}

/** The update that puts back the end fields of a memory as `stored` held them (undoing an end). */
export function restoreEnd(fields: ValidityFields, stored: StoredValidity): Document {
  const set: Document = {};
  const unset: Document = {};
  for (const field of [fields.validUntil, fields.endedReason, fields.supersededBy]) {
    if (stored[field] === undefined) unset[field] = '';
    else set[field] = stored[field];
  }
  return { ...(Object.keys(set).length ? { $set: set } : {}), ...(Object.keys(unset).length ? { $unset: unset } : {}) };
}

/** A memory's lifecycle state: its stored validity fields and the scope its events copy. */
export interface MemoryState {
  id: string;
  stored: Document;
  scope: MemoryScopeFields;
}

/** How a memory ends: at `at`, replaced by `supersededBy` (null: retired), for `reason`. */
export interface MemoryEnd {
  at: Date;
  supersededBy: string | null;
  reason: string | null;
}

/** The scope a memory's history events copy (so that forgetting a scope finds them without the memory). */
export interface MemoryScopeFields {
  user_id: string | null;
  agent_id: string | null;
  session_id: string | null;
}

/** A stored text field, or null when missing or not a string (documents written by other tools). */
function textOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

/** An experience's scope (stored snake_case). */
export function experienceScope(document: Document): MemoryScopeFields {
  return {
    user_id: textOrNull(document.user_id),
    agent_id: textOrNull(document.initiating_agent_id),
    session_id: textOrNull(document.session_id),
  };
}

/** An insight's scope (stored camelCase; insights belong to no session). */
export function insightScope(document: Document): MemoryScopeFields {
  return { user_id: textOrNull(document.userId), agent_id: textOrNull(document.agentId), session_id: null };
}
