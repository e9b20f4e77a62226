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
import { Authorized, buildSchema, Query, Resolver } from 'type-graphql';
import { authChecker, rootFieldRoles } from '../../src/auth/auth-checker';
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

describe('roles', () => {
  it('every Query, Mutation and Subscription field declares exactly one role', async () => {
    const schema = await buildAppSchema();
    const roles = rootFieldRoles(schema, resolvers);
    const all = [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()].flatMap((type) =>
      Object.keys(type?.getFields() ?? {}).map((field) => `${type!.name}.${field}`),
    );
    expect([...roles.keys()].sort()).toEqual(all.sort());
    // The decisions: queries are for readers, deletes, re-embedding, backups and key management for admins only.
    const admin = [...roles].filter(([, role]) => role === 'admin').map(([name]) => name);
    expect(admin.sort()).toEqual([
      'Mutation.backupDataDir',
      'Mutation.createApiKey',
      'Mutation.deleteExperience',
      'Mutation.deleteInsight',
      'Mutation.deleteSession',
      'Mutation.reembed',
      'Mutation.revokeApiKey',
      'Query.apiKeys',
    ]);
    for (const [name, role] of roles)
      if (name.startsWith('Query.') && name !== 'Query.apiKeys') expect(role).toBe('reader');
    expect(roles.get('Mutation.deleteSessionMetadataKeys')).toBe('writer');
  });

  it('a schema with a root field lacking @Authorized is refused, naming the field', async () => {
    @Resolver()
    class Unguarded {
      @Query(() => String)
      open(): string {
        return 'x';
      }
      @Authorized('reader')
      @Query(() => String)
      guarded(): string {
        return 'x';
      }
    }
    const schema = await buildSchema({ resolvers: [Unguarded], validate: false, authChecker });
    expect(() => rootFieldRoles(schema, [Unguarded])).toThrow(/Query\.open$/);
  });

  describe('over HTTP, each role gets exactly what it should', () => {
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

    it('a writer cannot delete: the session is still there', async () => {
      const created = await postGraphQL(
        url,
        { query: 'mutation { createSession(input: {}) { sessionId } }' },
        KEYS.writer,
      );
      const id = created.body.data.createSession.sessionId;
      const denied = await postGraphQL(url, { query: `mutation { deleteSession(id: "${id}") }` }, KEYS.writer);
      expect(denied.body.errors[0].extensions.code).toBe('FORBIDDEN');
      const read = await postGraphQL(url, { query: `{ session(id: "${id}") { sessionId } }` }, KEYS.reader);
      expect(read.body.data.session.sessionId).toBe(id);
    });

    it('the fast path enforces roles as Apollo does (same resolvers), counted by /metrics', async () => {
      const metrics = async () =>
        ((await (await fetch(url.replace('/graphql', '/metrics'))).json()) as { graphqlFastPath: number })
          .graphqlFastPath;
      const before = await metrics();
      const denied = await postGraphQL(url, { query: '{ apiKeys { id } }' }, KEYS.reader);
      expect(await metrics()).toBe(before + 1);
      expect(denied.body).toEqual({
        errors: [expect.objectContaining({ extensions: { code: 'FORBIDDEN' }, path: ['apiKeys'] })],
        data: null,
      });
      const allowed = await postGraphQL(url, { query: '{ apiKeys { id } }' }, KEYS.admin);
      expect(await metrics()).toBe(before + 2);
      expect(allowed.body).toEqual({ data: { apiKeys: expect.any(Array) } });
    });

    it('a missing or wrong key is UNAUTHENTICATED (401)', async () => {
      for (const key of [undefined, 'key-x', `${KEYS.admin}x`]) {
        const { status, body } = await postGraphQL(url, { query: '{ serverInfo { version } }' }, key);
        expect(status).toBe(401);
        expect(body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
      }
    });
  });
});
