import { Context, ProcessingMode, evalExpr } from 'mingo/core';
import * as accumulatorOperators from 'mingo/operators/accumulator';
import * as expressionOperators from 'mingo/operators/expression';
import * as pipelineOperators from 'mingo/operators/pipeline';
import * as queryOperators from 'mingo/operators/query';
import * as windowOperators from 'mingo/operators/window';
import { Query } from 'mingo/query';
import { Binary } from 'bson';
import { CommandError, ErrorCode, badValue } from './errors';
import { bsonSize, bsonTypeName, canonicalKey, compareValues, isPlainObject, pathValues, typeRank, type Doc } from './values';

/** Tests whether a document matches a compiled filter. */
export type Matcher = (doc: Doc) => boolean;

// Values a query path reaches, as mongod matches them: arrays are traversed, and an array at the end of the
// path offers both itself and its elements. A missing field offers `undefined`.
function queryValues(doc: unknown, path: string): unknown[] {
  const segments = path.split('.');
  const out: unknown[] = [];
  const walk = (current: unknown, i: number): void => {
    if (i === segments.length) {
      out.push(current);
      if (Array.isArray(current)) for (const item of current) out.push(item);
      return;
    }
    const segment = segments[i];
    if (Array.isArray(current)) {
      if (/^\d+$/.test(segment)) walk(current[Number(segment)], i + 1);
      for (const item of current) if (isPlainObject(item)) walk(item[segment], i + 1);
      if (!current.length) out.push(undefined);
      return;
    }
    walk(isPlainObject(current) ? current[segment] : undefined, i + 1);
  };
  walk(doc, 0);
  return out;
}

const isNullish = (value: unknown): boolean => value === null || value === undefined;

function equalsQueryValue(candidate: unknown, value: unknown): boolean {
  if (value === null) return isNullish(candidate);
  if (value instanceof RegExp && typeof candidate === 'string') return value.test(candidate);
  return compareValues(candidate, value) === 0;
}

function comparator(test: (order: number) => boolean, matchesNull: boolean) {
  return (selector: string, value: unknown) => {
    const rank = typeRank(value);
    return (doc: Doc) =>
      queryValues(doc, selector).some((candidate) =>
        value === null ? matchesNull && isNullish(candidate) : typeRank(candidate) === rank && test(compareValues(candidate, value)),
      );
  };
}

function inList(selector: string, value: unknown) {
  if (!Array.isArray(value)) throw badValue('$in needs an array');
  return (doc: Doc) => queryValues(doc, selector).some((candidate) => value.some((item) => equalsQueryValue(candidate, item)));
}

const equals = (selector: string, value: unknown) => (doc: Doc) =>
  queryValues(doc, selector).some((candidate) => equalsQueryValue(candidate, value));

/**
 * Comparison operators with mongod's semantics over bson values: numbers compare across number/Long/
 * Decimal128, values compare only within their BSON type bracket, and field order matters in documents
 * (mingo's own versions compare bson wrapper classes by their string form).
 */
const COMPARISON_OPERATORS = {
  $eq: equals,
  $ne: (selector: string, value: unknown) => {
    const eq = equals(selector, value);
    return (doc: Doc) => !eq(doc);
  },
  $gt: comparator((order) => order > 0, false),
  $gte: comparator((order) => order >= 0, true),
  $lt: comparator((order) => order < 0, false),
  $lte: comparator((order) => order <= 0, true),
  $in: inList,
  $nin: (selector: string, value: unknown) => {
    const found = inList(selector, value);
    return (doc: Doc) => !found(doc);
  },
};

type ExpressionOperator = (doc: Doc, expr: unknown, options: never) => unknown;

/** Expression operators mongod has and mingo lacks. */
const EXTRA_EXPRESSION_OPERATORS: Record<string, ExpressionOperator> = {
  $bsonSize: (doc, expr, options) => {
    const value = evalExpr(doc, expr, options);
    if (value === null || value === undefined) return null;
    if (!isPlainObject(value)) throw new CommandError(31393, `$bsonSize requires a document input, found: ${bsonTypeName(value)}`);
    return bsonSize(value);
  },
  $binarySize: (doc, expr, options) => {
    const value = evalExpr(doc, expr, options);
    if (value === null || value === undefined) return null;
    if (typeof value === 'string') return Buffer.byteLength(value, 'utf8');
    if (value instanceof Binary) return value.length();
    throw new CommandError(51276, `$binarySize requires a string or BinData argument, found: ${bsonTypeName(value)}`);
  },
};

