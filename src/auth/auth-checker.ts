import type { GraphQLSchema } from 'graphql';
import { getMetadataStorage, type AuthChecker } from 'type-graphql';
import type { Context } from '../context';
import { ForbiddenError } from '../errors';
import { allows, isRole, type Role } from './caller';

/**
 * The one place roles are checked: type-graphql runs it before every field declaring `@Authorized(role)` (every
 * Query/Mutation/Subscription field: `rootFieldRoles` refuses a schema where one lacks it).
 */
export const authChecker: AuthChecker<Context, Role> = ({ context }, roles) => {
  const required = roles[0];
  if (!allows(context.caller.role, required)) {
    throw new ForbiddenError(`This operation requires the ${required} role; the caller has ${context.caller.role}.`);
  }
  return true;
};

/**
 * The role each root field of `schema` requires (`Query.session` → reader), from the `@Authorized` decorators of
 * `resolverClasses`. Throws naming every root field that declares no single known role.
 */
export function rootFieldRoles(schema: GraphQLSchema, resolverClasses: readonly Function[]): Map<string, Role> {
  const storage = getMetadataStorage();
  const declared = new Map<string, unknown[]>();
  const handlers = [
    ...storage.queries.map((handler) => ({ type: 'Query', handler })),
    ...storage.mutations.map((handler) => ({ type: 'Mutation', handler })),
    ...storage.subscriptions.map((handler) => ({ type: 'Subscription', handler })),
  ];
  for (const { type, handler } of handlers) {
    if (!resolverClasses.includes(handler.target)) continue;
    const roles = storage.authorizedFields.find(
      (field) => field.target === handler.target && field.fieldName === handler.methodName,
    )?.roles;
    declared.set(`${type}.${handler.schemaName}`, roles ?? []);
  }
  const result = new Map<string, Role>();
  const missing: string[] = [];
  for (const type of [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()]) {
    for (const field of Object.keys(type?.getFields() ?? {})) {
      const name = `${type!.name}.${field}`;
      const roles = declared.get(name) ?? [];
      if (roles.length === 1 && isRole(roles[0])) result.set(name, roles[0]);
      else missing.push(name);
    }
  }
  if (missing.length > 0) {
    throw new Error(
      `Root fields without exactly one @Authorized(role) (reader, writer or admin): ${missing.join(', ')}`,
    );
  }
  checkedRoles.set(schema, result);
  return result;
}

/** What {@link rootFieldRoles} found for each schema it checked. */
const checkedRoles = new WeakMap<GraphQLSchema, ReadonlyMap<string, Role>>();

/** The roles of `schema`'s root fields, when `rootFieldRoles` checked it (the app's schema always is). */
export function checkedRootFieldRoles(schema: GraphQLSchema): ReadonlyMap<string, Role> | undefined {
  return checkedRoles.get(schema);
}
