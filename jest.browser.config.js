/**
 * The browser suite (test/browser): Debian's chromium driven by puppeteer-core against the real server. Kept out of
 * `npm test` (it needs chromium and takes a while); `npm run test:browser` runs it, as does .ci/run.
 */
const { projects } = require('./jest.config');

const app = projects[0];

module.exports = {
  maxWorkers: 1,
  testTimeout: 120000,
  ...app,
  displayName: 'browser',
  roots: ['<rootDir>/test/browser'],
  // Not *.test.ts, so that the app project (npm test, test:quick) leaves these files out.
  testMatch: ['**/*.browser.ts'],
};
