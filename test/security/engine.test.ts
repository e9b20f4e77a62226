/**
 * The embedded engine the app starts (MONGODB_URI unset) is reachable only through a Unix socket in its private
 * DATA_DIR: no TCP port, a 0700 directory, 0600 files. Another local user can neither connect nor read the data.
 */
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { connectDatabase } from '../../src/db/connection';
import { silentLogger } from '../../src/logger';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'engine-security-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const mode = async (file: string): Promise<number> => (await stat(file)).mode & 0o777;

test('the embedded engine has no TCP listener, only a 0600 socket in a 0700 DATA_DIR whose files are 0600', async () => {
  const dataDir = path.join(dir, 'data');
  const connection = await connectDatabase(
    {
      mongodbUri: undefined,
      mongodbDb: 'hindsight',
      dbTimeoutMs: 5_000,
      dataDir,
      engineCompactAfterBytes: 64 << 20,
      engineChangeLogEvents: 1_000,
    },
    silentLogger,
  );
  try {
    const { embedded } = connection;
    expect([embedded?.host, embedded?.port]).toEqual([undefined, undefined]);
    expect(embedded?.socketPath).toBe(path.join(dataDir, 'engine.sock'));
    expect(embedded?.uri.startsWith(`mongodb://${encodeURIComponent(dataDir)}`)).toBe(true);
    await connection.db.collection('notes').insertOne({ text: 'personal data' });
    expect(await mode(dataDir)).toBe(0o700);
    expect(await mode(embedded!.socketPath!)).toBe(0o600);
    const files = (await readdir(dataDir)).filter((name) => name !== 'engine.sock');
    expect(files.length).toBeGreaterThan(0);
    for (const name of files) expect([name, await mode(path.join(dataDir, name))]).toEqual([name, 0o600]);
  } finally {
    await connection.close();
  }
});
