import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DocumentIds, Fingerprints, RowIds } from '../../src/search/document-ids';
import { UNKNOWN_DOCUMENT } from '../../src/search/fingerprint';
import { SnapshotReader, SnapshotWriter, readChecked } from '../../src/search/snapshot';

/** Numbers for `ids` (null: -1), as a snapshot's column would give them. */
function numbersOf(documents: DocumentIds, ids: Array<string | null>): Int32Array {
  return Int32Array.from(ids, (id) => (id === null ? -1 : documents.number(id)));
}

describe('DocumentIds', () => {
  it('candidates: ids whose key matches or is unknown, from saved keys and keys read since; read keys win', () => {
    const documents = new DocumentIds();
    documents.addSavedKeys(
      numbersOf(documents, ['a', 'b', 'c', null, 'e']),
      Int32Array.from([1, 2, UNKNOWN_DOCUMENT, 1, 5]),
    );
    documents.setKey('b', 7); // read back since: another document now
    documents.setKey('f', 2);
    expect(documents.candidates(new Set([1, 2])).sort()).toEqual(['a', 'c', 'f']);
    expect(documents.candidates(new Set([7])).sort()).toEqual(['b', 'c']);
    expect(documents.candidates(new Set([9]))).toEqual(['c']);
    // An id numbered without a key yet (a write of this server) is a candidate for any key.
    documents.number('g');
    expect(documents.key('g')).toBe(UNKNOWN_DOCUMENT);
    expect(documents.candidates(new Set([9])).sort()).toEqual(['c', 'g']);
  });

  it('two snapshots that disagree on an id leave its key unknown; the first one sets it', () => {
    const documents = new DocumentIds();
    const numbers = numbersOf(documents, ['a', 'b']);
    documents.addSavedKeys(numbers, Int32Array.from([1, 2]));
    documents.addSavedKeys(numbers, Int32Array.from([1, 3]));
    expect([documents.key('a'), documents.key('b'), documents.key('z')]).toEqual([
      1,
      UNKNOWN_DOCUMENT,
      UNKNOWN_DOCUMENT,
    ]);
    expect(documents.candidates(new Set([42]))).toEqual(['b']);
    expect(() => documents.addSavedKeys(numbers, new Int32Array(3))).toThrow(/add up/);
  });

  it('structures of several spaces share the numbers; a snapshot id table equal to the last one is not parsed again', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'document-ids-'));
    try {
      const readerOf = async (ids: Array<string | null>, name: string) => {
        const out = new SnapshotWriter();
        out.ids('rows', ids);
        const check = out.write(path.join(dir, name));
        return new SnapshotReader(await readChecked(path.join(dir, name), check), out.sections);
      };
      const documents = new DocumentIds();
      const parse = jest.spyOn(SnapshotReader.prototype, 'json');
      const first = (await readerOf(['x', null, 'y', 'z'], 'a')).idNumbers('rows', documents);
      const second = (await readerOf(['x', null, 'y', 'z'], 'b')).idNumbers('rows', documents);
      const third = (await readerOf(['z', 'w'], 'c')).idNumbers('rows', documents);
      expect(parse).toHaveBeenCalledTimes(2);
      parse.mockRestore();
      expect([...second]).toEqual([...first]);
      expect(first[1]).toBe(-1);
      expect(third[0]).toBe(first[3]);
      expect(documents.capacity).toBe(4);
      const rows = [RowIds.restore(documents, first, 8), RowIds.restore(documents, second, 8)];
      expect(rows.map((space) => [space.rowOf('y'), space.idOf(2), space.idOf(1), space.size])).toEqual([
        [2, 'y', null, 3],
        [2, 'y', null, 3],
      ]);
      expect(() => RowIds.restore(documents, Int32Array.from([first[0], first[0]]), 8)).toThrow(/two rows/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('frees the numbers no structure holds once enough ids were dropped, and gives them to new ids', () => {
    const documents = new DocumentIds();
    const vectors = new RowIds(documents);
    const fingerprints = new Fingerprints(documents);
    for (let i = 0; i < 3000; i++) {
      vectors.set(`d${i}`, i);
      fingerprints.set(`d${i}`, i / 7);
      documents.setKey(`d${i}`, i);
    }
    // d0..d1199 leave the fingerprints, then the vectors.
    for (let i = 0; i < 1200; i++) fingerprints.delete(`d${i}`);
    expect(documents.capacity).toBe(3000);
    expect(documents.numberOf('d0')).toBeDefined();
    for (let i = 0; i < 1200; i++) vectors.delete(`d${i}`);
    // The 1,024th release came with d847 out of the vectors: d0..d847 were held by neither then, and freed.
    expect(documents.numberOf('d0')).toBeUndefined();
    expect(documents.numberOf('d847')).toBeUndefined();
    expect(documents.numberOf('d848')).toBeDefined();
    expect([
      vectors.rowOf('d1200'),
      vectors.idOf(1200),
      vectors.idOf(5),
      fingerprints.get('d1199'),
      fingerprints.get('d1200'),
    ]).toEqual([1200, 'd1200', null, undefined, 1200 / 7]);
    expect(documents.candidates(new Set([5]))).toEqual([]);
    expect(documents.key('d900')).toBe(900);
    const reused = documents.number('new');
    expect(reused).toBeLessThan(848);
    expect(documents.key('new')).toBe(UNKNOWN_DOCUMENT);
    expect(documents.capacity).toBe(3000);
  });
});

describe('Fingerprints', () => {
  it('holds a value per id; saved() lists ids, values and keys aligned', () => {
    const documents = new DocumentIds();
    const fingerprints = new Fingerprints(documents);
    fingerprints.set('a', 0.5);
    fingerprints.set('b', -2);
    fingerprints.set('a', 1.5);
    documents.setKey('b', 9);
    expect([fingerprints.size, fingerprints.get('a'), fingerprints.has('c'), fingerprints.delete('c')]).toEqual([
      2,
      1.5,
      false,
      false,
    ]);
    const saved = fingerprints.saved();
    expect([saved.ids, [...saved.values], [...saved.keys]]).toEqual([
      ['a', 'b'],
      [1.5, -2],
      [UNKNOWN_DOCUMENT, 9],
    ]);
    const restored = Fingerprints.restore(documents, numbersOf(documents, saved.ids), saved.values);
    expect([restored.size, restored.get('b'), restored.ids()]).toEqual([2, -2, ['a', 'b']]);
    expect(fingerprints.delete('a')).toBe(true);
    expect([fingerprints.size, fingerprints.ids(), restored.ids()]).toEqual([1, ['b'], ['a', 'b']]);
  });
});
