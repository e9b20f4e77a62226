import { BSON, Binary, Double, Int32, Long, type Document } from 'mongodb';
import { RawFingerprints, UNKNOWN_DOCUMENT, documentKey, fingerprint } from '../../src/search/fingerprint';
import { entryOf, type SpaceDefinition } from '../../src/search/space';

const GOAL: SpaceDefinition = {
  name: 'items.goal',
  collection: 'items',
  idField: 'meta.id',
  vectorPath: 'embeddings.goal',
  textPaths: ['goal'],
};
const NOTES: SpaceDefinition = {
  name: 'items.notes',
  collection: 'items',
  idField: 'meta.id',
  vectorPath: 'vector',
  textPaths: ['notes', 'detail.summary'],
};
const SPACES = [GOAL, NOTES];

/** What the deserialised document's fingerprint is in each space (how the index computes it when it writes). */
function expected(document: Document): number[] {
  const decoded = BSON.deserialize(BSON.serialize(document));
  return SPACES.map((definition) => {
    const entry = entryOf(definition, decoded)!;
    return fingerprint(definition, entry.texts, entry.vector);
  });
}

function raw(document: Document): { id: string | null; fingerprints: number[] } {
  const bytes = BSON.serialize(document);
  const fingerprints = new RawFingerprints(SPACES);
  return { id: fingerprints.id(bytes), fingerprints: SPACES.map((_, s) => fingerprints.fingerprint(bytes, s)) };
}

const float32Vector = (values: number[]) => Binary.fromFloat32Array(new Float32Array(values));

describe('RawFingerprints (a document’s fingerprints read from its BSON bytes)', () => {
  it.each<[string, Document]>([
    [
      'texts and array vectors',
      {
        goal: 'ship the release',
        notes: 'n',
        detail: { summary: 's' },
        embeddings: { goal: [0.5, -1.25, 3, 4, 5] },
        vector: [1, 2],
      },
    ],
    ['non-ASCII texts (accents, CJK, emoji)', { goal: 'café 東京 🚀', notes: 'ÿ\u0000x', detail: { summary: '𝄞' } }],
    [
      'arrays of texts, with items that are not strings',
      { goal: ['first', 2, 'second', null, ['nested']], notes: [], detail: { summary: [7] } },
    ],
    ['missing and non-text values', { goal: 42, detail: 'not a document', embeddings: { goal: 'not a vector' } }],
    [
      'float32 BSON vectors',
      { goal: 'g', embeddings: { goal: float32Vector([0.1, 0.2, 0.3, 0.4, 0.5]) }, vector: float32Vector([9]) },
    ],
    [
      'int32, int64 and double items',
      { embeddings: { goal: [new Int32(3), Long.fromNumber(2 ** 40), new Double(1.5)] } },
    ],
    [
      'vectors that do not count: empty, a non-finite or non-number item, another binary subtype',
      {
        embeddings: { goal: [] },
        vector: [1, 'two', 3],
        other: [NaN],
        binary: new Binary(Buffer.from([1, 2, 3])),
      },
    ],
    ['a NaN item', { embeddings: { goal: [0.5, NaN] }, vector: new Binary(Buffer.from([1, 2, 3, 4]), 0) }],
    [
      'fields of every kind around the ones read',
      {
        a: new Date(0),
        b: /x+/i,
        c: new BSON.ObjectId(),
        d: BSON.Decimal128.fromString('1.5'),
        e: true,
        f: null,
        g: new BSON.Timestamp({ t: 1, i: 2 }),
        h: new BSON.Code('x', { y: 1 }),
        goal: 'after them',
        embeddings: { z: [1], goal: [1, 2, 3, 4] },
      },
    ],
  ])('%s: the same as the deserialised document’s', (_case, fields) => {
    const document = { meta: { id: 'doc-1' }, ...fields };
    expect(raw(document)).toEqual({ id: 'doc-1', fingerprints: expected(document) });
  });

  it('each text, each of the first 4 vector components and the vector’s presence change the fingerprint', () => {
    const base = {
      meta: { id: 'x' },
      goal: 'abcdefgh',
      notes: 'n',
      detail: { summary: 's' },
      embeddings: { goal: [1, 2, 3, 4, 5] },
    };
    const variants: Document[] = [
      { ...base, goal: 'abcdefgi' },
      { ...base, goal: 'abcdefg' },
      { ...base, goal: ['abcd', 'efgh'] },
      { ...base, embeddings: { goal: [1, 2, 3, 4.5, 5] } },
      { ...base, embeddings: {} },
    ];
    const [goal] = raw(base).fingerprints;
    for (const variant of variants) expect(raw(variant).fingerprints[0]).not.toBe(goal);
    // Texts move between paths: notes 'ab' + summary 'c' is not notes 'a' + summary 'bc'.
    const split = (notes: string, summary: string) => raw({ ...base, notes, detail: { summary } }).fingerprints[1];
    expect(split('ab', 'c')).not.toBe(split('a', 'bc'));
    // Components past the head are not covered (the scan reads only the head), nor is a length past it.
    expect(raw({ ...base, embeddings: { goal: [1, 2, 3, 4, 6] } }).fingerprints[0]).toBe(goal);
    expect(raw({ ...base, embeddings: { goal: [1, 2, 3, 4] } }).fingerprints[0]).toBe(goal);
  });

  it('a document whose id is missing, empty or not a string has none', () => {
    for (const meta of [{}, { id: '' }, { id: 7 }, 'x']) expect(raw({ meta, goal: 'g' }).id).toBeNull();
    expect(raw({ meta: { id: 'ü-1' } }).id).toBe('ü-1');
  });

  it('a document key: the same from BSON as from the deserialised _id for ObjectId and string _ids, unknown for others', () => {
    const keyOf = (_id: unknown) => {
      const bytes = BSON.serialize({ goal: 'g', _id, meta: { id: 'x' } });
      return [new RawFingerprints(SPACES).documentKey(bytes), documentKey(BSON.deserialize(bytes)._id)];
    };
    const objectIds = Array.from({ length: 200 }, () => new BSON.ObjectId());
    const keys = new Set<number>();
    for (const _id of [...objectIds, 'a', 'b', 'ünï 東京', '']) {
      const [fromBytes, fromValue] = keyOf(_id);
      expect(fromBytes).toBe(fromValue);
      expect(fromValue).toBeGreaterThanOrEqual(0);
      expect(fromValue).toBeLessThan(2 ** 30);
      keys.add(fromValue);
    }
    // A 30-bit hash: 204 _ids, no two alike here.
    expect(keys.size).toBe(204);
    expect(documentKey(new BSON.ObjectId(objectIds[0].toHexString()))).toBe(documentKey(objectIds[0]));
    expect(documentKey('1')).not.toBe(documentKey(1));
    // Other types: a key from the value (a delete event's _id), unknown from the bytes (the lookup then checks them all).
    for (const _id of [7, { a: 1 }, new Date(0)]) {
      const [fromBytes, fromValue] = keyOf(_id);
      expect([fromBytes, fromValue === documentKey(BSON.deserialize(BSON.serialize({ _id }))._id)]).toEqual([
        UNKNOWN_DOCUMENT,
        true,
      ]);
    }
    expect(new RawFingerprints(SPACES).documentKey(BSON.serialize({ goal: 'g' }))).toBe(UNKNOWN_DOCUMENT);
  });
});
