/**
 * Consistent backups of a data directory, each a data directory an engine starts on as it is.
 *
 * - While the engine runs: the `createBackup` command (Percona Server for MongoDB's name and `backupDir` field),
 *   run against `admin`, takes the state at one instant (as a snapshot does: between two commands, so it holds
 *   every write acknowledged before it) and writes it to a new directory as `snapshot-…1.bson`, a
 *   `journal-…1.log` holding only its header, and the directory's `engine-id` (with the change log, so change streams resume on the copy).
 * - With the engine stopped: {@link backupDataDir} (`npm run db -- --backup DIR`) copies the data files and opens
 *   the copy, so that a backup which would not start is refused at once and the source is never changed.
 */
import { access, mkdir, rm } from 'node:fs/promises';
import { DIR_MODE } from './files';
import { join } from 'node:path';
import { ID_FILE } from './changes';
import {
  DurableLog,
  copyDurably,
  createJournal,
  journalName,
  listDataDir,
  snapshotName,
  syncDir,
  writeSnapshotFile,
  type FrozenImage,
} from './durability';
import { badValue } from './errors';
import { Store } from './store';

/** What a backup wrote. */
export interface BackupResult {
  /** The backup's directory, as given. */
  backupDir: string;
  /** The files in it. */
  files: string[];
}

/** Makes `to`, refusing one that exists: a backup never mixes with other files. */
async function newDirectory(to: string): Promise<void> {
  try {
    await mkdir(to, { mode: DIR_MODE });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') throw badValue(`backup: ${to} already exists; name a new directory`);
    throw error;
  }
}

/** Runs `write` into the new directory `to`; on any failure removes `to` again, so no half backup is left. */
async function intoNewDirectory(to: string, write: () => Promise<string[]>): Promise<BackupResult> {
  await newDirectory(to);
  try {
    const files = await write();
    await syncDir(to);
    return { backupDir: to, files };
  } catch (error) {
    await rm(to, { recursive: true, force: true });
    throw error;
  }
}

/** Writes `image`, taken from the engine on `dataDir`, as a new data directory `to` (see the file comment). */
export function writeBackup(dataDir: string, to: string, image: FrozenImage): Promise<BackupResult> {
  return intoNewDirectory(to, async () => {
    await writeSnapshotFile(join(to, snapshotName(1)), 1, image);
    await createJournal(to, 1);
    await copyDurably(dataDir, ID_FILE, to);
    return [snapshotName(1), journalName(1), ID_FILE];
  });
}

/**
 * Backs up the data directory of a stopped engine into the new directory `to`: copies its journals, snapshots and
 * `engine-id`, then recovers the copy (verifying every record; a torn tail is dropped from the copy only). Damage
 * that would stop a start fails the backup with the same DataDamagedError, and `to` is removed.
 */
export async function backupDataDir(dataDir: string, to: string): Promise<BackupResult> {
  const { journals, snapshots } = await listDataDir(dataDir);
  const hasId = await access(join(dataDir, ID_FILE)).then(
    () => true,
    () => false,
  );
  const names = [...snapshots.map(snapshotName), ...journals.map(journalName), ...(hasId ? [ID_FILE] : [])];
  return intoNewDirectory(to, async () => {
    for (const name of names) await copyDurably(dataDir, name, to);
    const copy = await DurableLog.open(to, new Store(), { expectData: hasId, compactAfterBytes: Infinity });
    await copy.close();
    const copied = await listDataDir(to);
    return [...copied.snapshots.map(snapshotName), ...copied.journals.map(journalName), ...(hasId ? [ID_FILE] : [])];
  });
}
