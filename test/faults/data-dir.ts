import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { spawnServer } from '../support/build';

/** Each file's SHA-256 under `dir` (recursively, by relative path; the socket left out): equal means untouched. */
export async function fingerprint(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    out[path.relative(dir, file)] = createHash('sha256')
      .update(await readFile(file))
      .digest('hex');
  }
  return out;
}

export interface StartedServer {
  child: ChildProcess;
  graphqlUrl: string;
  /** Everything the process printed so far (stdout and stderr). */
  output(): string;
  exited: Promise<number | null>;
}

/** Starts the built server (`node dist/src/main.js`) on `dataDir` and resolves once it prints its GraphQL URL. */
export async function startBuiltServer(dataDir: string, env: Record<string, string> = {}): Promise<StartedServer> {
  const server = spawnServer(dataDir, { HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env });
  let timer: NodeJS.Timeout | undefined;
  const tooLong = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`server did not start:\n${server.output()}`)), 30000);
  });
  try {
    const graphqlUrl = await Promise.race([server.ready, tooLong]);
    return { child: server.child, graphqlUrl, output: server.output, exited: server.exited.then(({ code }) => code) };
  } finally {
    clearTimeout(timer);
  }
}

/** POSTs one GraphQL operation; resolves with the status and the parsed reply. */
export async function post(
  url: string,
  query: string,
  variables?: Record<string, unknown>,
): Promise<{ status: number; body: any }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  return { status: response.status, body: await response.json() };
}
