import { Long } from 'bson';
import { bsonTypeName, compareValues, isPlainObject, markExtension, type Doc } from './values';

/**
 * `$project` stages compiled to closures, for the expressions the server's own pipelines use (field paths,
 * `$map`, `$filter`, `$let`, `$objectToArray`, `$ifNull`, `$size`, `$isArray`, `$slice`, `$arrayElemAt`, `$cond`, comparisons,
 * `$and`/`$or`/`$not`, `$in`, `$type`, `$literal`). mingo interprets an expression tree per document, which was
 * about a third of the engine's time on a session read; a closure tree does the same work without the lookups.
 *
 * Anything else is left to mingo: compiling answers undefined for an operator or form not listed here, and a
 * compiled stage throws {@link NotCompiled} for a value it does not handle (an error case, an array inside an
 * array on a path, a comparison with a missing value), after which the caller runs the stage in mingo instead.
 * The closures only read their input: the documents they get are the stored ones.
 */
export class NotCompiled extends Error {}

/** Bound variables as a chain, innermost first: a `$map` binds one per element without copying the others. */
type Variables = { readonly name: string; readonly value: unknown; readonly outer: Variables } | null;
/** `immutable`: the results will be stored and never mutated (an update's values), see markExtension. */
type Scope = { readonly root: Doc; readonly vars: Variables; readonly immutable?: boolean };

function lookup(vars: Variables, name: string): unknown {
  for (let at = vars; at; at = at.outer) if (at.name === name) return at.value;
  return undefined;
}
type Compiled = (current: unknown, scope: Scope) => unknown;

const notCompiled = (): never => {
  throw new NotCompiled();
};

/**
 * Aggregation field-path semantics: objects are entered by key; an array on the way yields the values found in its
 * objects (missing ones left out). An array inside an array is left to mingo.
 */
function resolvePath(value: unknown, parts: readonly string[], from: number): unknown {
  for (let i = from; i < parts.length; i++) {
    if (Array.isArray(value)) {
      const found: unknown[] = [];
      for (const element of value) {
        if (Array.isArray(element)) notCompiled();
        if (!isPlainObject(element)) continue;
        const inner = resolvePath(element, parts, i);
        if (inner !== undefined) found.push(inner);
      }
      return found;
    }
    if (!isPlainObject(value) || !Object.prototype.hasOwnProperty.call(value, parts[i])) return undefined;
    value = value[parts[i]];
  }
  return value;
}

/** mingo's strict-mode `$type` of a JS number: fractional ones are doubles, integers int or long by range. */
function numberType(value: number): string {
  if (Number.isNaN(value)) return notCompiled();
  if (value % 1 !== 0) return 'double';
  return value >= -0x80000000 && value <= 0x7fffffff ? 'int' : 'long';
}

const isFalsy = (value: unknown): boolean =>
  value === undefined || value === null || value === false || value === 0 || (value instanceof Long && value.isZero());

const VARIABLE_NAME = /^[a-z][A-Za-z0-9_]*$/;

/** The keys of a field path (`$a.b`, not a variable's), or undefined for a path the compiled closures do not read. */
function fieldPathKeys(path: string): string[] | undefined {
  const keys = path.slice(1).split('.');
  return keys.some((key) => !key || key.startsWith('$')) ? undefined : keys;
}

function compilePath(path: string, bound: ReadonlySet<string>): Compiled | undefined {
  if (!path.startsWith('$$')) {
    const parts = fieldPathKeys(path);
    return parts && ((current) => resolvePath(current, parts, 0));
  }
  const [name, ...parts] = path.slice(2).split('.');
  if (parts.some((part) => !part || part.startsWith('$'))) return undefined;
  if (name === 'ROOT') return (_current, scope) => resolvePath(scope.root, parts, 0);
  if (name === 'CURRENT') return (current) => resolvePath(current, parts, 0);
  if (name === 'REMOVE' && !parts.length) return () => undefined;
  if (!bound.has(name)) return undefined;
  return (_current, scope) => resolvePath(lookup(scope.vars, name), parts, 0);
}

/** Fixed-arity operator arguments as compiled expressions, or undefined when the form is not `[a, b, …]` of that size. */
function compileArgs(args: unknown, counts: readonly number[], bound: ReadonlySet<string>): Compiled[] | undefined {
  if (!Array.isArray(args) || !counts.includes(args.length)) return undefined;
  const compiled = args.map((arg) => compileExpression(arg, bound));
  return compiled.every((fn): fn is Compiled => fn !== undefined) ? compiled : undefined;
}

