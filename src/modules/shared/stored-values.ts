import { finiteFigure } from './json-input';

/**
 * Reading stored documents. A document written by an older version or straight through a driver can hold values the
 * schema cannot carry (a string where a number belongs, an invalid date, a list that is not one). GraphQL would fail
 * such a non-null field and with it every enclosing non-null level up to the whole list or search, so the mappers
 * (`toExperience`, `Session.fromSummary`, …) read each field through these helpers instead: a bad value becomes a
 * safe one (empty text, 0, the epoch, an empty list or object, the documented default of an enum) and the other
 * fields and items keep their stored values. The raw fields (`metadata`, `agentData.raw`, `content`, …) still show
 * what is stored.
 */

/** The date a missing or unreadable stored date reads as. */
export const UNKNOWN_DATE = new Date(0);

const INT_MAX = 2 ** 31 - 1;

export function storedText(value: unknown, fallback = ''): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return fallback;
}

export function storedTextOrNull(value: unknown): string | null {
  return value === null || value === undefined ? null : storedText(value);
}

/** A GraphQL Int: finite numbers truncated and clamped to 32 bits; anything else `fallback`. */
export function storedInt(value: unknown, fallback = 0): number {
  if (typeof value !== 'number' || Number.isNaN(value)) return fallback;
  return Math.max(-INT_MAX - 1, Math.min(INT_MAX, Math.trunc(value)));
}

/** A GraphQL Float: numbers clamped to finite ones; anything else `fallback`. */
export function storedFloat(value: unknown, fallback = 0): number {
  return typeof value === 'number' ? finiteFigure(value, fallback) : fallback;
}

export function storedFloatOrNull(value: unknown): number | null {
  return typeof value === 'number' ? finiteFigure(value) : null;
}

/** A valid date: a Date, or a string or number that parses as one; anything else `fallback`. */
export function storedDate(value: unknown, fallback: Date = UNKNOWN_DATE): Date {
  const date =
    value instanceof Date ? value : typeof value === 'string' || typeof value === 'number' ? new Date(value) : null;
  return date && Number.isFinite(date.getTime()) ? date : fallback;
}

export function storedDateOrNull(value: unknown): Date | null {
  return value === null || value === undefined ? null : storedDate(value);
}

/** The strings of a stored list (other items read as text where they can, else are left out); not a list: []. */
export function storedTextList(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  const texts: string[] = [];
  for (const item of value)
    if (item !== null && item !== undefined && typeof item !== 'object') texts.push(storedText(item));
  return texts;
}

/** The items of a stored list that are objects (documents); not a list: []. */
export function storedObjects<T extends object>(value: unknown): T[] {
  return Array.isArray(value) ? value.filter((item): item is T => isPlainObject(item)) : [];
}

/** A stored object as it is; anything else `{}`. */
export function storedObject(value: unknown): Record<string, unknown> {
  return isPlainObject(value) ? value : {};
}

/** `value` when it is one of `allowed`, else `fallback`. */
export function storedEnum<T extends string>(value: unknown, allowed: readonly T[], fallback: T): T {
  return allowed.includes(value as T) ? (value as T) : fallback;
}

export function storedEnumOrNull<T extends string>(value: unknown, allowed: readonly T[]): T | null {
  return allowed.includes(value as T) ? (value as T) : null;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}
