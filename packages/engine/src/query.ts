/** Finds: the candidates a filter allows through `_id` and the indexes, then sort, skip and limit, as mongod answers. */
import { CommandError, badValue } from './errors';
import { compileFilter, stringOrder, type Matcher, type StringOrder } from './filter';
import { mongoRegExp } from './regex';
import type { SortedList } from './sorted-list';
import { idsAt, type Index, type KeyIds, type OrderedEntry } from './store';
import { canonicalKey, compareValues, isPlainObject, pathValues, typeRank, type Doc } from './values';

/** A scalar that can be looked up by canonical key: not an operator document, regex, array or null. */
function isLookupValue(value: unknown): boolean {
  if (value === null || value === undefined || Array.isArray(value) || value instanceof RegExp) return false;
  if (isPlainObject(value)) return !Object.keys(value).some((key) => key.startsWith('$'));
  return true;
}

/** Values that an equality condition (`v`, `{$eq: v}` or `{$in: [...]}`) allows, or undefined if it is something else. */
function equalityValues(condition: unknown): unknown[] | undefined {
  if (isLookupValue(condition)) return [condition];
  if (!isPlainObject(condition)) return undefined;
  const keys = Object.keys(condition);
  if (keys.length !== 1) return undefined;
  if (keys[0] === '$eq' && isLookupValue(condition.$eq)) return [condition.$eq];
  if (keys[0] === '$in' && Array.isArray(condition.$in) && condition.$in.every(isLookupValue)) return condition.$in;
  return undefined;
}

/** True for `null` and `{$eq: null}`: an equality that matches documents holding null or lacking the field. */
function isNullEquality(condition: unknown): boolean {
  if (condition === null) return true;
  return isPlainObject(condition) && Object.keys(condition).length === 1 && condition.$eq === null;
}

/** The values and regexes of a regex condition (`/re/`, or `{$in: [...]}` holding one or more), else undefined. */
function patternValues(condition: unknown): unknown[] | undefined {
  if (condition instanceof RegExp) return [condition];
  if (!isPlainObject(condition) || Object.keys(condition).length !== 1 || !Array.isArray(condition.$in))
    return undefined;
  const values: unknown[] = condition.$in;
  return values.some((value) => value instanceof RegExp) &&
    values.every((value) => value instanceof RegExp || isLookupValue(value))
    ? values
    : undefined;
}

/** The parts of a collection the planner reads. */
export interface Searchable {
  docs: Map<string, Doc>;
  /** Record number by canonical `_id` (see Collection.records). */
  records: Map<string, number>;
  indexes: Map<string, Index>;
}

/**
 * Documents that may match `filter`, using the `_id` map or an index whose (first) field has an equality condition
 * (at the top level or in a clause of a top-level `$and`) so that point lookups never scan; `listed` counts them when
 * a lookup applies. Documents are read only as they are iterated. Every candidate must still be tested unless `exact`.
 */
function candidates(
  collection: Searchable,
  filter: Doc | undefined,
): { docs: Iterable<Doc>; listed?: number; exact: boolean } {
  const planned = filter && planLookup(collection, filter);
  if (!filter || !planned) return { docs: { [Symbol.iterator]: () => collection.docs.values() }, exact: false };
  const ids = planned.ids();
  return {
    docs: {
      *[Symbol.iterator]() {
        for (const id of ids) yield collection.docs.get(id)!;
      },
    },
    listed: ids.length,
    // A filter of one condition that the lookup decides alone (an _id or exact index equality, a regex tested on the
    // index's keys) needs no test of each document.
    exact: Object.keys(filter).length === 1 && planned.exact,
  };
}

/**
 * A lookup before it runs: `size` is at least the number of ids it lists, known without listing them; `exact` when
 * the ids are exactly the documents matching the condition it was planned from.
 */
interface PlannedLookup {
  size: number;
  ids(): string[];
  exact: boolean;
}

