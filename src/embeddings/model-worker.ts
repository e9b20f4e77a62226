import { Worker } from 'node:worker_threads';

/**
 * What a model worker posts: once `{ ready }` (with what it learned loading the model) or `{ failed }`, then one
 * answer per request, by id.
 */
export type ModelWorkerReply<Ready> =
  { ready: Ready } | { failed: string } | { id: number; vectors: Float32Array[] } | { id: number; error: string };

interface Pending {
  resolve(vectors: Float32Array[]): void;
  reject(error: Error): void;
}

/**
 * The main thread's side of a worker thread that runs an embedding model, so inference (tens to hundreds of ms a
 * batch) never blocks the event loop that serves requests (and, in embedded mode, the database). The worker gets
 * `{ id, texts }` messages and answers each. Referenced only while a request is pending: an idle model never keeps
 * the process alive.
 */
export class ModelWorker {
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  /** Set once the worker is gone; every later request fails with it. */
  private stopped: Error | null = null;

  private constructor(
    private readonly worker: Worker,
    /** The error a failed request rejects with (the provider's coded error around the reason). */
    private readonly unavailable: (reason: Error) => Error,
  ) {
    worker.on('message', (reply: ModelWorkerReply<unknown>) => this.settle(reply));
    worker.on('error', (error) => this.stop(error));
    worker.on('exit', (code) => this.stop(new Error(`the model worker exited (code ${code})`)));
    worker.unref();
  }

  /**
   * Starts `source` (a worker's code, run with `eval`) and resolves once it reports the model loaded, with what it
   * reported; rejects with `Could not load <what>: <reason>` (the worker then ended) when it fails.
   */
  static async start<Ready>(options: {
    source: string;
    workerData: unknown;
    /** Named in the startup error, e.g. `the local embedding model`. */
    what: string;
    unavailable: (reason: Error) => Error;
  }): Promise<{ worker: ModelWorker; ready: Ready }> {
    const worker = new Worker(options.source, { eval: true, workerData: options.workerData });
    const failed = (reason: string) => new Error(`Could not load ${options.what}: ${reason}`);
    let onMessage!: (reply: ModelWorkerReply<Ready>) => void;
    let onError!: (error: Error) => void;
    let onExit!: (code: number) => void;
    const ready = await new Promise<Ready>((resolve, reject) => {
      onMessage = (reply) => {
        if ('ready' in reply) resolve(reply.ready);
        else if ('failed' in reply) reject(failed(reply.failed));
      };
      onError = (error) => reject(failed(error.message));
      onExit = (code) => reject(failed(`its worker exited (code ${code})`));
      worker.once('message', onMessage).once('error', onError).once('exit', onExit);
    })
      .catch(async (error: unknown) => {
        await worker.terminate();
        throw error;
      })
      .finally(() => worker.off('message', onMessage).off('error', onError).off('exit', onExit));
    return { worker: new ModelWorker(worker, options.unavailable), ready };
  }

  /** The vectors of `texts` (one worker request), as the worker made them. */
  request(texts: string[]): Promise<Float32Array[]> {
    if (this.stopped) return Promise.reject(this.unavailable(this.stopped));
    const id = this.nextId++;
    return new Promise<Float32Array[]>((resolve, reject) => {
      if (this.pending.size === 0) this.worker.ref();
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, texts });
    });
  }

  async close(): Promise<void> {
    this.stop(new Error('the provider was closed'));
    await this.worker.terminate();
  }

  private settle(reply: ModelWorkerReply<unknown>): void {
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
}
