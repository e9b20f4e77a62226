/**
 * Expression operators over int64 and decimal values. mingo's arithmetic accepts only JS numbers and dates, and its
 * comparisons order a `Long` or `Decimal128` as an object, so an expression over a value another driver stored as
 * int64 (a counter, an id) failed with "must resolve to array of numbers" or compared wrongly. These operators take
 * over only when an operand is such a value; every other call goes to mingo's own operator unchanged. Update
 * operators (`$inc`, `$mul`) share the arithmetic: {@link wideArithmetic}.
 */
import { evalExpr } from 'mingo/core';
import * as accumulatorOperators from 'mingo/operators/accumulator';
import * as expressionOperators from 'mingo/operators/expression';
import { Decimal128, Int32, Long } from 'bson';
import { compareValues, isNumeric, toNumber, type Doc } from './values';

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

/** A finite number as coefficient × 10^exponent: decimals computed through doubles were inexact (2.2 + 1.1). */
interface Exact {
  coefficient: bigint;
  exponent: number;
}

function exact(value: unknown): Exact | undefined {
  if (value instanceof Long) return { coefficient: BigInt(value.toString()), exponent: 0 };
  const text = value instanceof Decimal128 ? value.toString() : String(toNumber(value));
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!match) return undefined; // NaN, Infinity
  const [, sign, whole, fraction = '', exponent = '0'] = match;
  return { coefficient: BigInt(`${sign}${whole}${fraction}`), exponent: Number(exponent) - fraction.length };
}

const toDecimal = ({ coefficient, exponent }: Exact): Decimal128 =>
  Decimal128.fromStringWithRounding(`${coefficient}E${exponent}`);

/** Both coefficients at the smaller exponent. */
function aligned(a: Exact, b: Exact): [bigint, bigint, number] {
  const exponent = Math.min(a.exponent, b.exponent);
  return [
    a.coefficient * 10n ** BigInt(a.exponent - exponent),
    b.coefficient * 10n ** BigInt(b.exponent - exponent),
    exponent,
  ];
}

/** Digits kept beyond a decimal's 34 when dividing, so that rounding to 34 sees the true quotient. */
const DIVISION_DIGITS = 40;