/**
 * Options for every mingo call: stored documents are never cloned (they are immutable), scripts are off, and
 * the comparison operators are ours. The context is built from mingo's base modules because the `mingo`
 * entry point merges its defaults over any operator passed in.
 */
export const MINGO_OPTIONS = {
  idKey: '_id',
  processingMode: ProcessingMode.CLONE_OFF,
  scriptEnabled: false,
  useStrictMode: true,
  failOnError: true,
  context: Context.init({
    accumulator: accumulatorOperators,
    expression: { ...expressionOperators, ...EXTRA_EXPRESSION_OPERATORS } as never,
    pipeline: pipelineOperators,
    query: { ...queryOperators, ...COMPARISON_OPERATORS } as never,
    window: windowOperators,
  }),
};

type ComputeOptions = Parameters<typeof evalExpr>[2];

/**
 * MINGO_OPTIONS as mingo's own ComputeOptions. Given plain options, every Query, Aggregator and evalExpr copies
 * the whole operator context first (~8 µs); given an instance, they share it. mingo does not export the class,
 * so it is taken from the options an expression operator receives.
 */
export const MINGO_COMPUTE: ComputeOptions = (() => {
  const probe = Context.init({ expression: { $options: (_doc: unknown, _expr: unknown, options: ComputeOptions) => options } as never });
  const instance = evalExpr({}, { $options: 1 }, { ...MINGO_OPTIONS, context: probe }) as ComputeOptions;
  return (instance.constructor as unknown as { init(options: typeof MINGO_OPTIONS): ComputeOptions }).init(MINGO_OPTIONS);
})();

const MATCH_ALL: Matcher = () => true;

