/** Re-exports test/support/target.ts for the engine suites in test/embedded until they move to packages/engine/test. */
export * from '../support/target';
