import { DocumentKeys } from '../../src/search/document-keys';
import { UNKNOWN_DOCUMENT } from '../../src/search/fingerprint';

describe('DocumentKeys', () => {
  it('candidates: ids whose key matches or is unknown, in the saved arrays and the keys set since; set keys win', () => {
    const keys = new DocumentKeys();
    keys.addSaved(['a', 'b', 'c', null, 'e'], Int32Array.from([1, 2, UNKNOWN_DOCUMENT, 1, 5]));
    keys.set('b', 7); // read back since: another document now
    keys.set('f', 2);
    expect(keys.candidates(new Set([1, 2])).sort()).toEqual(['a', 'c', 'f']);
    expect(keys.candidates(new Set([7])).sort()).toEqual(['b', 'c']);
    expect(keys.candidates(new Set([9]))).toEqual(['c']);
  });

  it('two snapshots that disagree on an id: a candidate for either key, unknown once merged', () => {
    const keys = new DocumentKeys();
    keys.addSaved(['a', 'b'], Int32Array.from([1, 2]));
    keys.addSaved(['a', 'b'], Int32Array.from([1, 3]));
    expect(keys.candidates(new Set([2]))).toEqual(['b']);
    expect(keys.candidates(new Set([3]))).toEqual(['b']);
    expect([keys.get('a'), keys.get('b'), keys.get('z')]).toEqual([1, UNKNOWN_DOCUMENT, UNKNOWN_DOCUMENT]);
    // Merged: b is unknown, so a candidate for any key.
    expect(keys.candidates(new Set([42]))).toEqual(['b']);
  });

  it('prune keeps the ids still held, saved or set', () => {
    const keys = new DocumentKeys();
    keys.addSaved(['a', 'b'], Int32Array.from([1, 2]));
    keys.set('c', 3);
    keys.prune((id) => id !== 'b');
    expect([keys.get('a'), keys.get('b'), keys.get('c')]).toEqual([1, UNKNOWN_DOCUMENT, 3]);
    expect(keys.candidates(new Set([2]))).toEqual([]);
    expect(() => keys.addSaved(['x'], new Int32Array(2))).toThrow(/add up/);
  });
});