function exactArithmetic(a: Exact, b: Exact, op: WideOperation): Exact {
  if ((op === 'divide' || op === 'mod') && b.coefficient === 0n) throw new Error(`can't $${op} by zero`);
  switch (op) {
    case 'add':
    case 'subtract': {
      const [x, y, exponent] = aligned(a, b);
      return { coefficient: op === 'add' ? x + y : x - y, exponent };
    }
    case 'multiply':
      return { coefficient: a.coefficient * b.coefficient, exponent: a.exponent + b.exponent };
    case 'mod': {
      const [x, y, exponent] = aligned(a, b);
      return { coefficient: x % y, exponent }; // the dividend's sign, as fmod
    }
    case 'divide': {
      let coefficient = (a.coefficient * 10n ** BigInt(DIVISION_DIGITS)) / b.coefficient;
      let exponent = a.exponent - b.exponent - DIVISION_DIGITS;
      // Back to the ideal exponent where the quotient is exact (10/4 is 2.5, not 2.500…0).
      while (exponent < a.exponent - b.exponent && coefficient % 10n === 0n) {
        coefficient /= 10n;
        exponent += 1;
      }
      return { coefficient, exponent };
    }
  }
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

export type WideOperation = 'add' | 'subtract' | 'multiply' | 'divide' | 'mod';

/**
 * Two numbers of which one is an int64 or a decimal, with mongod's result type: a decimal makes the result an exact
 * decimal; integers with an int64 give an exact int64 (a quotient is a double), or `undefined` when it overflows
 * (expressions then fall back to a double, updates fail); a fractional double makes it a double.
 */
export function wideArithmetic(a: unknown, b: unknown, op: WideOperation): unknown {
  const x = exact(a);
  const y = exact(b);
  if (x && y && (a instanceof Decimal128 || b instanceof Decimal128)) return toDecimal(exactArithmetic(x, y, op));
  if (x && y && op !== 'divide' && isIntegral(a) && isIntegral(b)) {
    const { coefficient } = exactArithmetic(x, y, op);
    return coefficient < INT64_MIN || coefficient > INT64_MAX ? undefined : Long.fromBigInt(coefficient);
  }
  return doubleArithmetic(a, b, op);
}

function doubleArithmetic(a: unknown, b: unknown, op: WideOperation): number {
  const [p, q] = [toNumber(a)!, toNumber(b)!];
  if ((op === 'divide' || op === 'mod') && q === 0) throw new Error(`can't $${op} by zero`);
  return { add: p + q, subtract: p - q, multiply: p * q, divide: p / q, mod: p % q }[op];
}

/**
 * `$add`/`$subtract`/`$multiply`/`$divide`/`$mod` with an int64 or decimal operand (see wideArithmetic); an int64
 * overflow becomes a double, as in mongod. Dates and every other call are mingo's.
 */
function arithmetic(name: string, op: WideOperation): Operator {
  const original = mingo[name];
  return (doc, expr, options) => {
    const values = evalExpr(doc, expr, options as Options);
    if (!Array.isArray(values) || !values.some(isWide)) return original(doc, expr, options);
    if (values.some((value) => value === null || value === undefined)) return null;
    if (values.some((value) => value instanceof Date)) return original(doc, narrowed(values), options);
    if (!values.every(isNumeric)) throw new Error(`${name} only supports numeric types`);
    return values.reduce((a, b) => wideArithmetic(a, b, op) ?? doubleArithmetic(a, b, op));
  };
}

/** A decimal's integer part, moved by `step(remainder)` (-1, 0 or 1) for floor and ceiling. */
function integral(step: (remainder: bigint) => bigint) {
  return ({ coefficient, exponent }: Exact): Exact => {
    if (exponent >= 0) return { coefficient, exponent };
    const scale = 10n ** BigInt(-exponent);
    return { coefficient: coefficient / scale + step(coefficient % scale), exponent: 0 };
  };
}

/**
 * `$abs`/`$ceil`/`$floor`/`$trunc` of an int64 or decimal keep its type, exact; with a place argument other than 0
 * the value is narrowed and mingo computes.
 */
function rounding(name: string, onDecimal: (value: Exact) => Exact, onLong: (value: Long) => Long): Operator {
  const original = mingo[name];
  return (doc, expr, options) => {
    const operands = Array.isArray(expr) ? expr : [expr];
    const value = evalExpr(doc, operands[0], options as Options);
    if (!isWide(value)) return original(doc, expr, options);
    if (operands.length > 1 && toNumber(evalExpr(doc, operands[1], options as Options)) !== 0) {
      return original(doc, [literal(toNumber(value)), operands[1]], options);
    }
    if (value instanceof Long) return onLong(value);
    const decimal = exact(value);
    return decimal ? toDecimal(onDecimal(decimal)) : value; // NaN and infinities stay as they are
  };
}

function absolute(value: Long): Long {
  if (value.equals(Long.MIN_VALUE)) throw new Error("can't take $abs of long long min");
  return value.isNegative() ? value.negate() : value;
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
  $add: arithmetic('$add', 'add'),
  $subtract: arithmetic('$subtract', 'subtract'),
  $multiply: arithmetic('$multiply', 'multiply'),
  $divide: arithmetic('$divide', 'divide'),
  $mod: arithmetic('$mod', 'mod'),
  $abs: rounding(
    '$abs',
    ({ coefficient, exponent }) => ({ coefficient: coefficient < 0n ? -coefficient : coefficient, exponent }),
    absolute,
  ),
  $ceil: rounding(
    '$ceil',
    integral((remainder) => (remainder > 0n ? 1n : 0n)),
    (value) => value,
  ),
  $floor: rounding(
    '$floor',
    integral((remainder) => (remainder < 0n ? -1n : 0n)),
    (value) => value,
  ),
  $trunc: rounding(
    '$trunc',
    integral(() => 0n),
    (value) => value,
  ),
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
