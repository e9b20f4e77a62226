/** Re-exports test/support/build.ts for the engine suites in test/embedded until they move to packages/engine/test. */
export * from '../support/build';
