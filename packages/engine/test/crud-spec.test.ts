/**
 * MongoDB's CRUD specification tests (unified format, from `../shared/mongo-spec/crud` beside the repository) run
 * through the official driver against a fresh embedded engine. A test whose runOnRequirements a standalone 7.0 does
 * not meet is skipped as not applicable; every applicable test must pass unless crud-spec.skips.ts lists it.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { startEmbeddedServer, type EmbeddedServer } from '../src';
import { CRUD_SPEC_SKIPS } from './crud-spec.skips';
import { loadSpecFiles, runSpecTest, unmetRequirements } from './support/unified-runner';

const REPOSITORY_ROOT = path.resolve(__dirname, '../../..');
const SPEC_DIR = path.resolve(REPOSITORY_ROOT, '..', 'shared', 'mongo-spec', 'crud');
if (!existsSync(SPEC_DIR)) {
  throw new Error(
    `MongoDB's CRUD spec tests are missing: expected them in ${SPEC_DIR} (../shared/mongo-spec/crud beside the repository)`,
  );
}

const files = loadSpecFiles(SPEC_DIR);
const totals = { files: files.length, applicable: 0, notApplicable: 0, passed: 0, skipped: 0, ran: 0 };
const listedSkips = new Set(
  Object.entries(CRUD_SPEC_SKIPS).flatMap(([file, tests]) => Object.keys(tests).map((d) => `${file}: ${d}`)),
);

let server: EmbeddedServer;
let admin: MongoClient;
let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'hindsight-crud-spec-'));
  server = await startEmbeddedServer({ dataDir, port: 0, host: '127.0.0.1', enableTestCommands: true });
  admin = await new MongoClient(server.uri).connect();
});

afterAll(async () => {
  await admin?.close();
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
  const rate = totals.applicable ? ((100 * totals.passed) / totals.applicable).toFixed(1) : '0';
  console.log(
    `CRUD spec tests: ${totals.passed} / ${totals.applicable} applicable passed (${rate}%), ` +
      `${totals.skipped} skipped with a reason, ${totals.notApplicable} not applicable to a 7.0 standalone, ${files.length} files`,
  );
});

for (const file of files) {
  describe(file.file, () => {
    for (const test of file.tests) {
      const notApplicable =
        test.skipReason ?? unmetRequirements(file.runOnRequirements) ?? unmetRequirements(test.runOnRequirements);
      // Not registered as a test: a 7.0 standalone does not claim it (counted in the summary line).
      if (notApplicable) {
        totals.notApplicable++;
        continue;
      }
      totals.applicable++;
      const skipReason = CRUD_SPEC_SKIPS[file.file]?.[test.description];
      const key = `${file.file}: ${test.description}`;
      listedSkips.delete(key);
      if (skipReason) {
        totals.skipped++;
        it(`${test.description} (known failure: ${skipReason})`, async () => {
          const failure = await runSpecTest(server.uri, admin, file, test);
          totals.ran++;
          if (failure === undefined) throw new Error(`"${key}" passes now: remove it from crud-spec.skips.ts`);
        });
        continue;
      }
      it(test.description, async () => {
        const failure = await runSpecTest(server.uri, admin, file, test);
        totals.ran++;
        if (failure !== undefined) throw new Error(failure);
        totals.passed++;
      });
    }
  });
}

describe('the CRUD spec run as a whole', () => {
  it('lists no skip that names a missing or inapplicable test', () => {
    expect([...listedSkips]).toEqual([]);
  });

  it('passes at least 95% of the applicable tests', () => {
    if (totals.ran < totals.applicable) return; // a filtered run (-t) proves nothing about the rate
    expect(totals.passed / totals.applicable).toBeGreaterThanOrEqual(0.95);
  });
});
