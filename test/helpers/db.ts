/** Re-exports test/support/db.ts for the engine suites in test/embedded until they move to packages/engine/test. */
export * from '../support/db';
