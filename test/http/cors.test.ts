import { ConfigError, loadConfig, type Config } from '../../src/config';
import { createTestApp, postGraphQL, type TestApp } from '../support/app';

const APP_ORIGIN = 'http://127.0.0.1:5173';
const OTHER_ORIGIN = 'https://evil.example';
const QUERY = { query: '{ serverInfo { database { kind } } }' };
/** Makes the request take Apollo's path instead of the fast path (see test/security/production.test.ts). */
const APOLLO = { accept: 'application/json;q=1' };

function preflight(url: string, origin: string, requestHeaders = 'content-type, authorization') {
  return fetch(url, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': requestHeaders,
    },
  });
}

async function serve(config: Partial<Config>): Promise<{ app: TestApp; url: string }> {
  const app = await createTestApp({ config });
  return { app, url: await app.server.listen(0, '127.0.0.1') };
}

describe('CORS_ORIGINS', () => {
  it('parses origins, `*` alone, and refuses anything else naming the variable', () => {
    expect(loadConfig({}).corsOrigins).toEqual([]);
    expect(loadConfig({ CORS_ORIGINS: `${APP_ORIGIN}, https://app.example.com/` }).corsOrigins).toEqual([
      APP_ORIGIN,
      'https://app.example.com',
    ]);
    expect(loadConfig({ CORS_ORIGINS: '*' }).corsOrigins).toEqual(['*']);
    for (const bad of ['app.example.com', 'https://app.example.com/path', 'ftp://x.example', `*,${APP_ORIGIN}`]) {
      expect(() => loadConfig({ CORS_ORIGINS: bad })).toThrow(ConfigError);
      expect(() => loadConfig({ CORS_ORIGINS: bad })).toThrow(/CORS_ORIGINS/);
    }
  });

  describe('listed origins, with API keys', () => {
    let app: TestApp;
    let url: string;
    beforeAll(async () => ({ app, url } = await serve({ corsOrigins: [APP_ORIGIN], apiKeys: ['cors-key'] })));
    afterAll(() => app.close());

    it('a preflight from a listed origin gets 204 with the Access-Control-Allow-* headers, without a key', async () => {
      const response = await preflight(url, APP_ORIGIN, 'content-type, authorization, apollo-require-preflight');
      expect(response.status).toBe(204);
      const headers = Object.fromEntries(response.headers);
      expect(headers).toMatchObject({
        'access-control-allow-origin': APP_ORIGIN,
        'access-control-allow-credentials': 'true',
        'access-control-max-age': '7200',
        vary: 'Origin',
      });
      expect(headers['access-control-allow-methods'].split(', ')).toEqual(expect.arrayContaining(['GET', 'POST']));
      expect(headers['access-control-allow-headers'].split(', ')).toEqual(
        expect.arrayContaining(['authorization', 'content-type', 'apollo-require-preflight']),
      );
    });

    it('a preflight from another origin gets 403 CORS_ORIGIN_NOT_ALLOWED and no Access-Control-Allow-Origin', async () => {
      const response = await preflight(url, OTHER_ORIGIN);
      expect(response.status).toBe(403);
      expect(response.headers.get('access-control-allow-origin')).toBeNull();
      expect(((await response.json()) as any).errors[0].extensions.code).toBe('CORS_ORIGIN_NOT_ALLOWED');
    });

    it.each([
      ['fast path', {}],
      ['Apollo', APOLLO],
    ])('the %s answers a listed origin with its CORS headers, another origin without', async (_path, headers) => {
      const allowed = await postGraphQL(url, QUERY, 'cors-key', { origin: APP_ORIGIN, ...headers });
      expect(allowed.body).toEqual({ data: { serverInfo: { database: { kind: 'EMBEDDED' } } } });
      expect(allowed.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
      expect(allowed.headers.get('access-control-allow-credentials')).toBe('true');
      expect(allowed.headers.get('vary')).toContain('Origin');

      const refused = await postGraphQL(url, QUERY, 'cors-key', { origin: OTHER_ORIGIN, ...headers });
      expect(refused.headers.get('access-control-allow-origin')).toBeNull();
      expect(refused.headers.get('vary')).toContain('Origin');
    });

    it('a refusal (401 without a key) carries the CORS headers, so that the app can read it', async () => {
      const response = await postGraphQL(url, QUERY, undefined, { origin: APP_ORIGIN });
      expect(response.status).toBe(401);
      expect(response.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
      expect(response.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    });
  });

  describe('`*`', () => {
    let app: TestApp;
    let url: string;
    beforeAll(async () => ({ app, url } = await serve({ corsOrigins: ['*'] })));
    afterAll(() => app.close());

    it('allows any origin, without credentials', async () => {
      const response = await preflight(url, OTHER_ORIGIN);
      expect(response.status).toBe(204);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(response.headers.get('access-control-allow-credentials')).toBeNull();
      const { body, headers } = await postGraphQL(url, QUERY, undefined, { origin: OTHER_ORIGIN });
      expect(body.data.serverInfo.database.kind).toBe('EMBEDDED');
      expect(headers.get('access-control-allow-origin')).toBe('*');
      expect(headers.get('access-control-allow-credentials')).toBeNull();
    });
  });

  describe('unset (the default)', () => {
    let app: TestApp;
    let url: string;
    beforeAll(async () => ({ app, url } = await serve({})));
    afterAll(() => app.close());

    it('refuses every preflight and sends no CORS headers', async () => {
      const response = await preflight(url, APP_ORIGIN);
      expect(response.status).toBe(403);
      expect(response.headers.get('access-control-allow-origin')).toBeNull();
      const { body, headers } = await postGraphQL(url, QUERY, undefined, { origin: APP_ORIGIN });
      expect(body.data.serverInfo.database.kind).toBe('EMBEDDED');
      expect(headers.get('access-control-allow-origin')).toBeNull();
      expect(headers.get('vary')).toBeNull();
    });
  });
});
