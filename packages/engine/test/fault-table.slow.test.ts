/**
 * Every kind of data file the engine writes (the journal, a snapshot, engine-id) × a byte flipped at its start, 5%,
 * 50%, 90% and last byte × truncated to 0, mid-record and one byte short. Each start either serves every document
 * before a torn tail (the last record cut short, dropped with a warning naming its bytes) or stops with a
 * DataDamagedError naming the file and offset and leaves every file byte-identical; never a crash or a silent loss.
 * After a refusal, repair starts the directory and its report names the file. (spill-* files are rebuilt at every
 * start and engine.sock is a socket: neither holds data. The search index's files: test/search/persistence.)
 */
import { readdir, readFile, stat, truncate } from 'node:fs/promises';
import path from 'node:path';
import { DataDamagedError, repairDataDir, startEmbeddedServer } from '../src/index';
import {
  J,
  count,
  fingerprint,
  flipByte,
  journalOf,
  recordOffsets,
  removeTempDirs,
  withEngine,
} from './support/data-dir';

const DOCS = 40;
afterAll(removeTempDirs);

interface Kind {
  /** A data directory of DOCS documents and the name of the file of this kind in it. */
  make(): Promise<{ dir: string; name: string }>;
  /** Whether the file is framed in records (journal, snapshot) and may have a torn tail (only the journal). */
  records: boolean;
  tornTail: boolean;
}

const KINDS: Record<string, Kind> = {
  journal: { records: true, tornTail: true, make: async () => ({ dir: await journalOf(DOCS), name: J(1) }) },
  snapshot: {
    records: true,
    tornTail: false,
    make: async () => {
      const dir = await journalOf(DOCS, { compactAfterBytes: 2048 });
      await withEngine(dir, async () => undefined, { compactAfterBytes: 1 }); // one snapshot of everything
      const name = (await readdir(dir)).filter((n) => n.startsWith('snapshot-')).sort()[0];
      return { dir, name };
    },
  },
  'engine-id': {
    records: false,
    tornTail: false,
    make: async () => ({ dir: await journalOf(DOCS), name: 'engine-id' }),
  },
};

type Damage = (file: string, size: number) => Promise<void>;
const flipAt =
  (share: number | 'last'): Damage =>
  (file, size) =>
    flipByte(file, share === 'last' ? size - 1 : Math.floor(size * share));
const DAMAGES: Record<string, Damage> = {
  'byte 0 flipped': flipAt(0),
  'a byte at 5% flipped': flipAt(0.05),
  'a byte at 50% flipped': flipAt(0.5),
  'a byte at 90% flipped': flipAt(0.9),
  'the last byte flipped': flipAt('last'),
  'truncated to 0 bytes': (file) => truncate(file, 0),
  'truncated mid-record': async (file, size) => {
    const offsets = recordOffsets(await readFile(file));
    const middle = offsets[Math.floor(offsets.length / 2)] ?? 0;
    await truncate(file, offsets.length > 1 ? middle + 5 : Math.floor(size / 2));
  },
  'truncated one byte short': (file, size) => truncate(file, size - 1),
};

const CASES = Object.keys(KINDS).flatMap((kind) => Object.keys(DAMAGES).map((damage) => [kind, damage] as const));

describe('every data file kind', () => {
  it.each(CASES)('%s, %s: served whole up to a torn tail, or refused naming file and offset', async (kind, damage) => {
    const { dir, name } = await KINDS[kind].make();
    const file = path.join(dir, name);
    const original = await readFile(file);
    await DAMAGES[damage](file, original.length);
    const damaged = await readFile(file);
    const before = await fingerprint(dir);

    const lines: { line: string; level?: string }[] = [];
    const outcome = await startEmbeddedServer({
      dataDir: dir,
      port: 0,
      log: (line, level) => lines.push({ line, level }),
    }).then(
      async (engine) => {
        await engine.close();
        return null;
      },
      (error: unknown) => error,
    );

    if (outcome === null) {
      // Served: only a torn tail of the journal may be dropped, with a warning; everything before it is there.
      const torn = lines.filter((l) => l.line.includes('torn tail'));
      if (torn.length > 0) {
        expect(KINDS[kind].tornTail).toBe(true);
        expect(torn).toEqual([{ line: expect.stringContaining(name), level: 'warn' }]);
        // One document per record after the journal's header: those before the first record changed or cut are
        // served, no fewer.
        let intact = -1;
        for (const at of recordOffsets(original)) {
          const end = at + 8 + original.readUInt32LE(at);
          if (end > damaged.length || !damaged.subarray(at, end).equals(original.subarray(at, end))) break;
          intact++;
        }
        expect(await count(dir)).toBe(intact);
      } else {
        // Nothing dropped: every document (e.g. engine-id without its trailing newline still names the directory).
        expect(await count(dir)).toBe(DOCS);
      }
      return;
    }

    expect(outcome).toBeInstanceOf(DataDamagedError);
    const error = outcome as DataDamagedError;
    expect(error.file).toBe(name);
    expect(error.offset === null || (Number.isInteger(error.offset) && error.offset <= damaged.length)).toBe(true);
    expect(error.message).toContain(name);
    expect(error.message).toContain('--repair');
    expect(await fingerprint(dir)).toEqual(before);

    const report = await repairDataDir(dir);
    expect(report.files.map((entry) => entry.file)).toContain(name);
    expect(report.summary.join('\n')).toContain(name);
    const served = await count(dir);
    expect(served).toBeLessThanOrEqual(DOCS);
    if (kind === 'engine-id') expect(served).toBe(DOCS); // the id moved aside; the data is whole
    expect((await stat(path.join(report.damagedDir!, name))).size).toBe(damaged.length); // the original, kept aside
  });
});
