/**
 * Child process of test/embeddings/onnx.provider.test.ts (run under no-network.js): writes the tiny BERT folder into
 * the directory given as its argument, loads it with the onnx provider, embeds two texts and prints the vectors'
 * sizes as JSON.
 */
import { OnnxEmbeddingProvider } from '../../../src/embeddings/onnx.provider';
import { writeTinyBert } from '../tiny-bert';

async function main(): Promise<void> {
  const model = writeTinyBert(process.argv[2], { pooling: 'mean' });
  const provider = await OnnxEmbeddingProvider.create({ dir: model.dir, batchSize: 8 });
  const vectors = await provider.embed(['search the agent memory', 'retry the server timeout']);
  await provider.close();
  process.stdout.write(JSON.stringify({ lengths: vectors.map((vector) => vector.length) }));
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