function planLookup(collection: Searchable, filter: Doc): PlannedLookup | undefined {
  const values = equalityValues(filter._id);
  if (values) {
    return {
      size: values.length,
      exact: true,
      ids: () => {
        const ids = [...new Set(values.map(canonicalKey))].filter((id) => collection.docs.has(id));
        if (ids.length > 1) ids.sort((a, b) => compareValues(collection.docs.get(a)!._id, collection.docs.get(b)!._id));
        return ids;
      },
    };
  }
  const indexed = indexedEntries(collection, filter);
  if (indexed) {
    const { sets, exact } = indexed;
    return {
      size: sets.reduce((sum, ids) => sum + ids.size, 0),
      exact,
      ids: () => (sets.length === 1 ? [...sets[0]] : [...new Set(sets.flatMap((ids) => [...ids]))]),
    };
  }
  if (!Array.isArray(filter.$and)) return undefined;
  // The clause that leaves the fewest documents (a filtered search checks `{$and: [filter, {id: {$in: few}}]}`),
  // chosen by size so that a broad clause's ids are never listed.
  let fewest: PlannedLookup | undefined;
  for (const clause of filter.$and) {
    const planned = isPlainObject(clause) ? planLookup(collection, clause) : undefined;
    if (planned && (!fewest || planned.size < fewest.size)) fewest = planned;
  }
  return fewest && { ...fewest, exact: false };
}

const NULL_KEY = canonicalKey(null);

/**
 * The keys of `entries` (an index's, by canonical value of its first field) that `condition` selects: an equality,
 * `$in` of values and regexes, or null. Undefined for any other condition.
 */
function selectedKeys(entries: ReadonlyMap<string, KeyIds>, condition: unknown): string[] | undefined {
  if (isNullEquality(condition)) return entries.has(NULL_KEY) ? [NULL_KEY] : [];
  const values = equalityValues(condition) ?? patternValues(condition);
  if (!values) return undefined;
  const keys: string[] = [];
  const patterns: RegExp[] = [];
  for (const value of values) {
    if (value instanceof RegExp) patterns.push(value);
    else if (entries.has(canonicalKey(value))) keys.push(canonicalKey(value));
  }
  // A regex matches strings only: test each distinct string the index holds (their keys are 's' + the string)
  // instead of every document.
  if (patterns.length) {
    const asRead = patterns.map(mongoRegExp);
    for (const key of entries.keys()) {
      if (key[0] === 's' && asRead.some((pattern) => pattern.test(key.slice(1)))) keys.push(key);
    }
  }
  return keys;
}

/** An index's entries by the canonical value of its first field: its own for a single field, else `leading`. */
const firstFieldEntries = (index: Index): ReadonlyMap<string, KeyIds> | undefined =>
  index.fields.length === 1 ? index.entries : index.leading;

/**
 * The index entries (sets of ids) an equality, null or regex condition on an index's (first) field selects, or
 * undefined when none applies. `exact` when those are exactly the documents the condition matches.
 */
function indexedEntries(
  collection: Searchable,
  filter: Doc,
): { sets: ReadonlySet<string>[]; exact: boolean } | undefined {
  // A single-field index first (its entries are exactly the field's values), else the leading field of a compound one.
  const usable = [...collection.indexes.values()]
    .filter((index) => !index.spec.partialFilterExpression)
    .sort((a, b) => a.fields.length - b.fields.length);
  for (const index of usable) {
    const condition = filter[index.fields[0]];
    // Before the entries are read: an index a snapshot loaded is built on first use (Index.defer).
    if (condition === undefined) continue;
    const entries = firstFieldEntries(index);
    if (!entries) continue;
    // `{field: null}` matches documents without the field too, which a sparse index leaves out; the index keeps both
    // under null's key. A multikey index may hold documents whose path reaches null through arrays in other ways.
    if (isNullEquality(condition) && (index.sparse || index.multikey)) continue;
    const keys = selectedKeys(entries, condition);
    if (!keys) continue;
    // Without arrays on the path (each document holds one key: its value) and with keys compared binary, a key holds
    // exactly the documents the condition matches (null's key: those holding null and those lacking the field); the
    // regexes were tested with the matcher's own (linear) RegExp.
    return {
      sets: keys.map((key) => idsAt(entries, key)!),
      exact: !index.multikey && index.spec.collation === undefined,
    };
  }
  return undefined;
}