/** A one-operand operator (`{ $op: x }` or `{ $op: [x] }`) applying `apply` to its operand's value. */
function unary(args: unknown, bound: ReadonlySet<string>, apply: (value: unknown) => unknown): Compiled | undefined {
  const [operand] = compileArgs(Array.isArray(args) ? args : [args], [1], bound) ?? [];
  return operand && ((current, scope) => apply(operand(current, scope)));
}

/** An operator of two operands, `apply` on their values. */
function binary(
  args: unknown,
  bound: ReadonlySet<string>,
  apply: (first: unknown, second: unknown) => unknown,
): Compiled | undefined {
  const [first, second] = compileArgs(args, [2], bound) ?? [];
  return first && second && ((current, scope) => apply(first(current, scope), second(current, scope)));
}

const withVariable = (scope: Scope, name: string, value: unknown): Scope => ({
  root: scope.root,
  vars: { name, value, outer: scope.vars },
  immutable: scope.immutable,
});

/** `$map` and `$filter`: `{ input, as, in | cond }` with `as` defaulting to `this`. */
function compileIteration(
  spec: unknown,
  body: 'in' | 'cond',
  bound: ReadonlySet<string>,
): { input: Compiled; as: string; body: Compiled } | undefined {
  if (!isPlainObject(spec) || !Object.keys(spec).every((key) => key === 'input' || key === 'as' || key === body))
    return undefined;
  const as = spec.as ?? 'this';
  if (typeof as !== 'string' || !VARIABLE_NAME.test(as) || !(body in spec)) return undefined;
  const input = compileExpression(spec.input, bound);
  const compiledBody = compileExpression(spec[body], new Set([...bound, as]));
  return input && compiledBody ? { input, as, body: compiledBody } : undefined;
}

/** The larger of `best` and `value` (the later when equal), `value` being a plain number; anything else is mingo's. */
function higher(best: number | null, value: unknown): number {
  if (typeof value !== 'number' || Number.isNaN(value)) return notCompiled();
  return best === null || value >= best ? value : best;
}

/** The `$max` of a list of plain numbers (null for an empty one); anything else is mingo's. */
function maxOfNumbers(list: unknown): number | null {
  if (!Array.isArray(list)) return notCompiled();
  let best: number | null = null;
  for (const value of list) best = higher(best, value);
  return best;
}

const hasOwn = (value: Doc, key: string): boolean => Object.prototype.hasOwnProperty.call(value, key);

/**
 * A field path's parts, each with how to read it from a plain object: a plain property read, unless an object's
 * prototype has the name (`constructor`, `toString`), when only an own property counts.
 */
type PathParts = ReadonlyArray<{ key: string; inherited: boolean }>;

function ownValue(value: Doc, part: PathParts[number]): unknown {
  return !part.inherited || hasOwn(value, part.key) ? value[part.key] : undefined;
}

/**
 * `maxOfNumbers` of the values a field path finds in `list`'s elements from `parts[from]` on, as resolvePath would
 * list them, without building that list.
 */
function maxOfElements(list: unknown[], parts: PathParts, from: number): number | null {
  let best: number | null = null;
  for (const element of list) {
    if (!isPlainObject(element)) {
      if (Array.isArray(element)) notCompiled();
      continue;
    }
    let value = ownValue(element, parts[from]);
    for (let i = from + 1; i < parts.length && value !== undefined; i++) {
      // An array further down would make this element's value a list, which is not a plain number.
      if (Array.isArray(value)) notCompiled();
      value = isPlainObject(value) ? ownValue(value, parts[i]) : undefined;
    }
    if (value !== undefined) best = higher(best, value);
  }
  return best;
}

/**
 * `$max` of a field path, bare or as `{ $ifNull: [path, []] }` (an append's next id: the maximum of an agent's
 * message ids): where the path meets an array, the maximum is taken while walking its elements, without first
 * building the list of their values (an allocation and a pass per write, as long as the agent's messages). The same
 * answers as resolving the path and taking `maxOfNumbers` of it. Undefined for other operands.
 */
