/** Seeded test vectors for the search tests and the search benchmark. */

/** A seeded PRNG (mulberry32): the same seed gives the same sequence on every run. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Unit vectors shaped like text embeddings rather than uniform noise: a random linear map of a `latent`-dimensional
 * Gaussian into `dimensions`, plus a little isotropic noise. Sentence embeddings have a low intrinsic dimension; in
 * uniformly random 384-d data every point is almost equidistant from every other, a case no ANN index (and no real
 * embedder) meets.
 */
export function embeddingLikeVectors(options: {
  dimensions: number;
  seed: number;
  latent?: number;
  noise?: number;
}): () => Float32Array {
  const { dimensions, seed, latent = 32, noise = 0.1 } = options;
  const random = seededRandom(seed);
  const gaussian = () => {
    let u = 0;
    while (u === 0) u = random();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
  };
  const map = new Float32Array(latent * dimensions);
  for (let i = 0; i < map.length; i++) map[i] = gaussian() / Math.sqrt(latent);
  return () => {
    const z = Array.from({ length: latent }, gaussian);
    const vector = new Float32Array(dimensions);
    let norm = 0;
    for (let j = 0; j < dimensions; j++) {
      let value = noise * gaussian();
      for (let i = 0; i < latent; i++) value += z[i] * map[i * dimensions + j];
      vector[j] = value;
      norm += value * value;
    }
    const scale = 1 / Math.sqrt(norm);
    for (let j = 0; j < dimensions; j++) vector[j] *= scale;
    return vector;
  };
}

/** `count` vectors from `next` as one row-major matrix. */
export function matrixOf(next: () => Float32Array, count: number, dimensions: number): Float32Array {
  const matrix = new Float32Array(count * dimensions);
  for (let i = 0; i < count; i++) matrix.set(next(), i * dimensions);
  return matrix;
}