/**
 * The distinct values of `key` over the documents `filter` matches, read from one document per index key (as
 * mongod's DISTINCT_SCAN) when an index has `key` first and `filter` is empty or one condition on `key` that the index
 * decides exactly (see indexedEntries); undefined otherwise.
 */
export function distinctFromIndex(
  collection: Searchable,
  key: string,
  filter: Doc | undefined,
): Map<string, unknown> | undefined {
  const conditions = filter ? Object.keys(filter) : [];
  if (conditions.length > 1 || (conditions.length === 1 && conditions[0] !== key)) return undefined;
  // A filter on a multikey index would select documents whose other elements are values too.
  const index = [...collection.indexes.values()]
    .filter(
      (candidate) =>
        candidate.fields[0] === key &&
        !candidate.sparse &&
        !candidate.spec.partialFilterExpression &&
        candidate.spec.collation === undefined &&
        !(conditions.length && candidate.multikey),
    )
    .sort((a, b) => a.fields.length - b.fields.length)[0];
  const entries = index && firstFieldEntries(index);
  if (!entries) return undefined;
  const keys = conditions.length ? selectedKeys(entries, filter![key]) : entries.keys();
  if (!keys) return undefined;
  const seen = new Map<string, unknown>();
  for (const indexKey of keys) {
    const ids = entries.get(indexKey)!;
    // Null's key holds documents lacking the field too (no value for distinct): look for one holding null.
    for (const id of typeof ids === 'string' ? [ids] : ids) {
      for (const value of pathValues(collection.docs.get(id), key)) {
        if (value === undefined) continue;
        const canonical = canonicalKey(value);
        if (!seen.has(canonical)) seen.set(canonical, value);
      }
      if (indexKey !== NULL_KEY || seen.has(NULL_KEY)) break;
    }
  }
  return seen;
}

interface SortKey {
  path: string;
  dir: number;
}

/** The keys of a sort specification, or undefined when it sorts by nothing. */
function parseSort(sort: unknown): SortKey[] | undefined {
  if (sort === undefined || sort === null) return undefined;
  if (!isPlainObject(sort)) throw badValue('sort must be an object');
  const keys = Object.entries(sort).map(([path, direction]) => {
    if (isPlainObject(direction)) throw badValue(`$meta sort by ${JSON.stringify(direction)} is not supported`);
    const dir = Number(direction);
    if (dir !== 1 && dir !== -1) {
      throw new CommandError(15975, '$sort key ordering must be 1 (for ascending) or -1 (for descending)');
    }
    return { path, dir };
  });
  return keys.length ? keys : undefined;
}

/** A comparator for sort keys, with mongod's rule for arrays (min element ascending, max descending). */
function compareBy(keys: SortKey[], strings?: StringOrder): (a: Doc, b: Doc) => number {
  const sortValue = (doc: Doc, path: string, dir: number): unknown => {
    const values = pathValues(doc, path);
    if (values.length === 1) return values[0];
    return values.reduce((best, value) => (compareValues(value, best, strings) * dir < 0 ? value : best));
  };
  return (a, b) => {
    for (const { path, dir } of keys) {
      const order = compareValues(sortValue(a, path, dir), sortValue(b, path, dir), strings);
      if (order) return order * dir;
    }
    return 0;
  };
}

/** One end of an interval of a field's values: `value` itself, or (`bracket`) that end of `value`'s BSON type bracket. */
interface Bound {
  value: unknown;
  bracket?: boolean;
}

/** The values a field can hold in matching documents; both ends inclusive, a missing end unbounded. */
interface Interval {
  low?: Bound;
  high?: Bound;
}

const UNBOUNDED: Interval = {};
const point = (value: unknown): Interval => ({ low: { value }, high: { value } });
const isPoint = ({ low, high }: Interval): boolean =>
  low !== undefined &&
  high !== undefined &&
  !low.bracket &&
  !high.bracket &&
  compareValues(low.value, high.value) === 0;

