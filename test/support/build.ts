import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '../..');

/**
 * Path of a compiled entry point under dist/, building first when it is missing. `npm test` always builds
 * before jest runs, so dist matches the sources there; a bare `npx jest` may run an older build.
 */
export function compiled(relative: string): string {
  const file = path.join(ROOT, 'dist', relative);
  if (!existsSync(file)) execFileSync('npx', ['tsc', '-b', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' });
  return file;
}

export interface SpawnedServer {
  child: ChildProcess;
  /** The GraphQL URL once the ready line is printed; rejects with the output when the process exits first. */
  ready: Promise<string>;
  /** Exit code (null: killed by `signal`) and everything it printed. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }>;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
}

/** Spawns the built server (`node dist/src/main.js`) with the hash embedder on `dataDir` and extra `env`. */
export function spawnServer(dataDir: string, env: Record<string, string> = {}): SpawnedServer {
  const child = spawn(process.execPath, [compiled('src/main.js')], {
    env: { ...process.env, DATA_DIR: dataDir, PORT: '0', EMBEDDINGS_PROVIDER: 'hash', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal, output })),
  );
  const ready = new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', () => {
      const api = /GraphQL API: (\S+)/.exec(output);
      if (api) resolve(api[1]);
    });
    void exited.then(({ code, signal }) => reject(new Error(`server exited with ${code ?? signal}:\n${output}`)));
  });
  ready.catch(() => undefined);
  return { child, ready, exited, output: () => output };
}
