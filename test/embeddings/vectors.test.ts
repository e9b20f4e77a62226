import { Binary } from 'mongodb';
import { fromStoredVector, toStoredVector } from '../../src/embeddings/vectors';

describe('stored vectors', () => {
  const vector = Float32Array.from([0.1, -0.25, 0.3333]);

  test('a Float32Array round-trips exactly through the seed form (array of numbers) and a BSON float32 vector', () => {
    const stored = toStoredVector(vector);
    expect(Array.isArray(stored)).toBe(true);
    expect(Array.from(fromStoredVector(stored)!)).toEqual(Array.from(vector));
    expect(Array.from(fromStoredVector(Binary.fromFloat32Array(vector))!)).toEqual(Array.from(vector));
  });

  test.each([
    ['an empty array', []],
    ['an array with a non-number', [0.1, '0.2']],
    ['an array with NaN', [0.1, Number.NaN]],
    ['a generic binary', new Binary(Buffer.from([1, 2, 3, 4]))],
    ['an int8 vector', Binary.fromInt8Array(Int8Array.from([1, 2]))],
    ['a string', '0.1,0.2'],
    ['null', null],
  ])('%s is not a vector', (_name, value) => {
    expect(fromStoredVector(value)).toBeNull();
  });
});
