/**
 * backupDataDir: an admin backs up the running server's embedded engine over GraphQL; a server started on the
 * backup has every write made before it and none made after.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createTestApp } from '../support/app';
import { startBuiltServer, type StartedServer } from './data-dir';

const ENV = { API_KEYS: 'admin-key:admin,writer-key:writer' };
const BACKUP = `mutation($directory: String!) { backupDataDir(directory: $directory) { directory files } }`;
const WRITE = `mutation($content: JSON!, $key: String) {
  appendMessage(sessionId: "s1", agentId: "agent", input: { role: USER, content: $content }, idempotencyKey: $key) {
    messageId } }`;
const READ = `{ session(id: "s1") { agent(agentId: "agent") { messages(first: 10) { edges { node { text } } } } } }`;

async function gql(server: StartedServer, query: string, variables: Record<string, unknown> = {}, key = 'admin-key') {
  const response = await fetch(server.graphqlUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ query, variables }),
  });
  return (await response.json()) as { data?: any; errors?: { extensions: { code: string; field?: string } }[] };
}

async function stop(server: StartedServer): Promise<void> {
  server.child.kill('SIGTERM');
  await server.exited;
}

let root: string;
/** The server the backup and the refusals go to, started once: neither case depends on the state the other leaves. */
let server: StartedServer;
beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'hindsight-backup-'));
  server = await startBuiltServer(path.join(root, 'data'), ENV);
}, 60_000);
afterAll(async () => {
  if (server) await stop(server);
  await rm(root, { recursive: true, force: true });
});

it('backs up the running engine at one instant; a server on the copy finds the data', async () => {
  const target = path.join(root, 'backup-1');
  expect((await gql(server, `mutation { createSession(input: { sessionId: "s1" }) { sessionId } }`)).errors).toBe(
    undefined,
  );
  const agent = `mutation { upsertAgent(sessionId: "s1", input: { agentId: "agent", agentData: {} }) { agentId } }`;
  expect((await gql(server, agent)).errors).toBe(undefined);
  expect((await gql(server, WRITE, { content: 'before' })).errors).toBe(undefined);

  const backup = await gql(server, BACKUP, { directory: target });
  expect(backup).toEqual({
    data: {
      backupDataDir: {
        directory: target,
        files: [expect.stringMatching(/^snapshot-/), expect.any(String), 'engine-id'],
      },
    },
  });
  expect((await readdir(target)).sort()).toEqual([...backup.data.backupDataDir.files].sort());
  expect((await gql(server, WRITE, { content: 'after' })).errors).toBe(undefined);

  const restored = await startBuiltServer(target, ENV);
  try {
    const read = await gql(restored, READ);
    expect(read.data.session.agent.messages.edges.map((edge: any) => edge.node.text)).toEqual(['before']);
  } finally {
    await stop(restored);
  }
}, 60_000);

it('refuses a relative, existing or parentless directory and a non-admin caller, writing nothing', async () => {
  const existing = path.join(root, 'existing');
  await mkdir(existing);
  const refused = async (directory: string, key?: string) =>
    (await gql(server, BACKUP, { directory }, key)).errors?.[0].extensions;
  expect(await refused('relative/backup')).toEqual({ code: 'BAD_USER_INPUT', field: 'directory' });
  expect(await refused(existing)).toEqual({ code: 'BAD_USER_INPUT', field: 'directory' });
  expect(await refused(path.join(root, 'missing', 'backup'))).toEqual({ code: 'BAD_USER_INPUT', field: 'directory' });
  expect(await refused(path.join(root, 'by-writer'), 'writer-key')).toEqual({ code: 'FORBIDDEN' });
  expect(await readdir(existing)).toEqual([]);
  expect(existsSync(path.join(root, 'by-writer'))).toBe(false);
});

it('refuses when the database is not the embedded engine', async () => {
  const app = await createTestApp();
  try {
    // The same app over an external MongoDB: its kind is all that differs.
    (app.deps.database as { kind: string }).kind = 'EXTERNAL';
    const result = await app.execute(BACKUP, { directory: path.join(root, 'external') });
    expect(result.errors?.[0].extensions).toEqual({ code: 'BAD_USER_INPUT' });
    expect(existsSync(path.join(root, 'external'))).toBe(false);
  } finally {
    await app.close();
  }
});
