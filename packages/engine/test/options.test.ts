/** The CLI's settings from its environment: `npm run db`'s variable names, defaults, and refusals naming the variable. */
import { engineOptionsFromEnv, isLoopback } from '../src/options';

test('with nothing set: ./data, 127.0.0.1:27017, no authentication and the engine defaults for its limits', () => {
  expect(engineOptionsFromEnv({})).toEqual({
    dataDir: './data',
    host: '127.0.0.1',
    port: 27017,
    credential: undefined,
    maxConnections: undefined,
    idleTimeoutMs: undefined,
    frameTimeoutMs: undefined,
    compactAfterBytes: undefined,
    changeLogEvents: undefined,
    ttlIntervalMs: undefined,
  });
});

test('DB_MAX_CONNECTIONS, DB_IDLE_TIMEOUT_MS and DB_FRAME_TIMEOUT_MS set the connection limits', () => {
  const env = { DB_MAX_CONNECTIONS: '50', DB_IDLE_TIMEOUT_MS: '60000', DB_FRAME_TIMEOUT_MS: '5000' };
  expect(engineOptionsFromEnv(env)).toMatchObject({ maxConnections: 50, idleTimeoutMs: 60_000, frameTimeoutMs: 5_000 });
  expect(() => engineOptionsFromEnv({ DB_MAX_CONNECTIONS: '0' })).toThrow(
    "DB_MAX_CONNECTIONS must be a positive integer, got '0'",
  );
  expect(() => engineOptionsFromEnv({ DB_IDLE_TIMEOUT_MS: '1m' })).toThrow(
    "DB_IDLE_TIMEOUT_MS must be a positive integer, got '1m'",
  );
  expect(() => engineOptionsFromEnv({ DB_FRAME_TIMEOUT_MS: '-1' })).toThrow(
    "DB_FRAME_TIMEOUT_MS must be a positive integer, got '-1'",
  );
});

test('DB_USER and DB_PASSWORD become stored SCRAM keys; the password is not kept', () => {
  const options = engineOptionsFromEnv({ DB_USER: 'ops', DB_PASSWORD: 'hunter2-long' });
  expect(options.credential).toMatchObject({ user: 'ops', iterations: 15_000 });
  expect(JSON.stringify(options)).not.toContain('hunter2-long');
  expect(() => engineOptionsFromEnv({ DB_USER: 'ops' })).toThrow('DB_USER and DB_PASSWORD must be set together');
  expect(() => engineOptionsFromEnv({ DB_PASSWORD: 'x' })).toThrow('DB_USER and DB_PASSWORD must be set together');
});

test('a non-loopback DB_HOST requires credentials; loopback does not', () => {
  for (const host of ['0.0.0.0', '::', '192.168.1.5', 'db.example.org'])
    expect(() => engineOptionsFromEnv({ DB_HOST: host })).toThrow(`DB_HOST=${host} is reachable from other machines`);
  expect(engineOptionsFromEnv({ DB_HOST: '0.0.0.0', DB_USER: 'ops', DB_PASSWORD: 'pw' }).host).toBe('0.0.0.0');
  expect(['127.0.0.1', '127.3.2.1', '::1', 'localhost', '::ffff:10.0.0.1'].map(isLoopback)).toEqual([
    true,
    true,
    true,
    true,
    false,
  ]);
});

test('DATA_DIR, DB_HOST, DB_PORT and the limits are read as given; an empty variable counts as unset', () => {
  const env = {
    DATA_DIR: '/srv/engine',
    DB_HOST: '127.0.0.2',
    DB_PORT: '0',
    ENGINE_COMPACT_AFTER_BYTES: '4096',
    ENGINE_CHANGE_LOG_EVENTS: '10',
    ENGINE_TTL_INTERVAL_MS: '500',
  };
  expect(engineOptionsFromEnv(env)).toMatchObject({
    dataDir: '/srv/engine',
    host: '127.0.0.2',
    port: 0,
    compactAfterBytes: 4096,
    changeLogEvents: 10,
    ttlIntervalMs: 500,
  });
  expect(engineOptionsFromEnv({ DATA_DIR: '', DB_HOST: '', DB_PORT: '' })).toMatchObject({
    dataDir: './data',
    host: '127.0.0.1',
    port: 27017,
  });
});

test('a value it cannot use stops it with the variable and the value', () => {
  expect(() => engineOptionsFromEnv({ DB_PORT: '65536' })).toThrow("DB_PORT must be a port number, got '65536'");
  expect(() => engineOptionsFromEnv({ DB_PORT: 'x' })).toThrow("DB_PORT must be a port number, got 'x'");
  expect(() => engineOptionsFromEnv({ ENGINE_COMPACT_AFTER_BYTES: '0' })).toThrow(
    "ENGINE_COMPACT_AFTER_BYTES must be a positive integer, got '0'",
  );
  expect(() => engineOptionsFromEnv({ ENGINE_CHANGE_LOG_EVENTS: '1.5' })).toThrow(
    "ENGINE_CHANGE_LOG_EVENTS must be a positive integer, got '1.5'",
  );
  expect(() => engineOptionsFromEnv({ ENGINE_TTL_INTERVAL_MS: '0' })).toThrow(
    "ENGINE_TTL_INTERVAL_MS must be a positive integer, got '0'",
  );
});
