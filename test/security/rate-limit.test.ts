import { RateLimiter } from '../../src/auth/rate-limit';
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

  describe('over HTTP', () => {
    let app: TestApp;
    let url: string;
    beforeAll(async () => {
      app = await createTestApp({ config: { apiKeys: ['key-a:reader', 'key-b:reader'], rateLimitPerMin: 3 } });
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
  });

  it('anonymous callers are limited per address; 0 turns the limit off', async () => {
    for (const [perMin, expected] of [
      [2, 429],
      [0, 200],
    ]) {
      const app = await createTestApp({ config: { rateLimitPerMin: perMin } });
      try {
        const url = await app.server.listen(0, '127.0.0.1');
        const statuses: number[] = [];
        for (let i = 0; i < 3; i++)
          statuses.push((await postGraphQL(url, { query: '{ serverInfo { version } }' })).status);
        expect(statuses).toEqual([200, 200, expected]);
      } finally {
        await app.close();
      }
    }
  });
});
