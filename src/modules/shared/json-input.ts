import { ValidationError } from '../../errors';

/** MongoDB's documented nesting limit; mongod itself refuses past 180, which leaves room for the fields around. */
export const MAX_JSON_DEPTH = 100;

/** A measured duration or latency, in milliseconds (about 11.5 days): sums of many stay finite and exact enough. */
export const MAX_DURATION_MS = 1e9;

/** Keys one JSON input may hold (MAX_METADATA_KEYS), set once at startup by `setMaxJsonKeys`. */
let maxJsonKeys = 1000;

/**
 * Sets the key-count limit of {@link checkJsonInput} and {@link checkKeyCount} for the process (createAppDeps, from
 * MAX_METADATA_KEYS): a MongoDB update's cost grows with the number of keys it sets or unsets.
 */
export function setMaxJsonKeys(limit: number): void {
  maxJsonKeys = limit;
}

/** Refuses `count` keys above the limit with BAD_USER_INPUT naming `path`, the count and the limit. */
export function checkKeyCount(count: number, path: string): void {
  if (count > maxJsonKeys) {
    throw new ValidationError(`${path} has ${count} keys; at most ${maxJsonKeys} are accepted.`, path, {
      count,
      limit: maxJsonKeys,
    });
  }
}

/**
 * Checks a free-form JSON input (metadata, agent data, content blocks, tool arguments, …) before it is stored or
 * used in a query: at most MAX_JSON_DEPTH nested objects and arrays; at most MAX_METADATA_KEYS object keys in all,
 * nested ones included (see {@link checkKeyCount}); keys that MongoDB would read as operators (leading `$`), cannot
 * store (NUL) or that JavaScript treats as the prototype (`__proto__`), and with `dotsAllowed` false keys with a dot;
 * finite numbers only. A failure is BAD_USER_INPUT whose `field` is the path of the offending key or value
 * (`input.metadata.a.b.$x`, list items by index). Iterative, so any depth gets an answer. Returns the number of keys,
 * for callers that check several values as one input.
 */
export function checkJsonInput(value: unknown, path: string, { dotsAllowed = true } = {}): number {
  const pending: Array<[item: unknown, at: string, depth: number]> = [[value, path, 0]];
  let keys = 0;
  while (pending.length) {
    const [item, at, depth] = pending.pop()!;
    if (typeof item === 'number' && !Number.isFinite(item)) {
      throw new ValidationError(`${at} must be a finite number.`, at);
    }
    if (item === null || typeof item !== 'object' || item instanceof Date) continue;
    if (depth === MAX_JSON_DEPTH) {
      throw new ValidationError(`${path} may nest at most ${MAX_JSON_DEPTH} objects or lists (at ${at}).`, at);
    }
    const entries = Object.entries(item);
    if (!Array.isArray(item)) {
      keys += entries.length;
      // Counted before each key is looked at, so the refusal costs no more than the limit allows.
      if (keys > maxJsonKeys) checkKeyCount(countKeys(value), path);
    }
    for (const [key, child] of entries) {
      const where = `${at}.${key}`;
      if (!Array.isArray(item)) checkKey(key, where, dotsAllowed);
      pending.push([child, where, depth + 1]);
    }
  }
  return keys;
}

/** Object keys in `value`, nested ones included (to name the count in a refusal). */
function countKeys(value: unknown): number {
  let keys = 0;
  const pending = [value];
  while (pending.length) {
    const item = pending.pop();
    if (item === null || typeof item !== 'object' || item instanceof Date) continue;
    const children = Object.values(item);
    if (!Array.isArray(item)) keys += children.length;
    for (const child of children) pending.push(child);
  }
  return keys;
}

function checkKey(key: string, where: string, dotsAllowed: boolean): void {
  if (key.startsWith('$')) throw new ValidationError(`Keys must not start with $ (${where}).`, where);
  if (key.includes('\0')) throw new ValidationError(`Keys must not contain NUL (${where}).`, where);
  if (key === '__proto__') throw new ValidationError(`__proto__ is not accepted as a key (${where}).`, where);
  if (!dotsAllowed && key.includes('.')) {
    throw new ValidationError(`Keys must not contain a dot; nest objects instead (${where}).`, where);
  }
}

/**
 * A figure computed from stored values, as GraphQL can serialize it: documents written before the input ranges (or
 * directly through a driver) can make sums overflow to ±Infinity, which is clamped to the largest double, or NaN,
 * which becomes `fallback`. One odd document then skews a figure instead of failing the whole answer.
 */
export function finiteFigure(value: number, fallback = 0): number {
  if (Number.isNaN(value)) return fallback;
  return Math.max(-Number.MAX_VALUE, Math.min(Number.MAX_VALUE, value));
}
