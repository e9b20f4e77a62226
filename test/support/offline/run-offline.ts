import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * Runs `script` (a TypeScript file of this folder, with `args`) in a child process under no-network.js, which makes
 * every socket, HTTP, fetch or DNS attempt of any thread fail and records it. Resolves to what the child printed,
 * the threads the guard was loaded in (sorted) and the attempts made.
 */
export async function runOffline(
  script: string,
  args: string[] = [],
): Promise<{ stdout: string; guarded: string[]; attempts: Array<Record<string, string>> }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hindsight-offline-'));
  const networkLog = path.join(dir, 'network.log');
  try {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        '-r',
        path.join(__dirname, 'no-network.js'),
        '-r',
        path.join(__dirname, 'ts-register.js'),
        path.join(__dirname, script),
        ...args,
      ],
      { env: { ...process.env, NETWORK_LOG: networkLog }, timeout: 60_000 },
    );
    const entries = readFileSync(networkLog, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, string>);
    return {
      stdout,
      guarded: entries.flatMap((entry) => entry.loaded ?? []).sort(),
      attempts: entries.filter((entry) => entry.attempt),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
