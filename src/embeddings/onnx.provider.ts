import path from 'node:path';
import { ServiceUnavailableError } from '../coded-error';
import { ModelWorker, type ModelWorkerReply } from './model-worker';
import { inBatches, type EmbeddingPrefixes, type EmbeddingProvider, type InputLimit } from './provider';

export type OnnxPooling = 'mean' | 'cls';

export interface OnnxProviderOptions {
  /** A sentence-transformers-style folder: `model.onnx` or `onnx/model.onnx`, `tokenizer.json`, `config.json`. */
  dir: string;
  /** Recorded with every vector (`embedding_model.model`); default: the folder's name. */
  model?: string;
  /** Overrides `1_Pooling/config.json` (default mean when the folder has none). */
  pooling?: OnnxPooling;
  /** Lowers the model's own maximum sequence length (tokens, special ones included). */
  maxTokens?: number;
  /** Texts per worker request. */
  batchSize: number;
  prefixes?: EmbeddingPrefixes;
}

interface OnnxWorkerData {
  dir: string;
  pooling: OnnxPooling | undefined;
  maxTokens: number | undefined;
  tokensPerRun: number;
  ort: string;
  tokenizers: string;
}

/** What the worker learned loading the model. */
interface OnnxModelInfo {
  dimensions: number;
  maxTokens: number;
}

/** Tokens (special ones included) run through the model at once, at most: batch × longest sequence of the batch. */
const TOKENS_PER_RUN = 16_384;

/**
 * The worker's code: it runs from its source text (`new Worker(..., { eval: true })`), the same under ts-jest as
 * compiled, so it uses nothing from outside its body. It reads the folder, checks every file it needs (a missing or
 * broken one fails the start, naming its path), loads the model with onnxruntime's CPU backend, embeds a probe text
 * to learn the vector size, then serves requests one at a time (concurrent callers queue instead of multiplying
 * tensor memory).
 */