function maxAlongPath(operand: unknown): Compiled | undefined {
  const empty = isPlainObject(operand) && Object.keys(operand).length === 1 ? operand.$ifNull : undefined;
  const orEmpty =
    Array.isArray(empty) && empty.length === 2 && Array.isArray(empty[1]) && empty[1].length === 0 ? empty : undefined;
  const path = orEmpty ? orEmpty[0] : operand;
  if (typeof path !== 'string' || !path.startsWith('$') || path.startsWith('$$')) return undefined;
  const keys = fieldPathKeys(path);
  if (!keys) return undefined;
  const parts: PathParts = keys.map((key) => ({ key, inherited: key in Object.prototype }));
  return (current) => {
    let value = current;
    for (let i = 0; i < parts.length && value !== undefined; i++) {
      if (Array.isArray(value)) return maxOfElements(value, parts, i);
      value = isPlainObject(value) ? ownValue(value, parts[i]) : undefined;
    }
    // No array on the way: the path's own value.
    return orEmpty && (value === undefined || value === null) ? null : maxOfNumbers(value);
  };
}

const COMPARISONS: Record<string, (order: number) => boolean> = {
  $eq: (order) => order === 0,
  $ne: (order) => order !== 0,
  $gt: (order) => order > 0,
  $gte: (order) => order >= 0,
  $lt: (order) => order < 0,
  $lte: (order) => order <= 0,
};

