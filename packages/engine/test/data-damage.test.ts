/**
 * Damage to the data directory is never silent: the real engine start refuses a damaged or missing file and leaves
 * the files as they are; a torn tail is still dropped (with a warning); repair keeps every verifiable record.
 */
import { mkdir, readdir, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { deserialize, serialize } from 'bson';
import { frame, isJournalHeader, journalHeader } from '../src/durability';
import { DataDamagedError, repairDataDir, startEmbeddedServer } from '../src/index';
import {
  J,
  count,
  fingerprint,
  flipByte,
  journalOf,
  recordOffsets,
  removeTempDirs,
  tempDir,
  withEngine,
} from './support/data-dir';

const DOCS = 60;

afterAll(removeTempDirs);

async function expectRefused(dir: string, file: string, offset: number | null): Promise<DataDamagedError> {
  const before = await fingerprint(dir);
  const error = await startEmbeddedServer({ dataDir: dir, port: 0 }).then(
    () => {
      throw new Error('the engine started');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DataDamagedError);
  const damaged = error as DataDamagedError;
  expect(damaged).toMatchObject({ file, offset });
  expect(damaged.message).toContain(file);
  expect(damaged.message).toContain('--repair');
  expect(await fingerprint(dir)).toEqual(before);
  return damaged;
}

describe('a damaged journal', () => {
  it.each([0.05, 0.5, 0.9])('a byte flipped at %p of it refuses the start, naming file and offset', async (share) => {
    const dir = await journalOf(DOCS);
    const file = path.join(dir, J(1));
    const data = await readFile(file);
    const at = Math.floor(data.length * share);
    const record = recordOffsets(data)
      .filter((offset) => offset <= at)
      .at(-1)!;
    await flipByte(file, at);

    const error = await expectRefused(dir, J(1), record);
    expect(error.message).toContain(`byte ${record}`);
  });

  it('a torn tail is dropped with a warning naming the bytes, and the records before it are kept', async () => {
    const dir = await journalOf(20);
    const file = path.join(dir, J(1));
    const size = (await stat(file)).size;
    await truncate(file, size - 7);
    const lastRecord = recordOffsets(await readFile(path.join(dir, J(1)))).at(-1)!;

    let docs = 0;
    const lines = await withEngine(dir, async (client) => {
      docs = await client.db('app').collection('c').countDocuments();
    });
    expect(docs).toBe(19);
    const torn = lines.filter((l) => l.line.includes('torn tail'));
    expect(torn).toEqual([{ line: expect.stringContaining(`${size - 7 - lastRecord} bytes`), level: 'warn' }]);
  });

  it('repair keeps every record after the damage, copies the original aside and reports the loss', async () => {
    const dir = await journalOf(DOCS);
    const file = path.join(dir, J(1));
    const original = await readFile(file);
    const offsets = recordOffsets(original).slice(1); // after the journal's header
    const damaged = offsets[Math.floor(offsets.length / 2)];
    const recordBytes = offsets[Math.floor(offsets.length / 2) + 1] - damaged;
    await flipByte(file, damaged + 20);

    const report = await repairDataDir(dir);
    expect(report.files).toEqual([
      expect.objectContaining({
        file: J(1),
        status: 'damaged',
        keptRecords: offsets.length - 1,
        lost: [{ offset: damaged, bytes: recordBytes, records: 1 }],
      }),
    ]);
    expect(report.summary[0]).toContain(`${recordBytes} bytes at byte ${damaged}`);
    const saved = JSON.parse(await readFile(report.reportFile!, 'utf8'));
    expect(saved.files[0].lost).toEqual(report.files[0].lost);
    const aside = await readFile(path.join(report.damagedDir!, J(1)));
    expect(aside.equals(original)).toBe(false); // the damaged file, as found
    expect(aside.length).toBe(original.length);

    // One insert per record, the first record also creating the collection: exactly one document is lost.
    expect(await count(dir)).toBe(DOCS - 1);
    expect(await repairDataDir(dir)).toMatchObject({ damagedDir: null, summary: ['nothing to repair'] });
  });

  it('repair leaves out a later update of a document whose insert was lost, so the engine starts', async () => {
    const dir = await tempDir();
    await withEngine(dir, async (client) => {
      const coll = client.db('app').collection<{ _id: number; n: number }>('c');
      for (let i = 0; i < 10; i++) await coll.insertOne({ _id: i, n: i });
      await coll.updateOne({ _id: 5 }, { $set: { n: 50 } }); // journaled as a patch of document 5
      await coll.updateOne({ _id: 6 }, { $set: { n: 60 } });
    });
    const file = path.join(dir, J(1));
    const offsets = recordOffsets(await readFile(file)).slice(1); // after the journal's header
    expect(offsets).toHaveLength(12);
    await flipByte(file, offsets[5] + 20); // the insert of document 5

    const report = await repairDataDir(dir);
    const droppedOps = [
      { kind: 'patch', ns: 'app.c', id: '5', reason: expect.stringContaining('names a document that does not exist') },
    ];
    expect(report.files).toEqual([
      expect.objectContaining({
        file: J(1),
        keptRecords: 11, // the patch's record keeps its clock op
        droppedRecords: 0,
        droppedOps,
        lost: [expect.anything()],
      }),
    ]);
    expect(report.summary[0]).toContain('a patch left out');
    expect(JSON.parse(await readFile(report.reportFile!, 'utf8')).files[0].droppedOps).toEqual(droppedOps);

    let docs: unknown[] = [];
    await withEngine(dir, async (client) => {
      docs = await client.db('app').collection('c').find().sort({ _id: 1 }).toArray();
    });
    const expected = [0, 1, 2, 3, 4, 6, 7, 8, 9].map((i) => ({ _id: i, n: i === 6 ? 60 : i }));
    expect(docs).toEqual(expected);
    expect(await repairDataDir(dir)).toMatchObject({ damagedDir: null, summary: ['nothing to repair'] });
  });

  it('an update of a document no record inserts, in a directory not repaired, still stops the start', async () => {
    const dir = await tempDir();
    await withEngine(dir, async (client) => {
      const coll = client.db('app').collection<{ _id: number; n: number }>('c');
      for (let i = 0; i < 3; i++) await coll.insertOne({ _id: i, n: i });
      await coll.updateOne({ _id: 1 }, { $set: { n: 10 } });
    });
    // The insert of document 1 cut out whole: every record left verifies, so only replay can tell.
    const file = path.join(dir, J(1));
    const data = await readFile(file);
    const offsets = recordOffsets(data).slice(1); // after the journal's header
    await writeFile(file, Buffer.concat([data.subarray(0, offsets[1]), data.subarray(offsets[2])]));
    await expect(startEmbeddedServer({ dataDir: dir, port: 0 })).rejects.toThrow(
      'a journaled update of app.c names a document that does not exist: 1',
    );

    const report = await repairDataDir(dir);
    expect(report.files).toEqual([
      expect.objectContaining({
        file: J(1),
        lost: [],
        droppedOps: [expect.objectContaining({ kind: 'patch', id: '1' })],
      }),
    ]);
    expect(await count(dir)).toBe(2);
  });
});

describe('missing files', () => {
  /** A directory that has compacted: snapshot-N and journal-N. */
  async function compacted(): Promise<{ dir: string; seq: number }> {
    const dir = await journalOf(DOCS, { compactAfterBytes: 2048 });
    const snapshots = (await readdir(dir)).filter((name) => name.startsWith('snapshot-')).sort();
    expect(snapshots.length).toBeGreaterThan(0);
    return { dir, seq: Number(/\d+/.exec(snapshots.at(-1)!)![0]) };
  }

  it('a journal a snapshot expects, deleted: refused; repair starts it with the snapshot', async () => {
    const { dir, seq } = await compacted();
    const inJournal = recordOffsets(await readFile(path.join(dir, J(seq)))).length - 1; // less its header
    await rm(path.join(dir, J(seq)));
    await expectRefused(dir, J(seq), null);

    const report = await repairDataDir(dir);
    expect(report.files).toEqual([expect.objectContaining({ file: J(seq), status: 'missing' })]);
    expect(await count(dir)).toBe(DOCS - inJournal);
  });

  it('a gap in the journals: refused, naming the missing one', async () => {
    const dir = await journalOf(3);
    await writeFile(path.join(dir, J(3)), '');
    await expectRefused(dir, J(2), null);
  });

  it('the only journal deleted, with the id file left: refused instead of starting empty', async () => {
    const dir = await journalOf(3);
    await rm(path.join(dir, J(1)));
    await expectRefused(dir, J(1), null);
  });

  it.each([
    ['and the id file', [J(1), 'engine-id']],
    ['with the id file left', [J(1)]],
  ])(
    'the only journal deleted %s, a search index left: refused; repair moves the index aside, starts empty',
    async (_, deleted) => {
      const dir = await journalOf(3);
      await mkdir(path.join(dir, 'search'));
      await writeFile(path.join(dir, 'search', 'manifest.json'), '{"position":3}');
      for (const name of deleted) await rm(path.join(dir, name));
      const damaged = await expectRefused(dir, J(1), null);
      expect(damaged.detail).toContain(deleted.length === 2 ? 'search/, built from its data,' : 'its id file');

      const report = await repairDataDir(dir);
      expect(report.files.map(({ file, status }) => [file, status])).toEqual([
        ...(deleted.length === 1 ? [['engine-id', 'missing']] : []),
        ['search', 'stale'],
      ]);
      expect(await readFile(path.join(report.damagedDir!, 'search', 'manifest.json'), 'utf8')).toBe('{"position":3}');
      expect(await count(dir)).toBe(0);
      expect((await repairDataDir(dir)).summary).toEqual(['nothing to repair']);
    },
  );
});

describe('a damaged snapshot', () => {
  it('refuses the start naming it and the offset; repair keeps the documents it can place', async () => {
    const dir = await journalOf(DOCS, { compactAfterBytes: 2048 });
    await withEngine(dir, async () => undefined, { compactAfterBytes: 1 }); // one snapshot of everything
    const name = (await readdir(dir))
      .filter((n) => n.startsWith('snapshot-'))
      .sort()
      .at(-1)!;
    const file = path.join(dir, name);
    const data = await readFile(file);
    const offsets = recordOffsets(data);
    await flipByte(file, offsets[2] + 12); // past the header and the database: a collection or documents record

    await expectRefused(dir, name, offsets[2]);
    const report = await repairDataDir(dir);
    expect(report.files[0]).toMatchObject({
      file: name,
      status: 'damaged',
      lost: [{ offset: offsets[2], records: 1 }],
    });
    const docs = await count(dir);
    expect(docs).toBeLessThan(DOCS);
  });
});

describe('journal headers', () => {
  /** Rewrites `dir` as the engine wrote it before journals had headers: none in journals, no flag in snapshots. */
  async function asBeforeHeaders(dir: string): Promise<void> {
    for (const name of await readdir(dir)) {
      const file = path.join(dir, name);
      const data = await readFile(file);
      if (name.startsWith('journal-')) {
        expect(isJournalHeader(data.subarray(8, 8 + data.readUInt32LE(0)))).toBe(true);
        await writeFile(file, data.subarray(8 + data.readUInt32LE(0)));
      } else if (name.startsWith('snapshot-')) {
        const header = deserialize(data.subarray(9, 8 + data.readUInt32LE(0)));
        expect(header.journalHeaders).toBe(true);
        const old = frame([Uint8Array.of(0x48), serialize({ format: header.format, seq: header.seq })]);
        await writeFile(file, Buffer.concat([old, data.subarray(8 + data.readUInt32LE(0))]));
      }
    }
  }

  it('a journal emptied after a snapshot: refused at byte 0; repair starts it with the snapshot', async () => {
    const dir = await journalOf(DOCS, { compactAfterBytes: 2048 });
    const seq = Math.max(
      ...(await readdir(dir)).filter((n) => n.startsWith('journal-')).map((n) => Number(/\d+/.exec(n))),
    );
    const inJournal = recordOffsets(await readFile(path.join(dir, J(seq)))).length - 1;
    await truncate(path.join(dir, J(seq)), 0);
    const error = await expectRefused(dir, J(seq), 0);
    expect(error.detail).toContain('is empty where a journal header is expected');

    const report = await repairDataDir(dir);
    expect(report.files).toEqual([expect.objectContaining({ file: J(seq), status: 'damaged' })]);
    expect(await count(dir)).toBe(DOCS - inJournal);
  });

  it('a data directory written before headers still opens, and its empty journal after a snapshot too', async () => {
    const dir = await journalOf(DOCS, { compactAfterBytes: 2048 });
    const seq = Math.max(
      ...(await readdir(dir)).filter((n) => n.startsWith('journal-')).map((n) => Number(/\d+/.exec(n))),
    );
    const inJournal = recordOffsets(await readFile(path.join(dir, J(seq)))).length - 1;
    await asBeforeHeaders(dir);
    expect(await count(dir)).toBe(DOCS);

    await truncate(path.join(dir, J(seq)), 0); // as a compaction left it: the old format cannot tell this from loss
    expect(await count(dir)).toBe(DOCS - inJournal);
  });

  it("another journal's header: refused naming the file", async () => {
    const dir = await journalOf(3);
    const data = await readFile(path.join(dir, J(1)));
    await writeFile(path.join(dir, J(1)), Buffer.concat([journalHeader(7), data.subarray(8 + data.readUInt32LE(0))]));
    const error = await expectRefused(dir, J(1), 0);
    expect(error.detail).toContain('the header of journal 7');
  });
});