/* eslint-disable @typescript-eslint/no-require-imports */
function serveOnnxModel(): void {
  const { parentPort, workerData } = require('node:worker_threads') as typeof import('node:worker_threads');
  const { existsSync, readFileSync } = require('node:fs') as typeof import('node:fs');
  const { join } = require('node:path') as typeof import('node:path');
  const data = workerData as OnnxWorkerData;
  const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));
  type Json = Record<string, unknown>;

  /** A JSON object file of the folder; null when absent and not `required`. */
  const readJson = (name: string, required: boolean): Json | null => {
    const file = join(data.dir, name);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`${file}: ${describe(error)}`);
      if (!required) return null;
      throw new Error(`${file} is missing`);
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new Error(`${file} is not valid JSON (${describe(error)})`);
    }
    if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error(`${file} is not a JSON object`);
    return value as Json;
  };
  const size = (value: unknown) =>
    typeof value === 'number' && Number.isInteger(value) && value > 2 && value < 1_000_000 ? value : undefined;

  const load = async () => {
    const ort = require(data.ort) as typeof import('onnxruntime-node');
    const { Tokenizer } = require(data.tokenizers) as typeof import('@huggingface/tokenizers');

    const config = readJson('config.json', true)!;
    const tokenizerJson = readJson('tokenizer.json', true)!;
    const tokenizerConfig = readJson('tokenizer_config.json', false) ?? {};
    const sentenceConfig = readJson('sentence_bert_config.json', false) ?? {};
    const poolingFile = join(data.dir, '1_Pooling', 'config.json');
    const poolingConfig = readJson(join('1_Pooling', 'config.json'), false);

    let pooling = data.pooling;
    if (!pooling && poolingConfig) {
      const modes = Object.keys(poolingConfig).filter((key) => key.startsWith('pooling_mode_') && poolingConfig[key]);
      if (modes.length === 1 && modes[0] === 'pooling_mode_cls_token') pooling = 'cls';
      else if (modes.length === 1 && modes[0] === 'pooling_mode_mean_tokens') pooling = 'mean';
      else
        throw new Error(
          `${poolingFile} asks for ${modes.join(' + ') || 'no pooling'}; Hindsight pools mean or cls: set EMBEDDING_POOLING`,
        );
    }
    pooling ??= 'mean';

    // RoBERTa-style models number positions from pad_token_id + 1: two of max_position_embeddings are never a token's.
    const positionOffset = /roberta|mpnet|camembert/i.test(String(config.model_type ?? '')) ? 2 : 0;
    const positions = size(config.max_position_embeddings);
    const limits = [
      size(sentenceConfig.max_seq_length),
      size((tokenizerJson.truncation as Json | null)?.max_length),
      size(tokenizerConfig.model_max_length),
      positions === undefined ? undefined : positions - positionOffset,
      size(config.n_positions),
    ].filter((limit) => limit !== undefined);
    const modelLimit = limits.length ? Math.min(...limits) : 512;
    const maxTokens = data.maxTokens ? Math.min(data.maxTokens, modelLimit) : modelLimit;

    const tokenizerFile = join(data.dir, 'tokenizer.json');
    let tokenizer: InstanceType<typeof Tokenizer>;
    try {
      tokenizer = new Tokenizer(tokenizerJson, tokenizerConfig);
      tokenizer.encode('a probe');
    } catch (error) {
      throw new Error(`${tokenizerFile} is not a tokenizer this server reads (${describe(error)})`);
    }
    const padding = tokenizerJson.padding as Json | null;
    const padId =
      (typeof padding?.pad_id === 'number' ? padding.pad_id : undefined) ??
      tokenizer.token_to_id('[PAD]') ??
      tokenizer.token_to_id('<pad>') ??
      (typeof config.pad_token_id === 'number' ? config.pad_token_id : 0);

    const candidates = [join(data.dir, 'model.onnx'), join(data.dir, 'onnx', 'model.onnx')];
    const modelFile = candidates.find((file) => existsSync(file));
    if (!modelFile) throw new Error(`neither ${candidates.join(' nor ')} exists`);
    let session: import('onnxruntime-node').InferenceSession;
    try {
      // Errors only: they are also thrown, and a model's warnings (unused initialisers...) are not the operator's.
      session = await ort.InferenceSession.create(modelFile, { logSeverityLevel: 3 });
    } catch (error) {
      throw new Error(`${modelFile} is not a model onnxruntime can run (${describe(error)})`);
    }
    const fed = ['input_ids', 'attention_mask', 'token_type_ids'];
    if (!session.inputNames.includes('input_ids') || session.inputNames.some((name) => !fed.includes(name)))
      throw new Error(
        `${modelFile} takes the inputs ${session.inputNames.join(', ')}; a text model takes input_ids and optionally attention_mask and token_type_ids`,
      );
    const inputType = (name: string) => {
      const meta = session.inputMetadata.find((input) => input.name === name);
      return meta && meta.isTensor && meta.type === 'int32' ? 'int32' : 'int64';
    };
    // A sentence-transformers export may pool (and normalise) in the graph; else the tokens' states are pooled here.
    const output =
      ['sentence_embedding', 'last_hidden_state', 'token_embeddings'].find((name) =>
        session.outputNames.includes(name),
      ) ?? session.outputNames[0];

    /** A text's token ids, cut to maxTokens keeping the special tokens the post-processor adds around it. */
    const encode = (text: string): number[] => {
      const ids = tokenizer.encode(text).ids;
      // A model without special tokens given a text of nothing it knows (the service refuses only blank ones).
      if (ids.length === 0) return [padId];
      if (ids.length <= maxTokens) return ids;
      const inner = tokenizer.encode(text, { add_special_tokens: false }).ids;
      const added = ids.length - inner.length;
      let start = 0;
      while (start < added && inner.some((id, i) => ids[start + i] !== id)) start++;
      return [
        ...ids.slice(0, start),
        ...inner.slice(0, Math.max(1, maxTokens - added)),
        ...ids.slice(start + inner.length),
      ];
    };

    /** One model run over `rows` (token ids), padded to the longest: a pooled, L2-normalised vector per row. */
    const run = async (rows: number[][]): Promise<Float32Array[]> => {
      const width = Math.max(...rows.map((row) => row.length));
      const cells = rows.length * width;
      const values = {
        input_ids: new Array<number>(cells).fill(padId),
        attention_mask: new Array<number>(cells).fill(0),
      };
      rows.forEach((row, r) =>
        row.forEach((id, i) => {
          values.input_ids[r * width + i] = id;
          values.attention_mask[r * width + i] = 1;
        }),
      );
      const feeds: Record<string, import('onnxruntime-node').Tensor> = {};
      for (const name of session.inputNames) {
        const numbers = name === 'token_type_ids' ? new Array<number>(cells).fill(0) : values[name as 'input_ids'];
        feeds[name] =
          inputType(name) === 'int32'
            ? new ort.Tensor('int32', Int32Array.from(numbers), [rows.length, width])
            : new ort.Tensor('int64', BigInt64Array.from(numbers, BigInt), [rows.length, width]);
      }
      const result = (await session.run(feeds))[output];
      if (result.type !== 'float32') throw new Error(`${modelFile} outputs ${result.type}; a float32 export is needed`);
      const states = result.data as Float32Array;
      const dims = result.dims.map(Number);
      const unit = (vector: Float32Array) => {
        let sum = 0;
        for (const value of vector) sum += value * value;
        if (sum > 0) for (let d = 0; d < vector.length; d++) vector[d] /= Math.sqrt(sum);
        return vector;
      };
      if (dims.length === 2) return rows.map((_, r) => unit(states.slice(r * dims[1], (r + 1) * dims[1])));
      if (dims.length !== 3 || dims[0] !== rows.length || dims[1] !== width)
        throw new Error(`${modelFile}'s output ${output} has the shape [${dims.join(', ')}]`);
      const dimensions = dims[2];
      return rows.map((row, r) => {
        const vector = new Float32Array(dimensions);
        const base = r * width * dimensions;
        if (pooling === 'cls') vector.set(states.subarray(base, base + dimensions));
        else {
          // The padded positions are the row's end: mean over its own tokens only.
          for (let i = 0; i < row.length; i++)
            for (let d = 0; d < dimensions; d++) vector[d] += states[base + i * dimensions + d];
          for (let d = 0; d < dimensions; d++) vector[d] /= row.length;
        }
        return unit(vector);
      });
    };

    /** Vectors of `texts` in order: sorted by length into runs of at most TOKENS_PER_RUN tokens, to pad little. */
    const embed = async (texts: string[]): Promise<Float32Array[]> => {
      const rows = texts.map(encode);
      const order = rows.map((_, i) => i).sort((a, b) => rows[a].length - rows[b].length);
      const vectors = new Array<Float32Array>(texts.length);
      for (let start = 0; start < order.length;) {
        let end = start + 1;
        while (end < order.length && (end + 1 - start) * rows[order[end]].length <= data.tokensPerRun) end++;
        const group = order.slice(start, end);
        (await run(group.map((i) => rows[i]))).forEach((vector, j) => (vectors[group[j]] = vector));
        start = end;
      }
      return vectors;
    };

    const [probe] = await embed(['probe']);
    return { embed, info: { dimensions: probe.length, maxTokens } satisfies OnnxModelInfo };
  };

  load().then(
    ({ embed, info }) => {
      let queue = Promise.resolve();
      parentPort!.on('message', ({ id, texts }: { id: number; texts: string[] }) => {
        queue = queue.then(async () => {
          try {
            const vectors = await embed(texts);
            parentPort!.postMessage(
              { id, vectors } satisfies ModelWorkerReply<OnnxModelInfo>,
              vectors.map((vector) => vector.buffer as ArrayBuffer),
            );
          } catch (error) {
            parentPort!.postMessage({ id, error: describe(error) } satisfies ModelWorkerReply<OnnxModelInfo>);
          }
        });
      });
      parentPort!.postMessage({ ready: info } satisfies ModelWorkerReply<OnnxModelInfo>);
    },
    (error: unknown) => parentPort!.postMessage({ failed: describe(error) } satisfies ModelWorkerReply<OnnxModelInfo>),
  );
}
/* eslint-enable @typescript-eslint/no-require-imports */

