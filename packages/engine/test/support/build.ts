import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

/** The engine package's directory. */
export const PACKAGE_ROOT = path.resolve(__dirname, '../..');

/**
 * Path of a compiled file of this package under dist/ (e.g. `src/cli.js`), building first when it is missing.
 * `npm test` builds before jest runs, so dist matches the sources there; a bare `npx jest` may run an older build.
 */
export function compiled(relative: string): string {
  const file = path.join(PACKAGE_ROOT, 'dist', relative);
  if (!existsSync(file))
    execFileSync('npx', ['tsc', '-b', 'tsconfig.build.json'], { cwd: PACKAGE_ROOT, stdio: 'inherit' });
  return file;
}
