/**
 * Modes of everything the engine writes: the data is readable by its own user only. New files are created 0600 and
 * directories 0700; `makePrivate` tightens a data dir written before (or by a copy that kept wider modes) at start.
 */
import { chmod, mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';

export const FILE_MODE = 0o600;
export const DIR_MODE = 0o700;

/** Creates `dataDir` if missing and makes it, and everything in it, accessible to this user only. */
export async function makePrivate(dataDir: string): Promise<void> {
  await mkdir(dataDir, { recursive: true, mode: DIR_MODE });
  await chmod(dataDir, DIR_MODE);
  const pending = [dataDir];
  while (pending.length) {
    const dir = pending.pop()!;
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        await chmod(path, DIR_MODE);
        pending.push(path);
      } else if (entry.isFile()) {
        await chmod(path, FILE_MODE);
      }
    }
  }
}
