import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statfsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's built server (`npm run build` at the root writes it; the root `npm test` builds first). */
const MAIN = fileURLToPath(new URL('../../../../../dist/src/main.js', import.meta.url));

export const KEYS = { writer: 'strands-writer-key', reader: 'strands-reader-key', admin: 'strands-admin-key' };

export interface RunningHindsight {
  /** The GraphQL URL. */
  url: string;
  stop(): Promise<void>;
}

/** A scratch directory on tmpfs when there is room (the engine syncs its journal on every write), as the root tests do. */
function scratchRoot(): string {
  if (process.env.TMPDIR) return os.tmpdir();
  try {
    const { bavail, bsize } = statfsSync('/dev/shm');
    if (bavail * bsize >= 2 ** 30) return '/dev/shm';
  } catch {
    // No /dev/shm: the system's temporary directory.
  }
  return os.tmpdir();
}

/**
 * Starts the real Hindsight server (`node dist/src/main.js`) on its embedded engine in a fresh DATA_DIR, with the hash
 * embedder and a writer, a reader and an admin key; resolves with its GraphQL URL once it says it listens.
 */
export async function startHindsight(): Promise<RunningHindsight> {
  const dataDir = mkdtempSync(path.join(scratchRoot(), 'hindsight-strands-'));
  const child = spawn(process.execPath, [MAIN], {
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      PORT: '0',
      EMBEDDINGS_PROVIDER: 'hash',
      // Recall's MESSAGES part (messages written by addMessages come back as memory) needs the opt-in message index.
      MESSAGE_INDEX: 'true',
      LOG_LEVEL: 'warn',
      API_KEYS: `${KEYS.writer}:writer,${KEYS.reader}:reader,${KEYS.admin}:admin`,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk;
      const api = /GraphQL API: (\S+)/.exec(output);
      if (api) resolve(api[1]);
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    void exited.then(() => reject(new Error(`Hindsight exited before listening:\n${output}`)));
  });
  return {
    url,
    async stop() {
      child.kill('SIGTERM');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
