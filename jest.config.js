/**
 * Every test: the app's (one embedded engine for the run, started in globalSetup; each test file uses its own
 * database) and the engine package's (its own jest config). Suites named *.slow.test.ts (the local model,
 * recall, durability, process restarts) are left out by `npm run test:quick`; `npm test` runs everything but the
 * browser suite (test/browser/*.browser.ts: `npm run test:browser`, jest.browser.config.js).
 */
const { statfsSync } = require('node:fs');

/**
 * The run's scratch directories (the shared engine's journal, spawned servers' DATA_DIR, every os.tmpdir() of a test)
 * go on tmpfs when the machine has one with room, unless TMPDIR says otherwise: the engine acknowledges a write once
 * its journal write is on the medium (O_DSYNC), milliseconds per write on a disk. No test depends on the medium: a
 * killed process loses no page cache on either. Set here, the main process (globalSetup) and the workers inherit it.
 */
if (!process.env.TMPDIR) {
  try {
    const { bavail, bsize } = statfsSync('/dev/shm');
    if (bavail * bsize >= 2 ** 30) process.env.TMPDIR = '/dev/shm';
  } catch {
    // No /dev/shm (macOS, Windows): the system's temporary directory.
  }
}

module.exports = {
  // Run-wide options: jest reads these here only, not from the projects' configs.
  maxWorkers: 2,
  testTimeout: 60000,
  testSequencer: '<rootDir>/jest.sequencer.js',
  projects: [
    {
      displayName: 'app',
      testEnvironment: 'node',
      roots: ['<rootDir>/test'],
      testMatch: ['**/*.test.ts'],
      transform: {
        '^.+\\.ts$': ['ts-jest', { diagnostics: false }],
      },
      // Test files run the engine's sources, as the typecheck sees them. globalSetup runs outside jest's module
      // registry, so its shared engine is the build (`npm test` builds first), as are spawned servers' engine threads.
      moduleNameMapper: { '^@hindsight/engine$': '<rootDir>/packages/engine/src/index.ts' },
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
      setupFiles: ['reflect-metadata'],
      // Each test file loads the app's whole module graph in its own registry: a worker compiles it once.
      runtime: '<rootDir>/jest.runtime.js',
    },
    '<rootDir>/packages/engine',
  ],
};