function compileOperator(operator: string, args: unknown, bound: ReadonlySet<string>): Compiled | undefined {
  if (operator === '$literal') return () => args;
  if (operator in COMPARISONS) {
    const holds = COMPARISONS[operator];
    return binary(args, bound, (a, b) => {
      // mongod orders missing before null, which the engine's comparison does not tell apart; mingo compares an array
      // the way a query matches it, mongod as a whole: both left to mingo, as they were.
      if (a === undefined || b === undefined || Array.isArray(a) || Array.isArray(b)) notCompiled();
      return holds(compareValues(a, b));
    });
  }
  switch (operator) {
    case '$and':
    case '$or': {
      const compiled = compileArgs(args, Array.isArray(args) ? [args.length] : [], bound);
      if (!compiled) return undefined;
      return operator === '$and'
        ? (current, scope) => compiled.every((fn) => !isFalsy(fn(current, scope)))
        : (current, scope) => compiled.some((fn) => !isFalsy(fn(current, scope)));
    }
    case '$not':
      return unary(args, bound, isFalsy);
    case '$ifNull': {
      const compiled = compileArgs(args, Array.isArray(args) && args.length >= 2 ? [args.length] : [], bound);
      if (!compiled) return undefined;
      return (current, scope) => {
        for (let i = 0; i < compiled.length - 1; i++) {
          const value = compiled[i](current, scope);
          if (value !== undefined && value !== null) return value;
        }
        return compiled[compiled.length - 1](current, scope);
      };
    }
    case '$cond': {
      const parts = Array.isArray(args)
        ? args
        : isPlainObject(args) && Object.keys(args).length === 3
          ? [args.if, args.then, args.else]
          : undefined;
      const compiled = compileArgs(parts, [3], bound);
      if (!compiled) return undefined;
      const [test, then, otherwise] = compiled;
      return (current, scope) => (isFalsy(test(current, scope)) ? otherwise(current, scope) : then(current, scope));
    }
    case '$type':
      // JS numbers do not say whether they were stored as int, long or double: named by mingo's (strict) rule.
      return unary(args, bound, (value) =>
        typeof value === 'number' ? numberType(value) : typeof value === 'bigint' ? notCompiled() : bsonTypeName(value),
      );
    case '$add': {
      // Plain numbers only (int64, decimal and dates are wide-numbers' and mingo's); a missing operand makes null.
      const compiled = compileArgs(args, Array.isArray(args) ? [args.length] : [], bound);
      if (!compiled) return undefined;
      return (current, scope) => {
        let total = 0;
        let missing = false;
        for (const fn of compiled) {
          const value = fn(current, scope);
          if (typeof value === 'number') total += value;
          else if (value === undefined || value === null) missing = true;
          else notCompiled();
        }
        return missing ? null : total;
      };
    }
    case '$max':
      // The one-operand form over an array of plain numbers (what `{ $max: <array expression> }` reads).
      if (Array.isArray(args)) return undefined;
      return maxAlongPath(args) ?? unary(args, bound, maxOfNumbers);
    case '$concatArrays': {
      // Shares the items, as mingo does: the result is stored beside the arrays it was built from.
      const compiled = compileArgs(args, Array.isArray(args) ? [args.length] : [], bound);
      if (!compiled) return undefined;
      return (current, scope) => {
        const lists = compiled.map((fn) => fn(current, scope));
        if (lists.some((list) => list === undefined || list === null)) {
          if (!lists.every((list) => list === undefined || list === null || Array.isArray(list))) notCompiled();
          return null;
        }
        if (!lists.every(Array.isArray)) notCompiled();
        const result = ([] as unknown[]).concat(...(lists as unknown[][]));
        if (scope.immutable) markExtension(result, lists[0] as unknown[]);
        return result;
      };
    }
    case '$getField': {
      if (!isPlainObject(args) || Object.keys(args).length !== 2 || !('input' in args)) return undefined;
      const field = isPlainObject(args.field) && '$literal' in args.field ? args.field.$literal : args.field;
      if (typeof field !== 'string' || field.startsWith('$')) return undefined;
      return unary([args.input], bound, (input) => {
        // A missing input and prototype names are left to mingo, whose answers differ from a plain lookup's.
        if (!isPlainObject(input)) return notCompiled();
        if (Object.prototype.hasOwnProperty.call(input, field)) return input[field];
        return field in input ? notCompiled() : undefined;
      });
    }
    case '$size':
      return unary(args, bound, (value) => (Array.isArray(value) ? value.length : notCompiled()));
    case '$isArray':
      return unary(args, bound, (value) => Array.isArray(value));
    case '$objectToArray':
      return unary(args, bound, (value) => {
        if (value === undefined || value === null) return null;
        if (!isPlainObject(value)) return notCompiled();
        return Object.keys(value).map((k) => ({ k, v: value[k] }));
      });
    case '$arrayElemAt':
      return binary(args, bound, (list, at) => {
        if (list === undefined || list === null || at === undefined || at === null) return null;
        if (!Array.isArray(list) || typeof at !== 'number' || !Number.isInteger(at)) notCompiled();
        return (list as unknown[])[(at as number) < 0 ? (list as unknown[]).length + (at as number) : (at as number)];
      });
    case '$slice': {
      const compiled = compileArgs(args, [2, 3], bound);
      if (!compiled) return undefined;
      return (current, scope) => {
        const [list, ...numbers] = compiled.map((fn) => fn(current, scope));
        if (list === undefined || list === null) return null;
        if (!Array.isArray(list) || !numbers.every((n) => typeof n === 'number' && Number.isInteger(n))) notCompiled();
        const array = list as unknown[];
        if (numbers.length === 1) {
          const n = numbers[0] as number;
          return n >= 0 ? array.slice(0, n) : array.slice(Math.max(array.length + n, 0));
        }
        const [position, n] = numbers as number[];
        if (n <= 0) notCompiled();
        const start = position < 0 ? Math.max(array.length + position, 0) : position;
        return array.slice(start, start + n);
      };
    }
    case '$in':
      return binary(args, bound, (value, list) => {
        if (!Array.isArray(list) || value === undefined) notCompiled();
        return (list as unknown[]).some((item) => item !== undefined && compareValues(item, value) === 0);
      });
    case '$map': {
      const parts = compileIteration(args, 'in', bound);
      if (!parts) return undefined;
      return (current, scope) => {
        const list = parts.input(current, scope);
        if (list === undefined || list === null) return null;
        if (!Array.isArray(list)) notCompiled();
        return (list as unknown[]).map((item) => parts.body(current, withVariable(scope, parts.as, item)) ?? null);
      };
    }
    case '$filter': {
      const parts = compileIteration(args, 'cond', bound);
      if (!parts) return undefined;
      return (current, scope) => {
        const list = parts.input(current, scope);
        if (list === undefined || list === null) return null;
        if (!Array.isArray(list)) notCompiled();
        return (list as unknown[]).filter((item) => !isFalsy(parts.body(current, withVariable(scope, parts.as, item))));
      };
    }
    case '$let': {
      if (!isPlainObject(args) || Object.keys(args).length !== 2 || !isPlainObject(args.vars) || !('in' in args))
        return undefined;
      const names = Object.keys(args.vars);
      if (!names.every((name) => VARIABLE_NAME.test(name))) return undefined;
      const values = names.map((name) => compileExpression((args.vars as Doc)[name], bound));
      const body = compileExpression(args.in, new Set([...bound, ...names]));
      if (!body || !values.every((fn): fn is Compiled => fn !== undefined)) return undefined;
      return (current, scope) => {
        let vars = scope.vars;
        for (let i = 0; i < names.length; i++) vars = { name: names[i], value: values[i](current, scope), outer: vars };
        return body(current, { root: scope.root, vars, immutable: scope.immutable });
      };
    }
    default:
      return undefined;
  }
}

