import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Written under DATA_DIR while a server runs the embedded engine there, so `npm run keys` can refuse to open it. */
const PID_FILE = 'hindsight-server.pid';

export function writeServerPid(dataDir: string): void {
  writeFileSync(path.join(dataDir, PID_FILE), `${process.pid}\n`, { mode: 0o600 });
}

export function removeServerPid(dataDir: string): void {
  rmSync(path.join(dataDir, PID_FILE), { force: true });
}

/** The pid of a live server holding `dataDir`, or null (none, or a stale file of a process that is gone). */
export function runningServerPid(dataDir: string): number | null {
  let pid: number;
  try {
    pid = Number(readFileSync(path.join(dataDir, PID_FILE), 'utf8').trim());
  } catch {
    return null;
  }
  if (!Number.isInteger(pid) || pid <= 0) return null;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? pid : null;
  }
}
