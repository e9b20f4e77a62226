import type { Collection, Document } from 'mongodb';
import { readPath } from './space';
import type { PassingSet } from './space-filters';

/**
 * Atlas mode: a filtered search that Atlas cannot pre-filter lists the documents that pass its filter when they are at
 * most this many, and searches exactly those. With more, it walks the ranking and checks candidates instead.
 */
export const EXACT_SEARCH_MAX = 10_000;

/**
 * What a search filter leaves of a space, resolved through MongoDB:
 * - `all`: no filter;
 * - `ids`: exactly these documents (a filter on ids alone, or at most {@link EXACT_SEARCH_MAX} from MongoDB);
 * - `check`: too many to list: `passing(ids)` says which candidates pass.
 */
export type Restriction =
  | { kind: 'all' }
  | { kind: 'ids'; ids: ReadonlySet<string> }
  | { kind: 'check'; passing(ids: string[]): Promise<ReadonlySet<string>> };

/** In memory mode also `passing`: the documents of a cached filter (see CollectionFilters in space-filters.ts). */
export type SpaceRestriction = Restriction | { kind: 'passing'; set: PassingSet };

/** True for an absent or empty filter (`{}`): nothing to apply. */
export function isEmptyFilter(filter: Document | null | undefined): boolean {
  return !filter || Object.keys(filter).length === 0;
}

/**
 * Resolves a MongoDB filter on a space's collection into a {@link Restriction}. A filter on the id field alone
 * (`{ id: x }`, `$eq`, `$in`, `$ne`, `$nin`) is answered in memory; any other filter costs one query that projects
 * the id only (index the filtered fields): up to `max` ids are listed, beyond that candidates are checked later
 * with `{ $and: [filter, { id: { $in: candidates } }] }`.
 */
export async function resolveFilter(
  collection: Collection,
  idField: string,
  filter: Document | null | undefined,
  max = EXACT_SEARCH_MAX,
): Promise<Restriction> {
  if (isEmptyFilter(filter)) return { kind: 'all' };
  const byId = idRestriction(filter!, idField);
  if (byId) return byId;
  const projection = { _id: 0, [idField]: 1 };
  const rows = await collection.find(filter!, { projection, limit: max + 1, batchSize: max + 1 }).toArray();
  if (rows.length <= max) return { kind: 'ids', ids: idsOf(rows, idField) };
  // Candidates are checked in the database while few; once more than `max` were asked about (a ranking whose best
  // documents mostly fail the filter), every passing id is listed once and the rest is checked in memory.
  let asked = 0;
  let all: Promise<Set<string>> | null = null;
  return {
    kind: 'check',
    passing: async (ids) => {
      asked += ids.length;
      if (asked > max) {
        all ??= collection
          .find(filter!, { projection, batchSize: 50_000 })
          .toArray()
          .then((rows) => idsOf(rows, idField));
        const passing = await all;
        return new Set(ids.filter((id) => passing.has(id)));
      }
      return idsOf(
        await collection.find({ $and: [filter!, { [idField]: { $in: ids } }] }, { projection }).toArray(),
        idField,
      );
    },
  };
}

/** The restriction of a filter on the id field alone (`{ id: x }`, `$eq`, `$in`, `$ne`, `$nin`); null for another. */
export function idRestriction(filter: Document, idField: string): Restriction | null {
  const byId = idCondition(filter, idField);
  if (!byId) return null;
  if (byId.only) return { kind: 'ids', ids: new Set([...byId.only].filter((id) => !byId.except.has(id))) };
  return { kind: 'check', passing: async (ids) => new Set(ids.filter((id) => !byId.except.has(id))) };
}

function idsOf(rows: Document[], idField: string): Set<string> {
  const ids = new Set<string>();
  for (const row of rows) {
    const id = readPath(row, idField);
    if (typeof id === 'string') ids.add(id);
  }
  return ids;
}

/**
 * The filter as a condition on string ids when it constrains nothing but the id field: `only` (when set) lists the
 * ids allowed, `except` those excluded. Null for any other filter.
 */
function idCondition(filter: Document, idField: string): { only?: Set<string>; except: Set<string> } | null {
  const keys = Object.keys(filter);
  if (keys.length !== 1 || keys[0] !== idField) return null;
  const condition: unknown = filter[idField];
  if (typeof condition === 'string') return { only: new Set([condition]), except: new Set() };
  if (!condition || typeof condition !== 'object' || Array.isArray(condition)) return null;
  const strings = (value: unknown): string[] | null =>
    Array.isArray(value) && value.every((item) => typeof item === 'string') ? value : null;
  let only: Set<string> | undefined;
  const except = new Set<string>();
  const allow = (ids: string[]) => {
    only = new Set(only ? ids.filter((id) => only!.has(id)) : ids);
  };
  for (const [operator, value] of Object.entries(condition as Document)) {
    if (operator === '$eq' && typeof value === 'string') allow([value]);
    else if (operator === '$in' && strings(value)) allow(strings(value)!);
    else if (operator === '$ne' && typeof value === 'string') except.add(value);
    else if (operator === '$nin' && strings(value)) strings(value)!.forEach((id) => except.add(id));
    else return null;
  }
  return { only, except };
}

/**
 * Walks a ranking in growing prefixes (`k·4`, `k·16`, …) and keeps the candidates that pass, until `k` passed or
 * the ranking ran out: the filter applies before the limit. `rank(n)` returns the best `n` (fewer when there are no
 * more), best first; it is called again after each check, so it must not hold state across the awaits.
 */
export async function firstPassing<T extends { id: string }>(
  rank: (n: number) => T[] | Promise<T[]>,
  k: number,
  passing: (ids: string[]) => Promise<ReadonlySet<string>>,
): Promise<T[]> {
  const verdicts = new Map<string, boolean>();
  for (let n = k * 4; ; n *= 4) {
    const ranked = await rank(n);
    const unchecked = ranked.filter((hit) => !verdicts.has(hit.id)).map((hit) => hit.id);
    if (unchecked.length) {
      const passed = await passing(unchecked);
      for (const id of unchecked) verdicts.set(id, passed.has(id));
    }
    const kept = ranked.filter((hit) => verdicts.get(hit.id));
    if (kept.length >= k || ranked.length < n) return kept.slice(0, k);
  }
}