/** Order of two bounds on the same side (`side` -1 for low ends, 1 for high ends): a bracket end lies beyond its type's values. */
function compareBounds(a: Bound, b: Bound, side: number): number {
  const byType = typeRank(a.value) - typeRank(b.value);
  if (byType) return byType;
  if (a.bracket || b.bracket) return a.bracket === b.bracket ? 0 : a.bracket ? side : -side;
  return compareValues(a.value, b.value);
}

function intersect(a: Interval, b: Interval): Interval {
  return {
    low: !a.low ? b.low : !b.low ? a.low : compareBounds(a.low, b.low, -1) >= 0 ? a.low : b.low,
    high: !a.high ? b.high : !b.high ? a.high : compareBounds(a.high, b.high, 1) <= 0 ? a.high : b.high,
  };
}

function union(a: Interval, b: Interval): Interval {
  return {
    low: a.low && b.low && (compareBounds(a.low, b.low, -1) <= 0 ? a.low : b.low),
    high: a.high && b.high && (compareBounds(a.high, b.high, 1) >= 0 ? a.high : b.high),
  };
}

/**
 * A value that bounds what an equality or comparison with it matches in a field holding no arrays (the comparison
 * operators above only match values of its own type); a regex, an array or an operator document may match more.
 */
const isBoundValue = (value: unknown): boolean =>
  value !== undefined &&
  !Array.isArray(value) &&
  !(value instanceof RegExp) &&
  !(isPlainObject(value) && Object.keys(value).some((key) => key.startsWith('$')));

/** The interval a field condition (`v`, or an operator document) confines non-array values to. */
function conditionInterval(condition: unknown): Interval {
  if (!isPlainObject(condition) || !Object.keys(condition).some((key) => key.startsWith('$'))) {
    return isBoundValue(condition) ? point(condition) : UNBOUNDED;
  }
  let interval = UNBOUNDED;
  for (const [operator, value] of Object.entries(condition)) {
    if (operator === '$in') {
      if (Array.isArray(value) && value.length && value.every(isBoundValue))
        interval = intersect(interval, value.map(point).reduce(union));
      continue;
    }
    if (!isBoundValue(value)) continue;
    if (operator === '$eq') interval = intersect(interval, point(value));
    else if (operator === '$gt' || operator === '$gte')
      interval = intersect(interval, { low: { value }, high: { value, bracket: true } });
    else if (operator === '$lt' || operator === '$lte')
      interval = intersect(interval, { low: { value, bracket: true }, high: { value } });
  }
  return interval;
}

/** The interval `filter` confines `field` to, from its top-level conditions, `$and` clauses and `$or` branches. */
function fieldInterval(filter: Doc, field: string): Interval {
  let interval = UNBOUNDED;
  for (const [key, condition] of Object.entries(filter)) {
    if (key === field) {
      interval = intersect(interval, conditionInterval(condition));
    } else if (key === '$and' && Array.isArray(condition)) {
      for (const clause of condition)
        if (isPlainObject(clause)) interval = intersect(interval, fieldInterval(clause, field));
    } else if (key === '$or' && Array.isArray(condition) && condition.length && condition.every(isPlainObject)) {
      interval = intersect(interval, condition.map((branch: Doc) => fieldInterval(branch, field)).reduce(union));
    }
  }
  return interval;
}

/**
 * Index order of an entry's values against the start (or end) of `bounds`, intervals of the index's leading fields:
 * negative before it, 0 within it, positive after it.
 */
function compareToBounds(values: unknown[], bounds: Interval[], directions: number[], side: 'start' | 'end'): number {
  for (let i = 0; i < bounds.length; i++) {
    // A descending field's interval starts at its high end.
    const bound = (side === 'start') === (directions[i] === 1) ? bounds[i].low : bounds[i].high;
    if (!bound) return side === 'start' ? 1 : -1;
    const order = bound.bracket ? typeRank(values[i]) - typeRank(bound.value) : compareValues(values[i], bound.value);
    if (order) return order * directions[i];
  }
  return 0;
}

/** A walk through positions [start, end) of an index's ordered view, whose order gives (a prefix of) the sort's. */
interface IndexWalk {
  view: SortedList<OrderedEntry>;
  start: number;
  end: number;
  reverse: boolean;
  /** Positions of the index fields whose order is the sort's (past the fields the filter fixes to one value). */
  sorted: { from: number; to: number };
  /** The walk order is the whole sort; otherwise only its leading keys, and runs of equal values need sorting. */
  complete: boolean;
}

