import 'reflect-metadata';
import { Authorized, buildSchema, Query, Resolver } from 'type-graphql';
import { authChecker, rootFieldRoles } from '../../src/auth/auth-checker';
import { ROLES, type Role } from '../../src/auth/caller';
import { buildAppSchema, resolvers } from '../../src/schema';
import { createTestApp, postGraphQL, type TestApp } from '../support/app';
import { scrape } from '../support/metrics';

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
      'Mutation.forget',
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

    beforeAll(async () => {
      app = await createTestApp({ config: { apiKeys: ROLES.map((role) => `${KEYS[role]}:${role}`) } });
      url = await app.server.listen(0, '127.0.0.1');
    });
    afterAll(() => app.close());

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
      const metrics = async () => (await scrape(url)).value('hindsight_graphql_fast_path_total');
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
