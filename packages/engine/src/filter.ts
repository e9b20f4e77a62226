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
import { $addFields } from './mingo-fields';
import { Binary } from 'bson';
import { checkDeadline } from './deadline';
import { CommandError, ErrorCode, badValue } from './errors';
import { LinearRegExp, mongoRegExp } from './regex';
import { bsonSize, bsonTypeName, compareValues, isPlainObject, ownField, typeRank, type Doc } from './values';
import { WIDE_NUMBER_OPERATORS } from './wide-numbers';

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
      for (const item of current) if (isPlainObject(item)) walk(ownField(item, segment), i + 1);
      if (!current.length) out.push(undefined);
      return;
    }
    walk(isPlainObject(current) ? ownField(current, segment) : undefined, i + 1);
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

/** A query value with its regex (mingo's Query copies the filter into plain RegExps) matching in linear time. */
const linear = (value: unknown): unknown => (value instanceof RegExp ? mongoRegExp(value) : value);

/** Lists longer than this look their strings up in a set: `{ id: { $in: [10k ids] } }` costs one lookup per value. */
const SET_LOOKUP_MIN_ITEMS = 16;

function inList(selector: string, value: unknown, options?: OperatorOptions) {
  if (!Array.isArray(value)) throw badValue('$in needs an array');
  const order = stringOrder(options?.collation);
  const items = value.map(linear);
  if (order !== undefined || items.length < SET_LOOKUP_MIN_ITEMS) {
    return (doc: Doc) =>
      queryValues(doc, selector).some((candidate) => items.some((item) => equalsQueryValue(candidate, item, order)));
  }
  // Without a collation a string equals only the same string, and no value of another type equals a string.
  const strings = new Set(items.filter((item): item is string => typeof item === 'string'));
  const others = items.filter((item) => typeof item !== 'string');
  return (doc: Doc) =>
    queryValues(doc, selector).some(
      (candidate) =>
        (typeof candidate === 'string' && strings.has(candidate)) ||
        others.some((item) => equalsQueryValue(candidate, item, order)),
    );
}

const equals = (selector: string, value: unknown, options?: OperatorOptions) => {
  const order = stringOrder(options?.collation);
  const item = linear(value);
  return (doc: Doc) => queryValues(doc, selector).some((candidate) => equalsQueryValue(candidate, item, order));
};

const matchesRegex = (selector: string, value: unknown) => {
  const pattern = mongoRegExp(value as RegExp);
  return (doc: Doc) =>
    queryValues(doc, selector).some((candidate) => typeof candidate === 'string' && pattern.test(candidate));
};

/**
 * `$all` as mongod reads it: every item matches as an equality (a regex as `$regex`) or an `$elemMatch`. mingo's
 * would test regexes with a backtracking RegExp, and refuses a field that is not an array.
 */
function all(selector: string, value: unknown, options?: OperatorOptions) {
  if (!Array.isArray(value)) throw badValue('$all needs an array');
  if (!value.length) return () => false;
  const tests = value.map((item) =>
    isPlainObject(item) && Object.keys(item)[0] === '$elemMatch'
      ? (queryOperators.$elemMatch as never as typeof equals)(selector, item.$elemMatch, options)
      : item instanceof RegExp
        ? matchesRegex(selector, item)
        : equals(selector, item, options),
  );
  return (doc: Doc) => tests.every((test) => test(doc));
}

/**
 * Comparison operators with mongod's semantics over bson values: numbers compare across number/Long/
 * Decimal128, values compare only within their BSON type bracket, and field order matters in documents
 * (mingo's own versions compare bson wrapper classes by their string form). Regexes match in linear time.
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
  // mingo's would test with the RegExp it built from `$regex` and `$options`, which backtracks.
  $regex: matchesRegex,
  $all: all,
  $nin: (selector: string, value: unknown, options?: OperatorOptions) => {
    const found = inList(selector, value, options);
    return (doc: Doc) => !found(doc);
  },
};

type ExpressionOperator = (doc: Doc, expr: unknown, options: never) => unknown;

/**
 * The matches `$regexFind` (limit 1) and `$regexFindAll` report, in linear time; null for a null or missing input.
 * mingo's versions compile a backtracking RegExp and loop forever on an empty match.
 */
function regexSearch(name: string, doc: Doc, expr: unknown, options: never, limit: number) {
  const args = evalExpr(doc, expr, options);
  if (!isPlainObject(args))
    throw new CommandError(51103, `${name} expects an object of named arguments but found: ${bsonTypeName(args)}`);
  const { input, regex, options: flags } = args;
  if (input === null || input === undefined) return null;
  if (typeof input !== 'string') throw new CommandError(51104, `${name} needs 'input' to be of type string`);
  if (typeof regex !== 'string' && !(regex instanceof RegExp))
    throw new CommandError(51105, `${name} needs 'regex' to be of type string or regex`);
  if (flags !== undefined && flags !== null && typeof flags !== 'string')
    throw new CommandError(51106, `${name} needs 'options' to be of type string`);
  const pattern =
    regex instanceof RegExp
      ? flags
        ? new LinearRegExp(regex.source, mongoRegExp(regex).mongoOptions + flags)
        : mongoRegExp(regex)
      : new LinearRegExp(regex, flags ?? '');
  return pattern.findAll(input, limit);
}

/** Expression operators mongod has and mingo lacks, and those whose mingo versions would backtrack. */
const EXTRA_EXPRESSION_OPERATORS: Record<string, ExpressionOperator> = {
  $regexMatch: (doc, expr, options) => (regexSearch('$regexMatch', doc, expr, options, 1)?.length ?? 0) > 0,
  $regexFind: (doc, expr, options) => regexSearch('$regexFind', doc, expr, options, 1)?.[0] ?? null,
  $regexFindAll: (doc, expr, options) => regexSearch('$regexFindAll', doc, expr, options, Infinity) ?? [],
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
    expression: { ...expressionOperators, ...EXTRA_EXPRESSION_OPERATORS, ...WIDE_NUMBER_OPERATORS } as never,
    pipeline: { ...pipelineOperators, $addFields, $set: $addFields } as never,
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

/**
 * `value` with every regex in it as mongod reads it (see mongoRegExp), matching in linear time; copied only where one
 * changes.
 */
export function withMongoRegexes<T>(value: T): T {
  if (value instanceof RegExp) return mongoRegExp(value) as T;
  // mingo would compile `$regex` with `$options` itself, as a RegExp that knows no `x`.
  if (
    isPlainObject(value) &&
    '$regex' in value &&
    (typeof value.$regex === 'string' || value.$regex instanceof RegExp)
  ) {
    const { $regex: pattern, $options: options, ...rest } = value;
    const source = pattern instanceof RegExp ? pattern.source : pattern;
    const flags = pattern instanceof RegExp ? mongoRegExp(pattern).mongoOptions : '';
    if (options !== undefined && typeof options !== 'string') throw badValue('$options has to be a string');
    return { ...withMongoRegexes(rest), $regex: new LinearRegExp(source, flags + (options ?? '')) } as T;
  }
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
    return (doc) => {
      checkDeadline();
      return query.test(doc);
    };
  } catch (error) {
    throw mingoError(error);
  }
}