/**
 * The narrowest walk of an index in sort order: the sort keys, less those on fields the filter fixes to one value
 * (constant among the results), must start with the index's next fields, all in its directions or all reversed. The
 * filter's bounds on the fixed fields and the field after them narrow the walk. Only indexes that hold every
 * document once and no arrays qualify (Index.walkable), so their order is the sort's.
 */
function planWalk(collection: Searchable, filter: Doc, keys: SortKey[]): IndexWalk | undefined {
  let best: IndexWalk | undefined;
  for (const index of collection.indexes.values()) {
    if (!index.walkable) continue;
    const { fields } = index;
    const directions = index.directions!;
    const intervals = fields.map((field) => fieldInterval(filter, field));
    let fixed = 0;
    while (fixed < fields.length && isPoint(intervals[fixed])) fixed++;
    const rest = keys.filter((key) => !fields.slice(0, fixed).includes(key.path));
    if (!rest.length || fixed === fields.length) continue;
    const sign = rest[0].dir * directions[fixed];
    let covered = 0;
    const follows = (key: SortKey | undefined, at: number) =>
      key?.path === fields[at] && key.dir === sign * directions[at];
    while (fixed + covered < fields.length && follows(rest[covered], fixed + covered)) covered++;
    if (!covered) continue;
    const view = index.ordered(collection)!;
    const bounds = intervals.slice(0, fixed + 1);
    const start = view.partitionPoint((entry) => compareToBounds(entry.values, bounds, directions, 'start') < 0);
    const end = Math.max(
      start,
      view.partitionPoint((entry) => compareToBounds(entry.values, bounds, directions, 'end') <= 0),
    );
    const walk = {
      view,
      start,
      end,
      reverse: sign < 0,
      sorted: { from: fixed, to: fixed + covered },
      complete: covered === rest.length,
    };
    const size = end - start;
    if (!best || size < best.end - best.start || (size === best.end - best.start && walk.complete && !best.complete))
      best = walk;
  }
  return best;
}

/** Result of a sorted find read from an index walk: it stops once the sort can no longer place a later entry first. */
function walkIndex(
  collection: Searchable,
  walk: IndexWalk,
  match: Matcher,
  keys: SortKey[],
  skip: number,
  limit: number,
): Doc[] {
  const out: Doc[] = [];
  if (walk.complete) {
    let skipped = 0;
    for (const entry of walk.view.range(walk.start, walk.end, walk.reverse)) {
      const doc = collection.docs.get(entry.id)!;
      if (!match(doc)) continue;
      if (skipped < skip) skipped++;
      else if (out.push(doc) >= limit) break;
    }
    return out;
  }
  // The index orders the leading sort keys only: read on to the end of the run of values the last wanted match has,
  // then sort by the whole sort (ties in record order, as a full sort of the collection leaves them).
  const { from, to } = walk.sorted;
  const sameRun = (a: unknown[], b: unknown[]): boolean => {
    for (let i = from; i < to; i++) if (compareValues(a[i], b[i])) return false;
    return true;
  };
  const found: { doc: Doc; record: number }[] = [];
  let last: unknown[] | undefined;
  for (const entry of walk.view.range(walk.start, walk.end, walk.reverse)) {
    if (last && !sameRun(entry.values, last)) break;
    const doc = collection.docs.get(entry.id)!;
    if (!match(doc)) continue;
    if (found.push({ doc, record: entry.record }) === skip + limit) last = entry.values;
  }
  const order = compareBy(keys);
  found.sort((a, b) => order(a.doc, b.doc) || a.record - b.record);
  for (const { doc } of found.slice(skip, skip + limit)) out.push(doc);
  return out;
}

