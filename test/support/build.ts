import { execFileSync } from 'node:child_process';
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
