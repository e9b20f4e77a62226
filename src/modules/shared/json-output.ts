import { GraphQLScalarType, type GraphQLSchema } from 'graphql';
import { Decimal128, Long } from 'mongodb';

/**
 * JSON values straight from the store (metadata, agent state, message content) can hold what the driver decodes as
 * `Long` (an int64 beyond ±2^53; smaller ones arrive as numbers) or `Decimal128`, which JSON.stringify would turn into
 * their internals (`{high, low, unsigned}`, `{$numberDecimal}`). Served as a number when exact, else as a string.
 */
export function jsonValue(value: unknown): unknown {
  if (value instanceof Long) {
    const number = value.toNumber();
    return Number.isSafeInteger(number) ? number : value.toString();
  }
  if (value instanceof Decimal128) return value.toString();
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item = jsonValue(value[i]);
      if (item !== value[i]) (copy ??= value.slice())[i] = item;
    }
    return copy ?? value;
  }
  if (isPlainObject(value)) {
    let copy: Record<string, unknown> | undefined;
    const object = value;
    for (const key in object) {
      const item = jsonValue(object[key]);
      if (item !== object[key]) (copy ??= { ...object })[key] = item;
    }
    return copy ?? value;
  }
  return value;
}

/** graphql-scalars' instances are shared by every schema built in the process: each is wrapped once. */
const wrapped = new WeakSet<GraphQLScalarType>();

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** Makes the schema's JSON scalars serialize through {@link jsonValue}; copies are made only where a value changes. */
export function renderWideNumbers(
  schema: GraphQLSchema,
  scalarNames: readonly string[] = ['JSON', 'JSONObject'],
): void {
  for (const name of scalarNames) {
    const type = schema.getType(name);
    if (!(type instanceof GraphQLScalarType)) throw new Error(`renderWideNumbers: ${name} is not a scalar`);
    if (wrapped.has(type)) continue;
    wrapped.add(type);
    const serialize = type.serialize.bind(type);
    type.serialize = (value: unknown) => serialize(jsonValue(value));
  }
}
