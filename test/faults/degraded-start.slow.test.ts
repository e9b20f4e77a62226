/**
 * A start on a damaged embedded data directory serves no data and changes no file, but says why where an operator
 * looks: an ERROR log line, GET /ready, and `serverInfo.database.storage`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { startEmbeddedServer } from '@hindsight/engine';
import { IN_PROCESS_INDEX, itInProcessIndex } from '../support/search-path';
import { fingerprint, post, startBuiltServer } from './data-dir';

const JOURNAL = 'journal-000000000001.log';
const SERVER_INFO = '{ serverInfo { version database { kind version storage { status reason } } } }';

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

/** A data directory whose journal holds 40 inserts, one record each. */
async function dataDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'hindsight-degraded-'));
  dirs.push(dir);
  const engine = await startEmbeddedServer({ dataDir: dir, port: 0 });
  const client = await new MongoClient(engine.uri).connect();
  for (let i = 0; i < 40; i++)
    await client
      .db('hindsight')
      .collection('c')
      .insertOne({ n: i, text: 'x'.repeat(100) });
  await client.close();
  await engine.close();
  return dir;
}

async function expectDegraded(dir: string, file: string, where: RegExp): Promise<void> {
  const before = await fingerprint(dir);
  const server = await startBuiltServer(dir);
  try {
    const errorLine = server
      .output()
      .split('\n')
      .map((line) => (line.startsWith('{') ? JSON.parse(line) : null))
      .find((entry) => entry?.level === 'error');
    expect(errorLine).toMatchObject({
      message: expect.stringContaining('data directory damaged'),
      file,
      repair: `DATA_DIR=${dir} npm run db -- --repair`,
    });

    const base = server.graphqlUrl.replace(/\/graphql$/, '');
    expect((await fetch(`${base}/health`)).status).toBe(200);
    const ready = await fetch(`${base}/ready`);
    expect(ready.status).toBe(503);
    const readyBody = (await ready.json()) as { status: string; error: string };
    expect(readyBody).toEqual({ status: 'unavailable', error: expect.stringMatching(where) });
    expect(readyBody.error).toContain('npm run db -- --repair');
    expect(readyBody.error).not.toContain(dir); // the reply names the file, not where the data lives

    const info = await post(server.graphqlUrl, SERVER_INFO);
    expect(info.status).toBe(200);
    expect(info.body.data.serverInfo.database).toEqual({
      kind: 'EMBEDDED',
      version: '',
      storage: { status: 'DAMAGED', reason: readyBody.error },
    });

    for (const operation of [
      '{ experiences(first: 1) { edges { node { experienceId } } } }',
      'mutation { deleteSession(id: "s1") }',
      '{ serverInfo { version } experiences(first: 1) { edges { cursor } } }',
    ]) {
      const refused = await post(server.graphqlUrl, operation);
      expect(refused).toMatchObject({
        status: 503,
        body: { errors: [{ message: expect.stringMatching(where), extensions: { code: 'SERVICE_UNAVAILABLE' } }] },
      });
    }
    expect((await post(server.graphqlUrl, '{ serverInfo { nope } }')).body.errors[0].extensions.code).toBe(
      'GRAPHQL_VALIDATION_FAILED',
    );
  } finally {
    server.child.kill('SIGTERM');
  }
  expect(await server.exited).toBe(0);
  expect(await fingerprint(dir)).toEqual(before);
}

/** A data directory whose search index a graceful stop saved; the start's exit code and the saved index with it. */
async function indexedDataDir(): Promise<{ dir: string; code: number | null; saved: string[] }> {
  const dir = await dataDir();
  const first = await startBuiltServer(dir);
  first.child.kill('SIGTERM');
  return { dir, code: await first.exited, saved: await readdir(path.join(dir, 'search')) };
}

describe('a start on a damaged data directory', () => {
  // Started before the other cases and awaited by the last: its start and stop run while they do.
  let indexed: Promise<{ dir: string; code: number | null; saved: string[] }>;
  beforeAll(() => {
    if (!IN_PROCESS_INDEX) return;
    indexed = indexedDataDir();
    indexed.catch(() => undefined);
  });
  // Its server stopped before the directories go, also when the last case was filtered out.
  afterAll(() => indexed?.catch(() => undefined));

  it('a byte flipped mid-journal: /health 200, /ready 503 and serverInfo name the file and offset', async () => {
    const dir = await dataDir();
    const file = path.join(dir, JOURNAL);
    const data = await readFile(file);
    data[Math.floor(data.length / 2)] ^= 0x5a;
    await writeFile(file, data);
    await expectDegraded(dir, JOURNAL, new RegExp(`${JOURNAL} has a damaged record at byte \\d+`));
  });

  it('the journal deleted with the id file left: the same, naming the missing journal', async () => {
    const dir = await dataDir();
    await rm(path.join(dir, JOURNAL));
    await expectDegraded(dir, JOURNAL, new RegExp(`${JOURNAL} is missing`));
  });

  itInProcessIndex(
    'only the search index left: the same, then repair moves it aside and the server starts empty',
    async () => {
      const { dir, code, saved } = await indexed;
      expect(code).toBe(0);
      expect(saved.length).toBeGreaterThan(0); // saved at the graceful stop
      await rm(path.join(dir, JOURNAL));
      await rm(path.join(dir, 'engine-id'));
      await expectDegraded(dir, JOURNAL, new RegExp(`${JOURNAL} is missing: the directory has search/`));

      const repair = spawnSync(process.execPath, [path.resolve('packages/engine/dist/src/cli.js'), '--repair'], {
        env: { ...process.env, DATA_DIR: dir },
        encoding: 'utf8',
      });
      expect(repair.status).toBe(0);
      expect(repair.stdout).toContain('repair: search: stale; moved aside');
      const server = await startBuiltServer(dir);
      try {
        expect((await fetch(server.graphqlUrl.replace(/\/graphql$/, '/ready'))).status).toBe(200);
        const listed = await post(server.graphqlUrl, '{ experiences(first: 1) { edges { cursor } } }');
        expect(listed.body).toEqual({ data: { experiences: { edges: [] } } });
      } finally {
        server.child.kill('SIGTERM');
      }
      expect(await server.exited).toBe(0);
    },
  );
});
