/**
 * `npm run bench:checks -- <base root>`: req/s of a representative read over HTTP on this build against another
 * build of the server (a checkout before the per-request security work, built with `npm run build`), to show what the
 * checks cost per request: key lookup, auth checker, rate limiter, request lifetime and bound Db, query limits.
 * The servers run at once, as users run them (hash embedder, embedded engine, each its own temporary DATA_DIR, same
 * seed), compared in paired rounds (paired.ts). `checked` is this build with API_KEYS, so each request resolves a key
 * and takes a token from its bucket (the limit set high enough never to refuse); `anonymous` is this build without
 * keys.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CONNECTIONS, EXPERIENCES, pairedRounds, seed, summary, versus } from './paired';
import { ROOT, startServer, type Child } from './processes';

const ROUNDS = Number(process.env.ROUNDS ?? 12);
const SECONDS = Number(process.env.SECONDS ?? 3);
const KEY = 'bench-key-0123456789abcdef';

function start(root: string, dataDir: string, env: Record<string, string>): Promise<Child> {
  return startServer({ root, dataDir, env: { LOG_LEVEL: 'warn', ...env } });
}

async function main(): Promise<void> {
  const baseRoot = path.resolve(process.argv[2] ?? '');
  if (!process.argv[2]) throw new Error('usage: npm run bench:checks -- <root of a built checkout to compare with>');
  const dirs = await Promise.all([0, 1, 2].map(() => mkdtemp(path.join(os.tmpdir(), 'hindsight-checks-'))));
  const auth = { authorization: `Bearer ${KEY}` };
  const servers: Child[] = [];
  try {
    const base = await start(baseRoot, dirs[0], {});
    servers.push(base);
    const checked = await start(ROOT, dirs[1], { API_KEYS: `${KEY}:admin`, RATE_LIMIT_PER_MIN: '100000000' });
    servers.push(checked);
    const anonymous = await start(ROOT, dirs[2], {});
    servers.push(anonymous);
    await seed(base.url);
    await seed(checked.url, auth);
    await seed(anonymous.url);
    const runs = await pairedRounds(
      [
        { name: 'base', server: base, headers: {} },
        { name: 'checked', server: checked, headers: auth },
        { name: 'anonymous', server: anonymous, headers: {} },
      ],
      ROUNDS,
      SECONDS,
    );
    console.log(
      JSON.stringify(
        {
          experiences: EXPERIENCES,
          connections: CONNECTIONS,
          seconds: SECONDS,
          ...summary(runs),
          // The key lookup and the rate limiter: the same build with and without keys.
          checkedVsAnonymous: versus(runs, 'checked', 'anonymous'),
          checkedVsBase: versus(runs, 'checked', 'base'),
          anonymousVsBase: versus(runs, 'anonymous', 'base'),
        },
        null,
        2,
      ),
    );
  } finally {
    for (const server of servers) await server.stop();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
