/**
 * Child process of test/embeddings/local.provider.slow.test.ts (run under no-network.js): loads the local model, embeds a few
 * sentences, prints the vectors' sizes, norms and the pairwise similarities the test checks as JSON.
 */
import { LocalEmbeddingProvider } from '../../../src/embeddings/local.provider';

const SENTENCES = {
  flight: 'The agent booked a flight from London to New York.',
  flightParaphrase: 'The assistant reserved a plane ticket from London to NYC.',
  cooking: 'Chop the onions and fry them in butter until golden.',
  migration: 'The database migration failed because the connection timed out.',
  migrationParaphrase: 'Migrating the DB did not finish: the connection timed out.',
  cat: 'My cat sleeps on the sofa all afternoon.',
};

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * b[i];
  return sum;
}

async function main(): Promise<void> {
  const provider = await LocalEmbeddingProvider.create({ batchSize: 64 });
  const names = Object.keys(SENTENCES) as Array<keyof typeof SENTENCES>;
  const vectors = await provider.embed(names.map((name) => SENTENCES[name]));
  await provider.close();
  const v = Object.fromEntries(names.map((name, i) => [name, vectors[i]])) as Record<
    keyof typeof SENTENCES,
    Float32Array
  >;
  process.stdout.write(
    JSON.stringify({
      signature: { provider: provider.id, model: provider.model, dimensions: provider.dimensions },
      lengths: vectors.map((vector) => vector.length),
      norms: vectors.map((vector) => Math.sqrt(dot(vector, vector))),
      similar: [dot(v.flight, v.flightParaphrase), dot(v.migration, v.migrationParaphrase)],
      unrelated: [dot(v.flight, v.cooking), dot(v.migration, v.cat), dot(v.flight, v.migration)],
    }),
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