/** An expression as a closure, or undefined when some part of it is not one this module compiles. */
function compileExpression(expression: unknown, bound: ReadonlySet<string>): Compiled | undefined {
  if (typeof expression === 'string')
    return expression.startsWith('$') ? compilePath(expression, bound) : () => expression;
  if (Array.isArray(expression)) {
    const items = expression.map((item) => compileExpression(item, bound));
    if (!items.every((fn): fn is Compiled => fn !== undefined)) return undefined;
    return (current, scope) => items.map((fn) => fn(current, scope) ?? null);
  }
  if (isPlainObject(expression)) {
    const keys = Object.keys(expression);
    if (keys.length === 1 && keys[0].startsWith('$')) return compileOperator(keys[0], expression[keys[0]], bound);
    if (keys.some((key) => key.startsWith('$') || key.includes('.'))) return undefined;
    const fields = keys.map((key) => compileExpression(expression[key], bound));
    if (!fields.every((fn): fn is Compiled => fn !== undefined)) return undefined;
    return (current, scope) => {
      const out: Doc = {};
      for (let i = 0; i < keys.length; i++) {
        const value = fields[i](current, scope);
        if (value !== undefined) out[keys[i]] = value;
      }
      return out;
    };
  }
  // Numbers, booleans, null, Dates and other bson values are constants.
  return () => expression;
}

/**
 * An update's expression as a function of the document (`$$ROOT` and `$$CURRENT` both the document), or undefined
 * when some part of it is not compiled. The function throws {@link NotCompiled} for a value it leaves to mingo. Its
 * results are to be stored: neither they nor what they share with the document may be mutated afterwards.
 */
export function compileUpdateExpression(expression: unknown): ((doc: Doc) => unknown) | undefined {
  const compiled = compileExpression(expression, new Set());
  return compiled && ((doc) => compiled(doc, { root: doc, vars: null, immutable: true }));
}

/**
 * A `$project` of top-level inclusions and computed fields (`_id` kept unless `_id: 0`) as a function of a
 * document, or undefined when the stage has another form (exclusions, dotted or nested field specs) or an
 * expression this module does not compile. The function throws {@link NotCompiled} for a value it leaves to mingo.
 */
export function compileProject(spec: unknown): ((doc: Doc) => Doc) | undefined {
  if (!isPlainObject(spec)) return undefined;
  let keepId = true;
  const fields: Array<{ name: string; value: Compiled | 'include' }> = [];
  for (const [name, value] of Object.entries(spec)) {
    if (name.includes('.') || name.startsWith('$')) return undefined;
    const flag = typeof value === 'boolean' ? value : typeof value === 'number' ? value !== 0 : undefined;
    if (flag === false) {
      if (name !== '_id') return undefined;
      keepId = false;
      continue;
    }
    if (flag === true) {
      fields.push({ name, value: 'include' });
      continue;
    }
    // Field paths and operators only: an object without an operator is a nested projection here, and literals are left to mingo.
    const isOperator = isPlainObject(value) && Object.keys(value).length === 1 && Object.keys(value)[0].startsWith('$');
    if (!isOperator && !(typeof value === 'string' && value.startsWith('$'))) return undefined;
    const compiled = compileExpression(value, new Set());
    if (!compiled) return undefined;
    fields.push({ name, value: compiled });
  }
  // `{ _id: 0 }` alone excludes `_id` and keeps every other field: an exclusion, left to mingo.
  if (!fields.length) return undefined;
  const idComputed = fields.some((field) => field.name === '_id');
  return (doc) => {
    const out: Doc = {};
    if (keepId && !idComputed && doc._id !== undefined) out._id = doc._id;
    const scope: Scope = { root: doc, vars: null };
    for (const { name, value } of fields) {
      const result =
        value === 'include'
          ? Object.prototype.hasOwnProperty.call(doc, name)
            ? doc[name]
            : undefined
          : value(doc, scope);
      if (result !== undefined) out[name] = result;
    }
    return out;
  };
}
