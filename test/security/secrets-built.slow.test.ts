import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { VARIABLES } from '../../src/config';
import { spawnServer } from '../support/build';

/** A value planted in each secret variable (and DB_PASSWORD, the engine's), all valid unless a case says otherwise. */
const PLANTS: Record<string, string> = {
  MONGODB_URI: 'mongodb://hindsight:DbPass-planted-4711@127.0.0.1:9/hindsight',
  OPENAI_API_KEY: 'sk-planted-openai-key-0815',
  HINDSIGHT_API_KEY: 'hs-planted-mcp-key-2468',
  OPENAI_BASE_URL: 'http://user:BaseUrlPass-planted-42@127.0.0.1:9/v1',
  API_KEYS: 'apikey-planted-one-1234:admin,apikey-planted-two-5678:reader',
  DB_PASSWORD: 'DbPassword-planted-99',
  OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel:OtelPass-planted-9753@127.0.0.1:9',
  OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20otel-planted-token-1357',
};

/** Each text that must never be printed: the values, their passwords and keys on their own. */
const SECRETS = [
  ...Object.values(PLANTS),
  'DbPass-planted-4711',
  'BaseUrlPass-planted-42',
  'apikey-planted-one-1234',
  'apikey-planted-two-5678',
  'planted-bad',
  'OtelPass-planted-9753',
  'otel-planted-token-1357',
];

/** Runs the built server with `env` over the plants until it exits, and returns its exit code and all it printed. */
async function run(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'hindsight-secrets-'));
  try {
    const server = spawnServer(dataDir, {
      HOST: '127.0.0.1',
      LOG_LEVEL: 'debug',
      DB_TIMEOUT_MS: '1000',
      ...PLANTS,
      ...env,
    });
    // A server that starts after all is stopped: its exit code (null) then fails the case.
    const timer = setTimeout(() => server.child.kill('SIGKILL'), 20_000);
    const exited = await server.exited;
    clearTimeout(timer);
    return exited;
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

function expectNoSecret(output: string): void {
  expect(output.length).toBeGreaterThan(0);
  for (const secret of SECRETS) expect({ secret, shown: output.includes(secret) }).toEqual({ secret, shown: false });
}

describe('the built server prints no secret when it fails to start', () => {
  it('every secret variable is planted', () => {
    const secretNames = VARIABLES.filter((variable) => 'secret' in variable).map((variable) => variable.name);
    expect(secretNames.filter((name) => !(name in PLANTS))).toEqual([]);
  });

  it('an invalid variable: the configuration error names it, not the secrets', async () => {
    const { code, output } = await run({ PORT: 'not-a-port' });
    expect(code).toBe(2);
    expect(output).toContain('PORT');
    expectNoSecret(output);
  });

  // API_KEYS is parsed at startup only where keys are required (a non-loopback HOST): hence 0.0.0.0 there.
  it.each([
    ['MONGODB_URI', 'notmongo://user:planted-bad@example.com/db', '127.0.0.1'],
    ['OPENAI_BASE_URL', 'ftp://user:planted-bad@example.com/v1', '127.0.0.1'],
    ['API_KEYS', 'planted-bad:superuser', '0.0.0.0'],
  ])('an invalid secret variable %s is named, its value %s is not shown', async (name, value, host) => {
    const { code, output } = await run({ MONGODB_URI: '', [name]: value, HOST: host, EMBEDDINGS_PROVIDER: 'openai' });
    expect(code).toBeGreaterThan(0);
    expect(output).toContain(name);
    expectNoSecret(output);
  });

  it('a database that cannot be reached: the connection error shows no password', async () => {
    const { code, output } = await run({});
    expect(code).toBeGreaterThan(0);
    expectNoSecret(output);
  });

  it('an embedding endpoint that cannot be reached: the startup error shows neither its URL nor the key', async () => {
    const { code, output } = await run({
      MONGODB_URI: '',
      EMBEDDINGS_PROVIDER: 'openai',
      EMBEDDING_MODEL: 'a-model-of-unknown-size',
      EMBEDDING_MAX_RETRIES: '0',
    });
    expect(code).toBeGreaterThan(0);
    expect(output).toContain('OPENAI_BASE_URL');
    expectNoSecret(output);
  });
});