/** The `k` smallest items under `compare`, sorted, ties in iteration order as a stable sort leaves them (a bounded max-heap). */
function smallest<T>(items: Iterable<T>, k: number, compare: (a: T, b: T) => number): T[] {
  const heap: { item: T; seq: number }[] = [];
  const above = (a: { item: T; seq: number }, b: { item: T; seq: number }): boolean =>
    (compare(a.item, b.item) || a.seq - b.seq) > 0;
  let seq = 0;
  for (const item of items) {
    const entry = { item, seq: seq++ };
    if (heap.length < k) {
      let i = heap.push(entry) - 1;
      while (i > 0 && above(heap[i], heap[(i - 1) >> 1])) {
        [heap[i], heap[(i - 1) >> 1]] = [heap[(i - 1) >> 1], heap[i]];
        i = (i - 1) >> 1;
      }
      continue;
    }
    if (!above(heap[0], entry)) continue;
    heap[0] = entry;
    for (let i = 0; ;) {
      const left = 2 * i + 1;
      let top = i;
      if (left < heap.length && above(heap[left], heap[top])) top = left;
      if (left + 1 < heap.length && above(heap[left + 1], heap[top])) top = left + 1;
      if (top === i) break;
      [heap[i], heap[top]] = [heap[top], heap[i]];
      i = top;
    }
  }
  return heap.sort((a, b) => compare(a.item, b.item) || a.seq - b.seq).map(({ item }) => item);
}

function* matching(docs: Iterable<Doc>, match: Matcher): Generator<Doc> {
  for (const doc of docs) if (match(doc)) yield doc;
}

export interface FindSpec {
  filter?: Doc;
  /** The command's `let` variables (see letVariables), for `$expr` in the filter. */
  variables?: Doc;
  /** A non-simple collation (see parseCollation) for string comparisons in the filter and the sort. */
  collation?: Doc;
  sort?: Doc;
  skip?: number;
  limit?: number;
}

/**
 * Matching documents in result order (filter, sort, skip, limit). Returned documents are the stored ones: never mutate.
 * A sort is read from an index walk when one applies and costs less than the equality lookup (if any); otherwise the
 * matches are sorted, or only the first `skip + limit` of them selected.
 */
export function findDocuments(collection: Searchable | undefined, spec: FindSpec): Doc[] {
  if (!collection) {
    compileFilter(spec.filter, spec.variables, spec.collation);
    return [];
  }
  const match = compileFilter(spec.filter, spec.variables, spec.collation);
  // { $natural: ±1 } is storage order, which is insertion order here.
  const natural = spec.sort && Object.keys(spec.sort).length === 1 ? spec.sort.$natural : undefined;
  const keys = natural === undefined ? parseSort(spec.sort) : undefined;
  const skip = spec.skip ?? 0;
  const limit = spec.limit && spec.limit > 0 ? spec.limit : Infinity;
  // Index keys and _id lookups compare strings binary: under a collation every document is tested and sorted.
  const { docs, listed, exact } = spec.collation
    ? { docs: collection.docs.values(), listed: undefined, exact: false }
    : candidates(collection, spec.filter);
  const out: Doc[] = [];
  if (natural === -1) {
    for (const doc of docs) if (exact || match(doc)) out.push(doc);
    return out.reverse().slice(skip, skip + limit);
  }
  if (!keys) {
    let skipped = 0;
    for (const doc of docs) {
      if (!exact && !match(doc)) continue;
      if (skipped < skip) {
        skipped++;
        continue;
      }
      out.push(doc);
      if (out.length >= limit) break;
    }
    return out;
  }
  const walk = spec.collation ? undefined : planWalk(collection, spec.filter ?? {}, keys);
  if (walk) {
    // A lookup costs the L documents it lists; a walk through R entries finds the wanted ones after about
    // wanted·R/L entries when those documents are spread evenly (R at most).
    const range = walk.end - walk.start;
    const read = (listed: number) => (limit === Infinity ? range : Math.min(range, ((skip + limit) * range) / listed));
    if (listed === undefined || read(listed) <= listed) return walkIndex(collection, walk, match, keys, skip, limit);
  }
  const order = compareBy(keys, stringOrder(spec.collation));
  const matches = exact ? docs : matching(docs, match);
  if (limit !== Infinity) return smallest(matches, skip + limit, order).slice(skip);
  return [...matches].sort(order).slice(skip);
}
