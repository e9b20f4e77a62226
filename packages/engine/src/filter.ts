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

export type StringOrder = (a: string, b: string) => number;

/** What mingo hands a query operator: the options of its Query, which carry the command's collation if any. */
type OperatorOptions = { collation?: Doc } | undefined;

const collators = new Map<string, StringOrder>();

/**
 * The string order of a collation spec that parseCollation accepted (locale, strength 1–3), through ICU as mongod;
 * undefined for none. Collators are cached: building one costs far more than a query.
 */
export function stringOrder(collation: Doc | undefined): StringOrder | undefined {
  if (!collation) return undefined;
  const key = `${String(collation.locale)}/${String(collation.strength ?? 3)}`;
  let order = collators.get(key);
  if (!order) {
    const collator = new Intl.Collator(String(collation.locale).replace(/_/g, '-'), {
      sensitivity: SENSITIVITY[Number(collation.strength ?? 3)],
      usage: 'sort',
    });
    order = (a, b) => collator.compare(a, b);
    collators.set(key, order);
  }
  return order;
}

/** ICU strengths 1–3 as Intl sensitivities: base letters; plus accents; plus case. */
const SENSITIVITY: Record<number, Intl.CollatorOptions['sensitivity']> = { 1: 'base', 2: 'accent', 3: 'variant' };

/** Collation fields mongod accepts, at the values that change nothing beyond `locale` and `strength`. */
const COLLATION_DEFAULTS: Record<string, unknown> = {
  caseLevel: false,
  caseFirst: 'off',
  numericOrdering: false,
  alternate: 'non-ignorable',
  maxVariable: 'punct',
  normalization: false,
  backwards: false,
};

/**
 * A command's (or statement's) `collation`: undefined for none or `{locale: "simple"}`, else the spec. The engine
 * implements `locale` with `strength` 1–3 for string comparisons in filters, sorts and distinct; anything else is
 * refused with NotImplemented (238) rather than answered with another order.
 */
export function parseCollation(value: unknown): Doc | undefined {
  if (value === undefined) return undefined;
  if (!isPlainObject(value))
    throw new CommandError(
      ErrorCode.TypeMismatch,
      `BSON field 'collation' is the wrong type '${bsonTypeName(value)}', expected type 'object'`,
    );
  if (value.locale === undefined)
    throw new CommandError(40414, "BSON field 'collation.locale' is missing but a required field");
  if (typeof value.locale !== 'string')
    throw new CommandError(
      ErrorCode.TypeMismatch,
      `BSON field 'collation.locale' is the wrong type '${bsonTypeName(value.locale)}', expected type 'string'`,
    );
  const refuse = (what: string) =>
    new CommandError(
      ErrorCode.NotImplemented,
      `collation ${what} is not supported by the embedded engine (only locale with strength 1-3)`,
    );
  for (const [field, setting] of Object.entries(value)) {
    if (field === 'locale' || field === 'version') continue;
    if (field === 'strength') {
      const strength = typeof setting === 'number' ? setting : Number(setting?.valueOf());
      if (![1, 2, 3, 4, 5].includes(strength))
        throw badValue(`Field 'strength' must be an integer 1 through 5. Got: ${String(setting)}`);
      if (strength > 3) throw refuse(`strength ${strength}`);
      continue;
    }
    if (!(field in COLLATION_DEFAULTS))
      throw new CommandError(40415, `BSON field 'collation.${field}' is an unknown field.`);
    if (setting !== COLLATION_DEFAULTS[field]) throw refuse(`${field}: ${JSON.stringify(setting)}`);
  }
  if (value.locale === 'simple') return undefined;
  const locale = value.locale.replace(/_/g, '-');
  let supported: string[];
  try {
    supported = Intl.Collator.supportedLocalesOf([locale]);
  } catch {
    supported = [];
  }
  if (!supported.length) throw refuse(`locale '${value.locale}'`);
  return { locale: value.locale, strength: value.strength === undefined ? 3 : Number(value.strength.valueOf()) };
}

/** Query operators whose comparisons honour a collation here; a filter using any other is refused under one. */
const COLLATED_QUERY_OPERATORS = new Set([
  '$eq',
  '$ne',
  '$gt',
  '$gte',
  '$lt',
  '$lte',
  '$in',
  '$nin',
  '$exists',
  '$type',
  '$and',
  '$or',
  '$nor',
  '$not',
  '$regex',
  '$options',
  '$size',
  '$mod',
  '$elemMatch',
  '$comment',
]);

/** Refuses (238) a filter with an operator that would ignore the collation (mingo's $all, $expr...). */
function checkCollatedFilter(value: unknown): void {
  if (Array.isArray(value)) return value.forEach(checkCollatedFilter);
  if (!isPlainObject(value)) return;
  for (const [key, inner] of Object.entries(value)) {
    if (key.startsWith('$') && !COLLATED_QUERY_OPERATORS.has(key)) {
      throw new CommandError(
        ErrorCode.NotImplemented,
        `${key} with a non-simple collation is not supported by the embedded engine`,
      );
    }
    checkCollatedFilter(inner);
  }
}

