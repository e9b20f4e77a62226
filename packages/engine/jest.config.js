/** The engine's tests. The driver-level suites share one engine (or a mongod, TEST_TARGET=mongod) started in globalSetup. */
module.exports = {
  displayName: 'engine',
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { diagnostics: false }],
  },
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  // When run from this package; under the repository's jest config, the root's testTimeout and maxWorkers apply.
  testTimeout: 60000,
};
