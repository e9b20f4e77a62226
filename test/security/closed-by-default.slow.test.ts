import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnServer } from '../support/build';

/** The bind refusal of closed-by-default.test.ts, on the built server (each start takes seconds). */
describe('closed by default: the built server', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'hindsight-closed-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('refuses to listen on 0.0.0.0 without keys, saying what to do', async () => {
    const server = spawnServer(dataDir, { HOST: '0.0.0.0' });
    const { code, signal, output } = await server.exited;
    expect({ code, signal, output }).toEqual({ code: 2, signal: null, output: expect.any(String) });
    expect(output).toContain('Refusing to listen on HOST=0.0.0.0 without API keys');
    expect(output).toContain('ALLOW_ANONYMOUS=true');
    expect(output).not.toMatch(/\n\s+at /);
  }, 30_000);

  it.each([
    ['ALLOW_ANONYMOUS=true', { ALLOW_ANONYMOUS: 'true' }],
    ['API_KEYS set', { API_KEYS: 'k1' }],
  ])(
    'listens on 0.0.0.0 with %s',
    async (_name, env) => {
      const server = spawnServer(dataDir, { HOST: '0.0.0.0', ...env });
      try {
        expect(await server.ready).toMatch(/^http:\/\/localhost:\d+\/graphql$/);
      } finally {
        server.child.kill('SIGTERM');
        await server.exited;
      }
    },
    30_000,
  );
});