/**
 * Embeddings from a sentence-transformers-style ONNX export on disk (bge, e5, nomic-embed, MiniLM...), run in
 * process by onnxruntime's CPU backend in a worker thread: no second server, no network. The folder's
 * `tokenizer.json` is read by Hugging Face's tokenizers.js; texts longer than the model's maximum sequence length are
 * cut to it (the special tokens kept), pooled (mean over the text's tokens or the first token's state, as
 * `1_Pooling/config.json` says) and L2-normalised.
 */
export class OnnxEmbeddingProvider implements EmbeddingProvider {
  readonly id = 'onnx';
  readonly model: string;
  readonly dimensions: number;
  /** Tokens a text is cut to (special tokens included): the model's maximum, or EMBEDDING_MAX_TOKENS when lower. */
  readonly maxTokens: number;
  /**
   * Only a bound that keeps tokenising linear and cheap: the model reads `maxTokens` tokens, which it cuts exactly; a
   * word piece rarely spans 16 characters, so text beyond this never reaches the model anyway.
   */
  readonly inputLimit: InputLimit;
  readonly prefixes?: EmbeddingPrefixes;

  private constructor(
    private readonly worker: ModelWorker,
    private readonly options: OnnxProviderOptions,
    info: OnnxModelInfo,
  ) {
    this.model = options.model ?? path.basename(path.resolve(options.dir));
    this.dimensions = info.dimensions;
    this.maxTokens = info.maxTokens;
    this.inputLimit = { unit: 'chars', max: info.maxTokens * 16 };
    if (options.prefixes) this.prefixes = options.prefixes;
  }