function equalsQueryValue(candidate: unknown, value: unknown, order?: StringOrder): boolean {
  if (value === null) return isNullish(candidate);
  if (value instanceof RegExp && typeof candidate === 'string') return value.test(candidate);
  return compareValues(candidate, value, order) === 0;
}

function comparator(test: (order: number) => boolean, matchesNull: boolean) {
  return (selector: string, value: unknown, options?: OperatorOptions) => {
    const rank = typeRank(value);
    const order = stringOrder(options?.collation);
    return (doc: Doc) =>
      queryValues(doc, selector).some((candidate) =>
        value === null
          ? matchesNull && isNullish(candidate)
          : typeRank(candidate) === rank && test(compareValues(candidate, value, order)),
      );
  };
}

function inList(selector: string, value: unknown, options?: OperatorOptions) {
  if (!Array.isArray(value)) throw badValue('$in needs an array');
  const order = stringOrder(options?.collation);
  return (doc: Doc) =>
    queryValues(doc, selector).some((candidate) => value.some((item) => equalsQueryValue(candidate, item, order)));
}

const equals = (selector: string, value: unknown, options?: OperatorOptions) => {
  const order = stringOrder(options?.collation);
  return (doc: Doc) => queryValues(doc, selector).some((candidate) => equalsQueryValue(candidate, value, order));
};

/**
 * Comparison operators with mongod's semantics over bson values: numbers compare across number/Long/
 * Decimal128, values compare only within their BSON type bracket, and field order matters in documents
 * (mingo's own versions compare bson wrapper classes by their string form).
 */
const COMPARISON_OPERATORS = {
  $eq: equals,
  $ne: (selector: string, value: unknown, options?: OperatorOptions) => {
    const eq = equals(selector, value, options);
    return (doc: Doc) => !eq(doc);
  },
  $gt: comparator((order) => order > 0, false),
  $gte: comparator((order) => order >= 0, true),
  $lt: comparator((order) => order < 0, false),
  $lte: comparator((order) => order <= 0, true),
  $in: inList,
  $nin: (selector: string, value: unknown, options?: OperatorOptions) => {
    const found = inList(selector, value, options);
    return (doc: Doc) => !found(doc);
  },
};

type ExpressionOperator = (doc: Doc, expr: unknown, options: never) => unknown;

/** Expression operators mongod has and mingo lacks. */
const EXTRA_EXPRESSION_OPERATORS: Record<string, ExpressionOperator> = {
  $bsonSize: (doc, expr, options) => {
    const value = evalExpr(doc, expr, options);
    if (value === null || value === undefined) return null;
    if (!isPlainObject(value))
      throw new CommandError(31393, `$bsonSize requires a document input, found: ${bsonTypeName(value)}`);
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
  const probe = Context.init({
    expression: { $options: (_doc: unknown, _expr: unknown, options: ComputeOptions) => options } as never,
  });
  const instance = evalExpr({}, { $options: 1 }, { ...MINGO_OPTIONS, context: probe }) as ComputeOptions;
  return (instance.constructor as unknown as { init(options: typeof MINGO_OPTIONS): ComputeOptions }).init(
    MINGO_OPTIONS,
  );
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

/**
 * A command's `let` as the variables its expressions see: each value is an expression, evaluated once before the
 * command runs (so `{$rand: {}}` is one number for every document), as mongod does. Undefined without `let`.
 */
export function letVariables(command: Doc, commandName: string): Doc | undefined {
  const spec = command.let;
  if (spec === undefined) return undefined;
  if (!isPlainObject(spec)) {
    throw new CommandError(
      ErrorCode.TypeMismatch,
      `BSON field '${commandName}.let' is the wrong type '${bsonTypeName(spec)}', expected type 'object'`,
    );
  }
  const variables: Doc = {};
  try {
    for (const [name, expression] of Object.entries(spec)) {
      if (!/^[a-z\u0080-\uffff]/.test(name))
        throw new CommandError(16870, `'${name}' starts with an invalid character for a user variable name`);
      variables[name] = evalExpr({}, expression, { ...MINGO_OPTIONS, variables });
    }
  } catch (error) {
    throw mingoError(error);
  }
  return variables;
}

/**
 * Compiles a query filter; throws CommandError (code 2, or 27 for `$text`) for filters mongod would reject.
 * `variables` (a command's `let`) are visible to `$expr` as `$$name`.
 */
export function compileFilter(filter: unknown, variables?: Doc, collation?: Doc): Matcher {
  if (filter === undefined || filter === null) return MATCH_ALL;
  if (!isPlainObject(filter)) throw new CommandError(ErrorCode.TypeMismatch, "'filter' must be an object");
  if (!Object.keys(filter).length) return MATCH_ALL;
  if ('$text' in filter) throw new CommandError(ErrorCode.IndexNotFound, 'text index required for $text query');
  if (collation) checkCollatedFilter(filter);
  try {
    const options =
      variables || collation ? { ...MINGO_OPTIONS, variables, collation: collation as never } : MINGO_COMPUTE;
    const query = new Query(withMongoRegexes(filter), options);
    return (doc) => query.test(doc);
  } catch (error) {
    throw mingoError(error);
  }
}
