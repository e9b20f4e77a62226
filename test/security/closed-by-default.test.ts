import http from 'node:http';
import { loadConfig } from '../../src/config';
import { createTestApp, type TestApp } from '../support/app';

/** POSTs a query with an explicit Host header (fetch may not set one). */
function postWithHost(url: string, host: string | undefined): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const request = http.request(
      {
        hostname: target.hostname,
        port: target.port,
        path: target.pathname,
        method: 'POST',
        setHost: host !== undefined,
        headers: { 'content-type': 'application/json', ...(host !== undefined ? { host } : {}) },
      },
      (response) => {
        let text = '';
        response.on('data', (chunk) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode!, body: JSON.parse(text) }));
      },
    );
    request.on('error', reject);
    request.end(JSON.stringify({ query: '{ serverInfo { version } }' }));
  });
}

describe('closed by default', () => {
  it('HOST defaults to 127.0.0.1', () => {
    expect(loadConfig({}).host).toBe('127.0.0.1');
  });

  describe('Host header check (DNS-rebinding defence)', () => {
    let open: TestApp;
    let keyed: TestApp;
    let anonymousAllowed: TestApp;
    beforeAll(async () => {
      open = await createTestApp();
      keyed = await createTestApp({ config: { apiKeys: ['k1'] } });
      anonymousAllowed = await createTestApp({ config: { allowAnonymous: true } });
    });
    afterAll(async () => {
      await open.close();
      await keyed.close();
      await anonymousAllowed.close();
    });

    it('without keys, only loopback names (any port) are answered; others get 403 FORBIDDEN_HOST', async () => {
      const url = await open.server.listen(0, '127.0.0.1');
      for (const host of ['localhost', 'localhost:4000', '127.0.0.1:9', '[::1]:4000', 'LOCALHOST']) {
        expect({ host, status: (await postWithHost(url, host)).status }).toEqual({ host, status: 200 });
      }
      for (const host of ['evil.example', 'evil.example:4000', '127.0.0.1.evil.example', 'localhost.evil']) {
        const { status, body } = await postWithHost(url, host);
        expect({ host, status }).toEqual({ host, status: 403 });
        expect(body.errors[0].extensions.code).toBe('FORBIDDEN_HOST');
      }
    });

    it('with keys (or ALLOW_ANONYMOUS) any Host is answered, the key deciding', async () => {
      expect((await postWithHost(await keyed.server.listen(0, '127.0.0.1'), 'evil.example')).status).toBe(401);
      expect((await postWithHost(await anonymousAllowed.server.listen(0, '127.0.0.1'), 'evil.example')).status).toBe(
        200,
      );
    });
  });
});
