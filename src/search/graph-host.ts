import { chmodSync, closeSync, openSync } from 'node:fs';
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import type { IndexConfig } from 'usearch';
import type { FileCheck } from './snapshot';

/** The mode of the graph files (see save). */
const FILE_MODE = 0o600;

/**
 * The worker threads that hold the HNSW graphs (usearch), so that the walks of one search over several spaces run in
 * parallel: a hybrid search over the 4 experience fields walks 4 graphs, which took about 3 ms one after another on the
 * API thread (2 cores, 100k experiences). A scratch run over 4 graphs of 50k random vectors measured 8.1 ms in turn
 * on one thread and 3.3 ms spread over 2 workers. One walk costs about 0.04 ms more through a busy worker, and 0.2-0.4
 * ms more through one left idle (bench/vector.ts, each walk after a 23 ms exact scan on the API thread).
 *
 * Each graph lives in one worker, chosen in turn as graphs are created. A worker handles the operations on a graph in
 * the order they were sent, so a search sees every add and remove sent before it, and a save writes the graph as it
 * was when the save was sent.
 */
const HOSTS = Math.max(1, Math.min(os.availableParallelism(), 4));

/**
 * A graph worker's young generation (V8 keeps three semispaces of a third of it). Its own allocations are the
 * messages, and the server's `--max-semi-space-size=64` would otherwise apply to it too: 64 MB semispaces filled
 * with dead replies before the first scavenge, resident memory of the process.
 */
const GRAPH_WORKER_YOUNG_GENERATION_MB = 3 * 2;

/** Found keys (usearch's) and their distances, nearest first. */
export interface GraphMatches {
  keys: BigUint64Array;
  distances: Float32Array;
}

/** What a worker answers to an operation sent with an id. */
type Reply =
  | { id: number; error: string }
  | { id: number; keys: BigUint64Array; distances: Float32Array }
  | { id: number; size: number; dimensions: number };

type Operation =
  | { op: 'create'; graph: number; config: IndexConfig }
  | { op: 'drop'; graph: number }
  | { op: 'add'; graph: number; id?: number; keys: BigUint64Array; vectors: Float32Array; threads: number }
  | { op: 'remove'; graph: number; key: bigint }
  | { op: 'search'; graph: number; id: number; query: Float32Array; k: number }
  | { op: 'save'; graph: number; id: number; path: string }
  | { op: 'load'; graph: number; id: number; path: string; check: FileCheck }
  | { op: 'read'; graph: number; id: number; path: string; check: FileCheck; into: Uint8Array<SharedArrayBuffer> };

/** An operation with a reply, before the host numbers it. */
type Question =
  Extract<Operation, { op: 'add' | 'search' | 'save' | 'load' | 'read' }> extends infer Asked
    ? Asked extends unknown
      ? Omit<Asked, 'id'>
      : never
    : never;

