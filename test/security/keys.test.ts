import { API_KEYS_COLLECTION, parseEnvKeys } from '../../src/auth/keys';
import { createTestApp, postGraphQL, type TestApp } from '../support/app';

const CREATE = `mutation Create($role: ApiKeyRole!, $tenant: String!) {
  createApiKey(role: $role, tenant: $tenant) { key apiKey { id role tenant revokedAt } }
}`;

describe('stored API keys (GraphQL management)', () => {
  let app: TestApp;
  let url: string;
  const ADMIN = 'env-admin';

  beforeAll(async () => {
    app = await createTestApp({ config: { apiKeys: [ADMIN, 'env-acme-admin:admin:acme'] } });
    url = await app.server.listen(0, '127.0.0.1');
  });
  afterAll(async () => {
    await app.client.db(`${app.db.databaseName}-acme`).dropDatabase();
    await app.close();
  });

  it('a created key is shown once, stored only as its hash, works with its role, and is refused once revoked', async () => {
    const created = await postGraphQL(url, { query: CREATE, variables: { role: 'reader', tenant: 'acme' } }, ADMIN);
    const { key, apiKey } = created.body.data.createApiKey;
    expect(key).toMatch(/^hs_[A-Za-z0-9_-]{43}$/);
    expect(apiKey).toEqual({ id: key.slice(0, 11), role: 'reader', tenant: 'acme', revokedAt: null });

    const stored = await app.db.collection(API_KEYS_COLLECTION).find().toArray();
    expect(JSON.stringify(stored)).not.toContain(key);
    expect(JSON.stringify(stored)).not.toContain(key.slice(11));

    const listed = await postGraphQL(url, { query: '{ apiKeys { id role tenant } }' }, ADMIN);
    expect(JSON.stringify(listed.body)).not.toContain(key.slice(11));
    expect(listed.body.data.apiKeys).toContainEqual({ id: apiKey.id, role: 'reader', tenant: 'acme' });

    const read = await postGraphQL(url, { query: '{ sessions { totalCount } }' }, key);
    expect(read.body).toEqual({ data: { sessions: { totalCount: 0 } } });
    const write = await postGraphQL(url, { query: 'mutation { createSession(input: {}) { sessionId } }' }, key);
    expect(write.body.errors[0].extensions.code).toBe('FORBIDDEN');

    const revoked = await postGraphQL(
      url,
      { query: `mutation { revokeApiKey(id: "${apiKey.id}") { revokedAt } }` },
      ADMIN,
    );
    expect(revoked.body.data.revokeApiKey.revokedAt).toEqual(expect.any(String));
    const after = await postGraphQL(url, { query: '{ sessions { totalCount } }' }, key);
    expect(after.status).toBe(401);
    expect(after.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });

  it('an admin of another tenant manages only its own tenant’s keys', async () => {
    const other = await postGraphQL(
      url,
      { query: CREATE, variables: { role: 'admin', tenant: 'default' } },
      'env-acme-admin',
    );
    expect(other.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const own = await postGraphQL(
      url,
      { query: CREATE, variables: { role: 'writer', tenant: 'acme' } },
      'env-acme-admin',
    );
    expect(own.body.data.createApiKey.apiKey.tenant).toBe('acme');
    const listed = await postGraphQL(url, { query: '{ apiKeys { tenant } }' }, 'env-acme-admin');
    expect(new Set(listed.body.data.apiKeys.map((key: { tenant: string }) => key.tenant))).toEqual(new Set(['acme']));
  });

  it('a bad tenant name is BAD_USER_INPUT and stores nothing', async () => {
    const before = await app.db.collection(API_KEYS_COLLECTION).countDocuments();
    for (const tenant of ['Acme', '../x', '', 'a'.repeat(33), 'a b']) {
      const { body } = await postGraphQL(url, { query: CREATE, variables: { role: 'reader', tenant } }, ADMIN);
      expect({ tenant, code: body.errors[0].extensions.code }).toEqual({ tenant, code: 'BAD_USER_INPUT' });
    }
    expect(await app.db.collection(API_KEYS_COLLECTION).countDocuments()).toBe(before);
  });
});

describe('API_KEYS entries', () => {
  it('key[:role[:tenant]]: a bare key is admin of the default tenant; bad entries are named without the key', () => {
    expect(parseEnvKeys(['a', 'b:reader', 'c:writer:acme']).map((key) => key.caller)).toEqual([
      { role: 'admin', tenant: 'default', keyId: 'env-1' },
      { role: 'reader', tenant: 'default', keyId: 'env-2' },
      { role: 'writer', tenant: 'acme', keyId: 'env-3' },
    ]);
    expect(() => parseEnvKeys(['ok', 'secret123:owner'])).toThrow('API_KEYS entry 2: role must be one of');
    expect(() => parseEnvKeys(['secret123:owner'])).not.toThrow(/secret123/);
    expect(() => parseEnvKeys(['secret123:reader:Bad'])).toThrow(/tenant must match/);
  });
});
