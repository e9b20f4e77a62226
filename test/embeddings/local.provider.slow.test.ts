import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const support = path.join(__dirname, '../support/offline');

interface OfflineResult {
  signature: { provider: string; model: string; dimensions: number };
  lengths: number[];
  norms: number[];
  similar: number[];
  unrelated: number[];
}

// Loads the real model (about a second and ~250 MB): the only test that does.
test('the local provider embeds offline: no socket, HTTP, fetch or DNS attempt in any thread; paraphrases score above unrelated sentences', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hindsight-offline-'));
  const networkLog = path.join(dir, 'network.log');
  try {
    const { stdout } = await run(
      process.execPath,
      [
        '-r',
        path.join(support, 'no-network.js'),
        '-r',
        path.join(support, 'ts-register.js'),
        path.join(support, 'embed-offline.ts'),
      ],
      { env: { ...process.env, NETWORK_LOG: networkLog }, timeout: 60_000 },
    );
    const entries = readFileSync(networkLog, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, string>);
    // The guard was active in the main thread and in the model's worker thread...
    expect(
      entries
        .filter((entry) => entry.loaded)
        .map((entry) => entry.loaded)
        .sort(),
    ).toEqual(['main', 'worker']);
    // ...and nothing tried to go out.
    expect(entries.filter((entry) => entry.attempt)).toEqual([]);

    const result = JSON.parse(stdout) as OfflineResult;
    expect(result.signature).toEqual({ provider: 'local', model: 'universal-sentence-encoder-lite', dimensions: 512 });
    expect(result.lengths.every((length) => length === 512)).toBe(true);
    result.norms.forEach((norm) => expect(norm).toBeCloseTo(1, 5));
    expect(Math.min(...result.similar)).toBeGreaterThan(Math.max(...result.unrelated) + 0.1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
