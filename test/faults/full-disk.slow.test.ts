/**
 * A full disk, for real: the built server's DATA_DIR on a small tmpfs. Writes fail with a coded error while the disk
 * is full and /ready says so; once space is freed, writes succeed and /ready is 200 again without a restart, and no
 * acknowledged write is lost (also across a restart). Needs `mount -t tmpfs` (root); skipped with the reason elsewhere.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmdirSync } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { post, startBuiltServer, type StartedServer } from './data-dir';

const MOUNT = mkdtempSync(path.join(os.tmpdir(), 'hindsight-full-disk-'));
const unmountable = ((): string | null => {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m,mode=0700', 'tmpfs', MOUNT], { stdio: 'pipe' });
    return null;
  } catch (error) {
    rmdirSync(MOUNT);
    return String((error as { stderr?: Buffer }).stderr ?? error).trim() || 'mount failed';
  }
})();

afterAll(() => {
  if (unmountable) return;
  execFileSync('umount', [MOUNT]);
  rmdirSync(MOUNT);
});

const CREATE = 'mutation($input: CreateSessionInput!) { createSession(input: $input) { sessionId } }';
const PAD = 'x'.repeat(6000); // more than a page: a write needs a new block of the full tmpfs

/** Writes 64 KiB chunks to `file` until the disk refuses one. */
async function fillDisk(file: string): Promise<void> {
  const handle = await open(file, 'w');
  const chunk = Buffer.alloc(64 * 1024, 1);
  try {
    for (;;) await handle.write(chunk);
  } catch (error) {
    expect((error as NodeJS.ErrnoException).code).toBe('ENOSPC');
  } finally {
    await handle.close();
  }
}

async function ready(server: StartedServer): Promise<{ status: number; body: unknown }> {
  const response = await fetch(server.graphqlUrl.replace(/graphql$/, 'ready'));
  return { status: response.status, body: await response.json() };
}

const describeMounted = unmountable ? describe.skip : describe;
if (unmountable) console.warn(`full-disk tests skipped: cannot mount a tmpfs (${unmountable})`);

describeMounted('a full disk under DATA_DIR (tmpfs)', () => {
  it('writes fail coded and /ready is 503; freed space: both recover without a restart, nothing acknowledged lost', async () => {
    let server = await startBuiltServer(MOUNT);
    const acknowledged: string[] = [];
    try {
      for (let i = 0; i < 5; i++) {
        const { body } = await post(server.graphqlUrl, CREATE, {
          input: { sessionId: `before-${i}`, metadata: { PAD } },
        });
        acknowledged.push(body.data.createSession.sessionId);
      }
      expect((await ready(server)).status).toBe(200);

      const filler = path.join(MOUNT, 'filler');
      await fillDisk(filler);
      const failures: unknown[] = [];
      for (let i = 0; i < 10; i++) {
        const { body } = await post(server.graphqlUrl, CREATE, {
          input: { sessionId: `full-${i}`, metadata: { PAD } },
        });
        if (body.errors) failures.push(body.errors[0].extensions.code);
        else acknowledged.push(body.data.createSession.sessionId);
      }
      // The first may still fit in a page the journal holds; after a failure every write fails until space returns.
      expect(failures.length).toBeGreaterThanOrEqual(9);
      expect(new Set(failures)).toEqual(new Set(['SERVICE_UNAVAILABLE']));
      expect(await ready(server)).toEqual({
        status: 503,
        body: { status: 'unavailable', error: 'database writes failing' },
      });
      const storage = await post(server.graphqlUrl, '{ serverInfo { database { storage { status reason } } } }');
      expect(storage.body.data.serverInfo.database.storage).toEqual({
        status: 'WRITES_FAILING',
        reason: 'database writes failing',
      });

      await rm(filler);
      expect(await ready(server)).toEqual({ status: 200, body: { status: 'ready', database: 'EMBEDDED' } });
      const after = await post(server.graphqlUrl, CREATE, { input: { sessionId: 'after', metadata: { PAD } } });
      expect(after.body).toEqual({ data: { createSession: { sessionId: 'after' } } });
      acknowledged.push('after');
    } finally {
      server.child.kill('SIGTERM');
    }
    expect(await server.exited).toBe(0);

    server = await startBuiltServer(MOUNT);
    try {
      for (const id of acknowledged) {
        const { body } = await post(server.graphqlUrl, 'query($id: ID!) { session(id: $id) { sessionId } }', { id });
        expect(body).toEqual({ data: { session: { sessionId: id } } });
      }
    } finally {
      server.child.kill('SIGTERM');
    }
    expect(await server.exited).toBe(0);
  });
});