/** Turns mingo's messages into mongod's codes and wording for the common cases. */
export function mingoError(error: unknown): CommandError {
  if (error instanceof CommandError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const unknown = /unknown (?:top level |query )?operator:? ?'?(\$\w+)/i.exec(message);
  if (unknown) {
    const topLevel = /top level/.test(message);
    return badValue(topLevel ? `unknown top level operator: ${unknown[1]}` : `unknown operator: ${unknown[1]}`);
  }
  return badValue(message);
}

/** Compiles a query filter; throws CommandError (code 2, or 27 for `$text`) for filters mongod would reject. */
export function compileFilter(filter: unknown): Matcher {
  if (filter === undefined || filter === null) return MATCH_ALL;
  if (!isPlainObject(filter)) throw new CommandError(ErrorCode.TypeMismatch, "'filter' must be an object");
  if (!Object.keys(filter).length) return MATCH_ALL;
  if ('$text' in filter) throw new CommandError(ErrorCode.IndexNotFound, 'text index required for $text query');
  try {
    const query = new Query(filter, MINGO_COMPUTE);
    return (doc) => query.test(doc);
  } catch (error) {
    throw mingoError(error);
  }
}

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

/** The parts of a collection the planner reads. */
export interface Searchable {
  docs: Map<string, Doc>;
  indexes: Map<
    string,
    { fields: string[]; spec: { partialFilterExpression?: unknown }; entries: Map<string, Set<string>>; leading?: Map<string, Set<string>> }
  >;
}

/**
 * Documents that may match `filter`, using the `_id` map or an index whose (first) field has an equality condition
 * (at the top level or in a clause of a top-level `$and`) so that point lookups never scan. Every candidate must
 * still be tested unless `exact` is true.
 */
function candidates(collection: Searchable, filter: Doc | undefined): { docs: Iterable<Doc>; exact: boolean } {
  const docs = filter && lookup(collection, filter);
  if (!docs) return { docs: collection.docs.values(), exact: false };
  // An _id equality alone needs no test.
  return { docs, exact: Object.keys(filter).length === 1 && equalityValues(filter._id) !== undefined };
}

/** The documents an equality on `_id` or on an index's (first) field allows, or undefined when none applies. */
function lookup(collection: Searchable, filter: Doc): Doc[] | undefined {
  const ids = equalityValues(filter._id);
  if (ids) {
    const docs: Doc[] = [];
    const seen = new Set<string>();
    for (const id of ids) {
      const key = canonicalKey(id);
      const doc = collection.docs.get(key);
      if (doc && !seen.has(key)) {
        seen.add(key);
        docs.push(doc);
      }
    }
    if (ids.length > 1) docs.sort((a, b) => compareValues(a._id, b._id));
    return docs;
  }
  const indexed = indexedCandidates(collection, filter);
  if (indexed) return indexed;
  if (!Array.isArray(filter.$and)) return undefined;
  // The clause that leaves the fewest documents (a filtered search checks `{$and: [filter, {id: {$in: few}}]}`).
  let fewest: Doc[] | undefined;
  for (const clause of filter.$and) {
    const docs = isPlainObject(clause) ? lookup(collection, clause) : undefined;
    if (docs && (!fewest || docs.length < fewest.length)) fewest = docs;
  }
  return fewest;
}

/** The documents an index lists for an equality on its (first) field, or undefined when no index applies. */
function indexedCandidates(collection: Searchable, filter: Doc): Doc[] | undefined {
  // A single-field index first (its entries are exactly the field's values), else the leading field of a compound one.
  const usable = [...collection.indexes.values()]
    .filter((index) => !index.spec.partialFilterExpression)
    .sort((a, b) => a.fields.length - b.fields.length);
  for (const index of usable) {
    const entries = index.fields.length === 1 ? index.entries : index.leading;
    if (!entries) continue;
    const values = equalityValues(filter[index.fields[0]]);
    if (!values) continue;
    const ids = new Set<string>();
    for (const value of values) for (const id of entries.get(canonicalKey(value)) ?? []) ids.add(id);
    const docs: Doc[] = [];
    for (const id of ids) docs.push(collection.docs.get(id)!);
    return docs;
  }
  return undefined;
}

/** A comparator for a sort specification, with mongod's rule for arrays (min element ascending, max descending). */
function compileSort(sort: unknown): ((a: Doc, b: Doc) => number) | undefined {
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
  if (!keys.length) return undefined;
  const sortValue = (doc: Doc, path: string, dir: number): unknown => {
    const values = pathValues(doc, path);
    if (values.length === 1) return values[0];
    return values.reduce((best, value) => (compareValues(value, best) * dir < 0 ? value : best));
  };
  return (a, b) => {
    for (const { path, dir } of keys) {
      const order = compareValues(sortValue(a, path, dir), sortValue(b, path, dir));
      if (order) return order * dir;
    }
    return 0;
  };
}

export interface FindSpec {
  filter?: Doc;
  sort?: Doc;
  skip?: number;
  limit?: number;
}

/** Matching documents in result order (filter, sort, skip, limit). Returned documents are the stored ones: never mutate. */
export function findDocuments(collection: Searchable | undefined, spec: FindSpec): Doc[] {
  if (!collection) {
    compileFilter(spec.filter);
    return [];
  }
  const match = compileFilter(spec.filter);
  // { $natural: ±1 } is storage order, which is insertion order here.
  const natural = spec.sort && Object.keys(spec.sort).length === 1 ? spec.sort.$natural : undefined;
  const order = natural === undefined ? compileSort(spec.sort) : undefined;
  const skip = spec.skip ?? 0;
  const limit = spec.limit && spec.limit > 0 ? spec.limit : Infinity;
  const { docs, exact } = candidates(collection, spec.filter);
  const out: Doc[] = [];
  if (natural === -1) {
    for (const doc of docs) if (exact || match(doc)) out.push(doc);
    return out.reverse().slice(skip, skip + limit);
  }
  if (!order) {
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
  for (const doc of docs) if (exact || match(doc)) out.push(doc);
  out.sort(order);
  return out.slice(skip, skip + limit);
}