  /**
   * Loads the model and resolves once it has embedded a probe text; rejects naming the file that is missing or
   * broken.
   */
  static async create(options: OnnxProviderOptions): Promise<OnnxEmbeddingProvider> {
    const dir = path.resolve(options.dir);
    const model = options.model ?? path.basename(dir);
    const { worker, ready } = await ModelWorker.start<OnnxModelInfo>({
      source: `(${serveOnnxModel.toString()})()`,
      workerData: {
        dir,
        pooling: options.pooling,
        maxTokens: options.maxTokens,
        tokensPerRun: TOKENS_PER_RUN,
        ort: require.resolve('onnxruntime-node'),
        tokenizers: require.resolve('@huggingface/tokenizers'),
      } satisfies OnnxWorkerData,
      what: `the ONNX embedding model in ${dir} (EMBEDDING_MODEL_DIR)`,
      unavailable: (reason) =>
        new ServiceUnavailableError(`The ONNX embedding model failed: ${reason.message.replace(/\.$/, '')}.`, {
          provider: 'onnx',
          model,
        }),
    });
    return new OnnxEmbeddingProvider(worker, { ...options, model }, ready);
  }

  /** Batch after batch, checking `signal` between them: the worker cannot be interrupted inside one. */
  async embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const vectors: Float32Array[] = [];
    for (const batch of inBatches(texts, this.options.batchSize)) {
      signal?.throwIfAborted();
      vectors.push(...(await this.worker.request(batch)));
    }
    return vectors;
  }

  async close(): Promise<void> {
    await this.worker.close();
  }
}
