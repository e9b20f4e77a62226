import { RateLimiter } from '../../src/auth/rate-limit';
import { loadConfig } from '../../src/config';
import { createTestApp, postGraphQL, type TestApp } from '../support/app';

describe('rate limits', () => {
  it('a bucket holds a minute of requests and refills at the configured rate', () => {
    let now = 0;
    const limiter = new RateLimiter(60, () => now);
    for (let i = 0; i < 60; i++) expect(limiter.take('k')).toBe(0);
    expect(limiter.take('k')).toBe(1);
    expect(limiter.take('other')).toBe(0);
    now += 999;
    expect(limiter.take('k')).toBe(1);
    now += 1;
    expect(limiter.take('k')).toBe(0);
    expect(limiter.take('k')).toBe(1);
  });

  it('by default a key may burst 6,000 requests and sustain 100 a second', () => {
    expect(loadConfig({}).rateLimitPerMin).toBe(6000);
  });

  it('keys are limited per key, anonymous callers per remote address except loopback ones', () => {
    const limiter = new RateLimiter(1, () => 0);
    const admitted = (keyId: string | null, address: string) => limiter.admit(keyId, address) === 0;
    expect([admitted('a', '127.0.0.1'), admitted('a', '127.0.0.1'), admitted('b', '127.0.0.1')]).toEqual([
      true,
      false,
      true,
    ]);
    expect([admitted(null, '192.0.2.7'), admitted(null, '192.0.2.7'), admitted(null, '::ffff:192.0.2.8')]).toEqual([
      true,
      false,
      true,
    ]);
    for (const loopback of ['127.0.0.1', '127.3.2.1', '::1', '::ffff:127.0.0.1']) {
      expect([admitted(null, loopback), admitted(null, loopback)]).toEqual([true, true]);
    }
  });

  describe('over HTTP', () => {
    let app: TestApp;
    let url: string;
    beforeAll(async () => {
      app = await createTestApp({
        config: { apiKeys: ['key-a:reader', 'key-b:reader', 'key-c:reader'], rateLimitPerMin: 3 },
      });
      url = await app.server.listen(0, '127.0.0.1');
    });
    afterAll(() => app.close());

    it('per key: the 4th request in a minute gets 429 RATE_LIMITED with Retry-After; another key is unaffected', async () => {
      const query = { query: '{ serverInfo { version } }' };
      for (let i = 0; i < 3; i++) expect((await postGraphQL(url, query, 'key-a')).status).toBe(200);
      const limited = await postGraphQL(url, query, 'key-a');
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(limited.body.errors[0].extensions).toMatchObject({ code: 'RATE_LIMITED' });
      expect((await postGraphQL(url, query, 'key-b')).status).toBe(200);
    });

    it('/mcp takes from the same bucket as /graphql', async () => {
      const query = { query: '{ serverInfo { version } }' };
      for (let i = 0; i < 3; i++) expect((await postGraphQL(url, query, 'key-c')).status).toBe(200);
      const mcp = await postGraphQL(new URL('/mcp', url).href, { jsonrpc: '2.0', id: 1, method: 'ping' }, 'key-c', {
        accept: 'application/json, text/event-stream',
      });
      expect(mcp.status).toBe(429);
      expect(mcp.body.errors[0].extensions).toMatchObject({ code: 'RATE_LIMITED' });
    });
  });

  it('anonymous callers on loopback are not limited', async () => {
    const app = await createTestApp({ config: { rateLimitPerMin: 2 } });
    try {
      const url = await app.server.listen(0, '127.0.0.1');
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++)
        statuses.push((await postGraphQL(url, { query: '{ serverInfo { version } }' })).status);
      expect(statuses).toEqual([200, 200, 200]);
    } finally {
      await app.close();
    }
  });
});