/**
 * The worker's code. It runs from its source text (`new Worker(..., { eval: true })`), the same under ts-jest as
 * compiled, so it uses nothing from outside its body. An add or remove has no reply: if one fails, the graph is
 * marked failed and every later operation on it answers that error.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
function hostGraphs(): void {
  const { parentPort, workerData } = require('node:worker_threads') as typeof import('node:worker_threads');
  const { Index } = require(workerData.usearch as string) as typeof import('usearch');
  const { closeSync, fstatSync, openSync, readSync } = require('node:fs') as typeof import('node:fs');
  const { crc32 } = require('node:zlib') as typeof import('node:zlib');
  const PIECE = 2 ** 20;
  const piece = Buffer.allocUnsafe(PIECE);
  /**
   * Reads a file into `into` (or through `piece`, only to check it), checking its size and CRC-32 piece by piece,
   * each while still in cache: a 55 MB graph read whole and then checked took 32 ms, 12 ms so. Messages as
   * snapshot.ts's readChecked words them.
   */
  const readChecked = (path: string, check: FileCheck, into?: Uint8Array) => {
    const file = openSync(path, 'r');
    try {
      const { size } = fstatSync(file);
      if (size !== check.bytes) throw new Error(`${path} has ${size} bytes, expected ${check.bytes}`);
      if (into && into.byteLength < size) throw new Error(`no room to read ${path}`);
      let crc = 0;
      for (let at = 0; at < size;) {
        const target = into
          ? into.subarray(at, Math.min(size, at + PIECE))
          : piece.subarray(0, Math.min(PIECE, size - at));
        const read = readSync(file, target, 0, target.byteLength, at);
        if (read === 0) throw new Error(`${path} ended early`);
        crc = crc32(target.subarray(0, read), crc);
        at += read;
      }
      if (size > 0 && crc !== check.crc) throw new Error(`${path} fails its checksum`);
    } finally {
      closeSync(file);
    }
  };
  const graphs = new Map<number, InstanceType<typeof Index>>();
  const failures = new Map<number, string>();
  const handle = (message: Operation, replies: Reply[]) => {
    if (message.op === 'create') {
      graphs.set(message.graph, new Index(message.config));
      return;
    }
    if (message.op === 'drop') {
      graphs.delete(message.graph);
      failures.delete(message.graph);
      return;
    }
    const graph = graphs.get(message.graph)!;
    const id = 'id' in message ? message.id : undefined;
    try {
      const failure = failures.get(message.graph);
      if (failure !== undefined) throw new Error(failure);
      if (message.op === 'remove') graph.remove(message.key);
      else if (message.op === 'search') {
        const { keys, distances } = graph.search(message.query, message.k, 1);
        replies.push({ id: id!, keys, distances });
      } else {
        if (message.op === 'add') graph.add(message.keys, message.vectors, message.threads);
        else if (message.op === 'save') graph.save(message.path);
        else if (message.op === 'read') readChecked(message.path, message.check, message.into);
        else {
          // usearch's loader trusts the file: it is checked first.
          readChecked(message.path, message.check);
          graph.load(message.path);
        }
        if (id !== undefined) replies.push({ id, size: Number(graph.size()), dimensions: Number(graph.dimensions()) });
      }
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      if (id === undefined) failures.set(message.graph, `an earlier ${message.op} failed: ${text}`);
      else replies.push({ id, error: text });
    }
  };
  parentPort!.on('message', (batch: Operation[]) => {
    const replies: Reply[] = [];
    for (const message of batch) handle(message, replies);
    if (replies.length) parentPort!.postMessage(replies);
  });
}
/* eslint-enable @typescript-eslint/no-require-imports */

/** One worker holding graphs; referenced (keeping the process alive) only while a reply is awaited. */
class GraphHost {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, { resolve: (reply: Reply) => void; reject: (error: Error) => void }>();
  private nextId = 0;
  private dead: Error | null = null;
  private outbox: Operation[] = [];
  private transfers: ArrayBuffer[] = [];

  constructor() {
    this.worker = new Worker(`(${hostGraphs.toString()})()`, {
      eval: true,
      workerData: { usearch: require.resolve('usearch') },
      resourceLimits: { maxYoungGenerationSizeMb: GRAPH_WORKER_YOUNG_GENERATION_MB },
    });
    this.worker.on('message', (replies: Reply[]) => {
      for (const reply of replies) {
        const waiter = this.waiting.get(reply.id)!;
        this.waiting.delete(reply.id);
        if ('error' in reply) waiter.reject(new Error(reply.error));
        else waiter.resolve(reply);
      }
      if (!this.waiting.size) this.worker.unref();
    });
    const die = (error: Error) => {
      this.dead ??= error;
      for (const waiter of this.waiting.values()) waiter.reject(this.dead);
      this.waiting.clear();
    };
    this.worker.on('error', die);
    this.worker.on('exit', (code) => die(new Error(`vector graph worker exited with code ${code}`)));
    // After the listeners, which would ref it again.
    this.worker.unref();
  }

  /**
   * Queues an operation; those queued in one turn of the event loop go in one message, answered in one message:
   * a hybrid search's walks cost one round trip per worker, not one per graph (a message cost the API thread about
   * 0.09 ms).
   */
  send(operation: Operation, transfer: ArrayBuffer[] = []): void {
    if (this.dead) return;
    if (!this.outbox.length) queueMicrotask(() => this.flush());
    this.outbox.push(operation);
    this.transfers.push(...transfer);
  }

