import { Binary } from 'mongodb';

/** A vector as the seed documents store it (the `embeddings` object holds plain arrays of numbers). */
export function toStoredVector(vector: Float32Array): number[] {
  return Array.from(vector);
}

/**
 * Reads a stored vector: an array of finite numbers (the seed's form), a BSON float32 vector (`Binary` subtype 9,
 * as the embedding cache stores them) or a Float32Array. Anything else, including an empty array, gives null.
 */
export function fromStoredVector(value: unknown): Float32Array | null {
  if (value instanceof Float32Array) return value;
  if (value instanceof Binary) {
    const isFloat32Vector = value.sub_type === Binary.SUBTYPE_VECTOR && value.buffer[0] === Binary.VECTOR_TYPE.Float32;
    return isFloat32Vector ? value.toFloat32Array() : null;
  }
  if (!Array.isArray(value) || value.length === 0) return null;
  const vector = new Float32Array(value.length);
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i];
    if (typeof item !== 'number' || !Number.isFinite(item)) return null;
    vector[i] = item;
  }
  return vector;
}
