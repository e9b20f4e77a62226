/**
 * Expression operators over int64 and decimal values. mingo's arithmetic accepts only JS numbers and dates, and its
 * comparisons order a `Long` or `Decimal128` as an object, so an expression over a value another driver stored as
 * int64 (a counter, an id) failed with "must resolve to array of numbers" or compared wrongly. These operators take
 * over only when an operand is such a value; every other call goes to mingo's own operator unchanged.
 */
import { evalExpr } from 'mingo/core';
import * as accumulatorOperators from 'mingo/operators/accumulator';
import * as expressionOperators from 'mingo/operators/expression';
import { Decimal128, Int32, Long } from 'bson';
import { compareValues, toNumber, type Doc } from './values';

type Options = Parameters<typeof evalExpr>[2];
type Operator = (doc: Doc, expr: unknown, options: never) => unknown;

type MingoOperator = (doc: Doc, expr: unknown, options: Options) => unknown;
const mingo = expressionOperators as unknown as Record<string, MingoOperator>;
const accumulators = accumulatorOperators as unknown as Record<
  string,
  (items: unknown[], expr: unknown, options: Options) => unknown
>;

/**
 * An accumulator used as an expression (`$max`, `$min`, `$sum`): mingo looks up expression operators first, in a
 * `$group` too, where `doc` is the group's documents. `own` answers for evaluated operands holding an int64 or
 * decimal; everything else is mingo's accumulator, called as mingo calls it.
 */
function accumulatorExpression(name: string, own: (values: unknown[]) => unknown): Operator {
  const accumulate = accumulators[name];
  return (doc, expr, options) => {
    if (Array.isArray(doc)) return accumulate(doc, expr, options);
    const value = evalExpr(doc, expr, options as Options);
    if (!Array.isArray(value)) throw new Error(`arguments must resolve to array for ${name}.`);
    const values = Array.isArray(expr) && value.length === 1 && Array.isArray(value[0]) ? value[0] : value;
    return values.some(isWide) ? own(values) : accumulate(value, null, options);
  };
}

const isWide = (value: unknown): value is Long | Decimal128 => value instanceof Long || value instanceof Decimal128;

/** Whether a value is an integer that a Long holds exactly. */
const isIntegral = (value: unknown): boolean =>
  value instanceof Long || value instanceof Int32 || (typeof value === 'number' && Number.isSafeInteger(value));

const literal = (value: unknown) => ({ $literal: value });

/** Plain numbers for mingo; exact only within ±2^53, which is why integral operands take the Long path instead. */
const narrowed = (values: unknown[]) => values.map((value) => literal(isWide(value) ? toNumber(value) : value));

/**
 * `$add`/`$subtract`/`$multiply`: int64 with integers stays an exact int64 (as in mongod); a decimal makes the result
 * decimal; with a fractional double or a date the operands are narrowed to numbers and mingo computes.
 */
function arithmetic(name: '$add' | '$subtract' | '$multiply', fold: (a: Long, b: Long) => Long): Operator {
  const original = mingo[name];
  return (doc, expr, options) => {
    const values = evalExpr(doc, expr, options as Options);
    if (!Array.isArray(values) || !values.some(isWide)) return original(doc, expr, options);
    if (values.some((value) => value instanceof Decimal128)) {
      const result = original(doc, narrowed(values), options);
      return typeof result === 'number' ? Decimal128.fromString(String(result)) : result;
    }
    if (values.every(isIntegral)) {
      return values
        .map((value) => (value instanceof Long ? value : Long.fromNumber(toNumber(value)!)))
        .reduce((a, b) => fold(a, b));
    }
    return original(doc, narrowed(values), options);
  };
}

/** `$max`/`$min`: the extreme value by BSON order, kept as it is stored (an int64 stays one). */
function extreme(sign: 1 | -1) {
  return (values: unknown[]): unknown => {
    let best: unknown = null;
    for (const value of values) {
      if (value === null || value === undefined) continue;
      if (best === null || sign * compareValues(value, best) > 0) best = value;
    }
    return best;
  };
}

/** `$sum`: numbers only (others ignored, as in mongod); exact int64 while every term is integral. */
function sum(values: unknown[]): unknown {
  const terms = values.filter((value) => toNumber(value) !== undefined);
  if (terms.every(isIntegral)) {
    return terms.reduce<Long>(
      (total, value) => total.add(value instanceof Long ? value : Long.fromNumber(toNumber(value)!)),
      Long.ZERO,
    );
  }
  const total = terms.reduce<number>((a, value) => a + toNumber(value)!, 0);
  return terms.some((value) => value instanceof Decimal128) ? Decimal128.fromString(String(total)) : total;
}

/** Expression comparisons by BSON order, exact across int64, decimal and double. */
function comparison(name: string, test: (order: number) => boolean | number): Operator {
  const original = mingo[name];
  return (doc, expr, options) => {
    const values = evalExpr(doc, expr, options as Options);
    if (!Array.isArray(values) || values.length !== 2 || !values.some(isWide)) return original(doc, expr, options);
    return test(compareValues(values[0], values[1]));
  };
}

export const WIDE_NUMBER_OPERATORS: Record<string, Operator> = {
  $add: arithmetic('$add', (a, b) => a.add(b)),
  $subtract: arithmetic('$subtract', (a, b) => a.subtract(b)),
  $multiply: arithmetic('$multiply', (a, b) => a.multiply(b)),
  $max: accumulatorExpression('$max', extreme(1)),
  $min: accumulatorExpression('$min', extreme(-1)),
  $sum: accumulatorExpression('$sum', sum),
  $eq: comparison('$eq', (order) => order === 0),
  $ne: comparison('$ne', (order) => order !== 0),
  $gt: comparison('$gt', (order) => order > 0),
  $gte: comparison('$gte', (order) => order >= 0),
  $lt: comparison('$lt', (order) => order < 0),
  $lte: comparison('$lte', (order) => order <= 0),
  $cmp: comparison('$cmp', (order) => Math.sign(order)),
};
