import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { compiled, spawnServer } from '../support/build';
import { postGraphQL } from '../support/http';

/** `npm run keys -- <args>` as the built CLI, on `dataDir`. */
function keys(dataDir: string, ...args: string[]) {
  const result = spawnSync(process.execPath, [compiled('src/keys-cli.js'), ...args], {
    env: { ...process.env, DATA_DIR: dataDir, EMBEDDINGS_PROVIDER: 'hash' },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    return statSync(file).isDirectory() ? filesUnder(file) : [file];
  });
}

describe('npm run keys (the built CLI on a DATA_DIR)', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'hindsight-keys-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('create prints the key once, list never shows it, no file holds it, revoke makes it 401', async () => {
    const created = keys(dataDir, 'create', '--role', 'reader', '--tenant', 'acme');
    expect(created.code).toBe(0);
    const key = created.stdout.trim();
    expect(key).toMatch(/^hs_[A-Za-z0-9_-]{43}$/);
    const id = key.slice(0, 11);
    expect(created.stderr).toContain(`Created key ${id} (role reader, tenant acme)`);
    const admin = keys(dataDir, 'create', '--role', 'admin').stdout.trim();

    const listed = keys(dataDir, 'list');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`^${id}  reader  acme  created \\S+  active$`, 'm'));
    expect(listed.stdout).not.toContain(key.slice(11));
    for (const file of filesUnder(dataDir)) expect(readFileSync(file, 'latin1')).not.toContain(key.slice(11));

    expect(keys(dataDir, 'create', '--role', 'owner').code).toBe(2);
    expect(keys(dataDir, 'create', '--role', 'reader', '--tenant', 'Bad Name').stderr).toContain('tenant must match');

    // A running server holds DATA_DIR: the CLI refuses and points to the GraphQL operations.
    const server = spawnServer(dataDir);
    try {
      const url = await server.ready;
      expect((await postGraphQL(url, { query: '{ sessions { totalCount } }' }, key)).status).toBe(200);
      expect((await postGraphQL(url, { query: '{ sessions { totalCount } }' })).status).toBe(401);
      const refused = keys(dataDir, 'revoke', id);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('revokeApiKey');
      const viaGraphQL = await postGraphQL(url, { query: `mutation { revokeApiKey(id: "${id}") { id } }` }, admin);
      expect(viaGraphQL.body).toEqual({ data: { revokeApiKey: { id } } });
      expect((await postGraphQL(url, { query: '{ sessions { totalCount } }' }, key)).status).toBe(401);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }

    const adminId = admin.slice(0, 11);
    const revoked = keys(dataDir, 'revoke', adminId);
    expect(revoked.code).toBe(0);
    expect(keys(dataDir, 'list').stdout).toMatch(
      new RegExp(`^${adminId}  admin   default  created \\S+  revoked `, 'm'),
    );
  }, 240_000);
});
