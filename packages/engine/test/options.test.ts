/** The CLI's settings from its environment: `npm run db`'s variable names, defaults, and refusals naming the variable. */
import { engineOptionsFromEnv } from '../src/options';

test('with nothing set: ./data, 127.0.0.1:27017 and the engine defaults for its limits', () => {
  expect(engineOptionsFromEnv({})).toEqual({
    dataDir: './data',
    host: '127.0.0.1',
    port: 27017,
    compactAfterBytes: undefined,
    changeLogEvents: undefined,
  });
});

test('DATA_DIR, DB_HOST, DB_PORT and the limits are read as given; an empty variable counts as unset', () => {
  const env = {
    DATA_DIR: '/srv/engine',
    DB_HOST: '0.0.0.0',
    DB_PORT: '0',
    ENGINE_COMPACT_AFTER_BYTES: '4096',
    ENGINE_CHANGE_LOG_EVENTS: '10',
  };
  expect(engineOptionsFromEnv(env)).toEqual({
    dataDir: '/srv/engine',
    host: '0.0.0.0',
    port: 0,
    compactAfterBytes: 4096,
    changeLogEvents: 10,
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
});
