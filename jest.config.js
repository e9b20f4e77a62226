/**
 * Integration tests share one embedded engine (started in globalSetup); each test file uses its own database.
 * Suites named *.slow.test.ts (the local model, recall, durability, process restarts) are left out by
 * `npm run test:quick`; `npm test` runs everything.
 */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { diagnostics: false }],
  },
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  setupFiles: ['reflect-metadata'],
  testTimeout: 60000,
  maxWorkers: 2,
};
