import 'reflect-metadata';
import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isLeafType,
  isListType,
  isNonNullType,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLSchema,
} from 'graphql';
import { rootFieldRoles } from '../../src/auth/auth-checker';
import { allows, ROLES, type Role } from '../../src/auth/caller';
import { buildAppSchema, resolvers } from '../../src/schema';
import { createTestApp, postGraphQL, type TestApp } from '../support/app';

/** A value of `type` that coerces (required input fields filled, recursively); what it names need not exist. */
function sample(type: GraphQLInputType): unknown {
  if (isNonNullType(type)) return sample(type.ofType);
  if (isListType(type)) return [sample(type.ofType)];
  if (isInputObjectType(type)) {
    const fields = Object.values(type.getFields()).filter((field) => isNonNullType(field.type));
    return Object.fromEntries(fields.map((field) => [field.name, sample(field.type)]));
  }
  if (isEnumType(type)) return type.getValues()[0].name;
  const scalar: Record<string, unknown> = {
    ID: 'x',
    String: 'x',
    Int: 1,
    Float: 1,
    Boolean: true,
    DateTimeISO: '2026-01-01T00:00:00.000Z',
    JSONObject: {},
    JSON: {},
  };
  if (!(type.name in scalar)) throw new Error(`no sample for scalar ${type.name}`);
  return scalar[type.name];
}

/** An operation calling `field` alone, with sample values for its required arguments, selecting `__typename`. */
function operationFor(kind: 'query' | 'mutation', field: GraphQLField<unknown, unknown>) {
  const required = field.args.filter(
    (arg: GraphQLArgument) => isNonNullType(arg.type) && arg.defaultValue === undefined,
  );
  const declared = required.map((arg) => `$${arg.name}: ${arg.type.toString()}`).join(', ');
  const passed = required.map((arg) => `${arg.name}: $${arg.name}`).join(', ');
  const selection = isLeafType(getNamedType(field.type)) ? '' : ' { __typename }';
  return {
    query: `${kind} Check${declared ? `(${declared})` : ''} { ${field.name}${passed ? `(${passed})` : ''}${selection} }`,
    variables: Object.fromEntries(required.map((arg) => [arg.name, sample(arg.type)])),
  };
}

function rootFields(schema: GraphQLSchema) {
  return [
    ...Object.values(schema.getQueryType()?.getFields() ?? {}).map((field) => ({ kind: 'query' as const, field })),
    ...Object.values(schema.getMutationType()?.getFields() ?? {}).map((field) => ({
      kind: 'mutation' as const,
      field,
    })),
  ];
}

// Every root operation run by every role over HTTP (~150 operations, several seconds): out of the quick suite;
// roles.test.ts keeps the schema walk and the HTTP checks of single operations.
describe('roles over HTTP: each role gets exactly what it should', () => {
  const KEYS: Record<Role, string> = { reader: 'key-r', writer: 'key-w', admin: 'key-a' };
  let app: TestApp;
  let url: string;
  let schema: GraphQLSchema;
  let roles: Map<string, Role>;

  beforeAll(async () => {
    app = await createTestApp({ config: { apiKeys: ROLES.map((role) => `${KEYS[role]}:${role}`) } });
    url = await app.server.listen(0, '127.0.0.1');
    schema = await buildAppSchema();
    roles = rootFieldRoles(schema, resolvers);
  });
  afterAll(() => app.close());

  it.each(ROLES)('%s: FORBIDDEN exactly where its role is below the field’s', async (role) => {
    const outcomes: string[] = [];
    const fields = rootFields(schema);
    const answers = await Promise.all(
      fields.map(({ kind, field }) => postGraphQL(url, operationFor(kind, field), KEYS[role])),
    );
    for (const [index, { kind, field }] of fields.entries()) {
      const required = roles.get(`${kind === 'query' ? 'Query' : 'Mutation'}.${field.name}`)!;
      const { status, body } = answers[index];
      const codes = (body.errors ?? []).map((error: any) => error.extensions?.code);
      expect(codes).not.toContain('GRAPHQL_VALIDATION_FAILED');
      expect(codes).not.toContain('BAD_REQUEST');
      // Variables that do not coerce stop the operation before any resolver: such a case would prove nothing.
      expect((body.errors ?? []).filter((error: any) => error.message.startsWith('Variable "$'))).toEqual([]);
      const forbidden = codes.includes('FORBIDDEN');
      outcomes.push(`${field.name}: ${forbidden ? 'FORBIDDEN' : 'ran'}`);
      expect({ field: field.name, forbidden }).toEqual({ field: field.name, forbidden: !allows(role, required) });
      if (forbidden) {
        expect(status).toBe(200);
        expect(body.errors[0].message).toContain(`requires the ${required} role`);
      }
    }
    expect(outcomes.length).toBeGreaterThan(40);
  });
});
