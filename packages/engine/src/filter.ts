/**
 * mingo set up as mongod: the options every mingo call takes, mongod's comparison semantics and error codes; and
 * query filters compiled into matchers. The store (validators, partial indexes) and the query planner both use it.
 */
import { Context, ProcessingMode, evalExpr } from 'mingo/core';
import * as accumulatorOperators from 'mingo/operators/accumulator';
import * as expressionOperators from 'mingo/operators/expression';
import * as pipelineOperators from 'mingo/operators/pipeline';
import * as queryOperators from 'mingo/operators/query';
import * as windowOperators from 'mingo/operators/window';
import { Query } from 'mingo/query';
import { Binary } from 'bson';
import { CommandError, ErrorCode, badValue } from './errors';
import { bsonSize, bsonTypeName, compareValues, isPlainObject, typeRank, type Doc } from './values';

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

/** A regex as mongod reads it: the BSON library hands the wire's `s` (dotAll) over as `g`, which no mongod regex has. */
export function mongoRegExp(pattern: RegExp): RegExp {
  if (!pattern.global && !pattern.sticky) return pattern;
  const flags = pattern.flags.replace(/[gys]/g, '') + (pattern.global || pattern.dotAll ? 's' : '');
  return new RegExp(pattern.source, flags);
}

/**
 * `value` with every regex in it as mongod reads it (see mongoRegExp), copied only where one changes: a `g` flag would
 * also make a regex keep its position from one document's test to the next.
 */
export function withMongoRegexes<T>(value: T): T {
  if (value instanceof RegExp) return mongoRegExp(value) as T;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item, i) => {
      const read = withMongoRegexes(item);
      if (read !== item) (copy ??= [...value])[i] = read;
    });
    return (copy ?? value) as T;
  }
  if (isPlainObject(value)) {
    let copy: Doc | undefined;
    for (const key of Object.keys(value)) {
      const read = withMongoRegexes(value[key]);
      if (read !== value[key]) (copy ??= { ...value })[key] = read;
    }
    return (copy ?? value) as T;
  }
  return value;
}

/** Compiles a query filter; throws CommandError (code 2, or 27 for `$text`) for filters mongod would reject. */
export function compileFilter(filter: unknown): Matcher {
  if (filter === undefined || filter === null) return MATCH_ALL;
  if (!isPlainObject(filter)) throw new CommandError(ErrorCode.TypeMismatch, "'filter' must be an object");
  if (!Object.keys(filter).length) return MATCH_ALL;
  if ('$text' in filter) throw new CommandError(ErrorCode.IndexNotFound, 'text index required for $text query');
  try {
    const query = new Query(withMongoRegexes(filter), MINGO_COMPUTE);
    return (doc) => query.test(doc);
  } catch (error) {
    throw mingoError(error);
  }
}
