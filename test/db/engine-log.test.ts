/** The embedded engine's log lines reach the app's log at the engine's level: a dropped torn tail is a WARN. */
import { appendFile, mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { connectDatabase } from '../../src/db/connection';
import { createLogger } from '../../src/logger';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'engine-log-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

async function start(dataDir: string, lines: string[]) {
  return connectDatabase(
    {
      mongodbUri: undefined,
      mongodbDb: 'hindsight',
      dbTimeoutMs: 5_000,
      dataDir,
      engineCompactAfterBytes: 64 << 20,
      engineChangeLogEvents: 1_000,
    },
    createLogger('debug', (line) => lines.push(line)),
  );
}

test('a torn journal tail dropped at start shows in the app log as WARN, not INFO', async () => {
  const dataDir = path.join(dir, 'data');
  const first = await start(dataDir, []);
  await first.db.collection('notes').insertMany([{ text: 'a' }, { text: 'b' }]);
  await first.close();
  // What a crash mid-write leaves: the start of a record that never finished.
  const journal = (await readdir(dataDir))
    .filter((name) => name.startsWith('journal-'))
    .sort()
    .at(-1)!;
  await appendFile(path.join(dataDir, journal), Buffer.from([0x40, 0, 0, 0, 1, 2, 3]));

  const lines: string[] = [];
  const second = await start(dataDir, lines);
  try {
    expect(await second.db.collection('notes').countDocuments()).toBe(2);
  } finally {
    await second.close();
  }
  const engineLines = lines
    .map((line) => JSON.parse(line) as { level: string; message: string; component?: string })
    .filter((entry) => entry.component === 'embedded-engine');
  expect(engineLines.filter((entry) => entry.message.includes('torn tail'))).toEqual([
    expect.objectContaining({ level: 'warn', message: expect.stringContaining('discarded a torn tail of 7 bytes') }),
  ]);
});