  ask<T extends Reply>(operation: Question, transfer: ArrayBuffer[] = []): Promise<T> {
    if (this.dead) return Promise.reject(this.dead);
    const id = this.nextId++;
    if (!this.waiting.size) this.worker.ref();
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (reply: Reply) => void, reject });
      this.send({ ...operation, id } as Operation, transfer);
    });
  }

  private flush(): void {
    const batch = this.outbox;
    const transfers = this.transfers;
    this.outbox = [];
    this.transfers = [];
    if (!this.dead) this.worker.postMessage(batch, transfers);
  }
}

let hosts: GraphHost[] = [];
let nextGraph = 0;
/** Drops a graph from its worker once its handle is garbage: no owner has to remember to close it. */
const dropped = new FinalizationRegistry<{ host: GraphHost; graph: number }>(({ host, graph }) =>
  host.send({ op: 'drop', graph }),
);

/** An HNSW graph (usearch `Index`) held by a graph worker: same operations, searches, saves and loads asynchronous. */
export class HostedGraph {
  private readonly host: GraphHost;
  private readonly graph = nextGraph++;

  constructor(config: IndexConfig) {
    if (!hosts.length) hosts = Array.from({ length: HOSTS }, () => new GraphHost());
    this.host = hosts[this.graph % hosts.length];
    this.host.send({ op: 'create', graph: this.graph, config });
    dropped.register(this, { host: this.host, graph: this.graph });
  }

  /** Adds (a copy of) a vector under `key`; a failure fails the graph's later operations (see `hostGraphs`). */
  add(key: bigint, vector: Float32Array): void {
    const copy = vector.slice();
    this.host.send({ op: 'add', graph: this.graph, keys: BigUint64Array.of(key), vectors: copy, threads: 1 }, [
      copy.buffer,
    ]);
  }

  /**
   * Adds vectors (rows of `vectors`) under `keys` with `threads` threads; resolves once they are in. A `vectors` that
   * is the whole of its buffer is handed over (the caller's array is emptied): a build's rows are not copied.
   */
  async addAll(keys: BigUint64Array, vectors: Float32Array, threads: number): Promise<void> {
    const owned = ownCopy(vectors);
    await this.host.ask({ op: 'add', graph: this.graph, keys, vectors: owned, threads }, [owned.buffer]);
  }

  remove(key: bigint): void {
    this.host.send({ op: 'remove', graph: this.graph, key });
  }

  async search(query: Float32Array, k: number): Promise<GraphMatches> {
    const { keys, distances } = await this.host.ask<Extract<Reply, { keys: BigUint64Array }>>({
      op: 'search',
      graph: this.graph,
      query: ownCopy(query),
      k,
    });
    return { keys, distances };
  }

  /**
   * Writes the graph to `path` (usearch's format), 0600 as every file under DATA_DIR whatever the umask: usearch
   * creates its file with the default mode, so the file is created 0600 first (usearch truncates it and keeps the
   * mode) and the mode is set again once written. Resolves once written.
   */
  async save(path: string): Promise<void> {
    closeSync(openSync(path, 'w', FILE_MODE));
    chmodSync(path, FILE_MODE);
    await this.host.ask({ op: 'save', graph: this.graph, path });
    chmodSync(path, FILE_MODE);
  }

  /**
   * Replaces the graph by the one saved at `path` once the file's size and CRC-32 match `check` (rejects otherwise);
   * resolves to its size and dimensions.
   */
  async load(path: string, check: FileCheck): Promise<{ size: number; dimensions: number }> {
    const { size, dimensions } = await this.host.ask<Extract<Reply, { size: number }>>({
      op: 'load',
      graph: this.graph,
      path,
      check,
    });
    return { size, dimensions };
  }

  /**
   * Reads the file at `path` into `into` on the graph's worker (after the operations sent before), checked like
   * snapshot.ts's readChecked, so that neither the read nor the check occupies the API thread.
   */
  async readChecked(path: string, check: FileCheck, into: Uint8Array<SharedArrayBuffer>): Promise<void> {
    await this.host.ask({ op: 'read', graph: this.graph, path, check, into });
  }
}

/** `vector` when it is the whole of its buffer, else a copy: posting a view clones the whole buffer behind it. */
function ownCopy(vector: Float32Array): Float32Array<ArrayBuffer> {
  return vector.byteOffset === 0 &&
    vector.byteLength === vector.buffer.byteLength &&
    vector.buffer instanceof ArrayBuffer
    ? (vector as Float32Array<ArrayBuffer>)
    : vector.slice();
}
