import { assertInterfaceType, type GraphQLSchema } from 'graphql';
import { Field, ID, InterfaceType } from 'type-graphql';

/** The type of each value `node`/`nodes` return (plain objects do not say which GraphQL type they are). */
const nodeTypes = new WeakMap<object, string>();

/** Marks a value as a Node of the object type named `type`, for the interface's resolveType. */
export function asNode<T extends object>(value: T, type: string): T {
  nodeTypes.set(value, type);
  return value;
}

@InterfaceType({
  description: 'An entity with a global id: `node(id)` fetches it again, and clients normalise their caches by it.',
})
export abstract class Node {
  @Field(() => ID, { description: 'Opaque and stable; unique across all types (the per-type ids stay as they are).' })
  id!: string;
}

/**
 * Gives the schema's Node interface its resolveType. Not through @InterfaceType: type-graphql wraps a resolveType in an
 * async function, and the compiled execution (graphql-jit) takes only a type name, not a promise of one.
 */
export function resolveNodeTypes(schema: GraphQLSchema): void {
  assertInterfaceType(schema.getType('Node')).resolveType = (value) => nodeTypes.get(value as object);
}
