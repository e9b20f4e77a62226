import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * A BERT-shaped sentence-transformers folder built here, byte by byte, so the `onnx` provider is tested on a real ONNX
 * graph and a real WordPiece tokenizer without downloading anything: `model.onnx` (inputs `input_ids`,
 * `attention_mask`, `token_type_ids`; output `last_hidden_state` [batch, sequence, DIMENSIONS]), `tokenizer.json`
 * (lower-casing BERT normaliser and pre-tokenizer, WordPiece, `[CLS] $A [SEP]`), `config.json` and
 * `1_Pooling/config.json`.
 *
 * The graph: each position's token, position and token-type embeddings summed (`h`), plus the sum of `h` over the
 * real (attention-masked) positions from there to the end. So the first token's output (CLS pooling) depends on the
 * whole text, padding changes nothing but the padded positions' own outputs (which are not zero: pooling must skip
 * them), and a sequence longer than `maxPositions` fails inside the model (its position table ends there).
 * {@link referenceEmbedding} computes the same in plain TypeScript.
 */
export const DIMENSIONS = 8;

export const VOCABULARY = [
  '[PAD]',
  '[UNK]',
  '[CLS]',
  '[SEP]',
  '[MASK]',
  'query',
  'passage',
  ':',
  'the',
  'deploy',
  'fail',
  '##ed',
  '##ing',
  'database',
  'migration',
  'cache',
  'test',
  'run',
  '##s',
  'server',
  'timeout',
  'retry',
  'agent',
  'memory',
  'search',
  'word',
  '.',
  ',',
] as const;

export interface TinyBertOptions {
  /** Longest sequence the model takes, special tokens included (`max_position_embeddings`). Default 16. */
  maxPositions?: number;
  /** `1_Pooling/config.json`'s mode: written when given. */
  pooling?: 'mean' | 'cls' | 'max';
  /** Where the graph goes: `model.onnx` (default) or `onnx/model.onnx`, as Hugging Face exports place it. */
  modelPath?: 'model.onnx' | 'onnx/model.onnx';
}

export interface TinyBert {
  dir: string;
  maxPositions: number;
  wordEmbeddings: Float32Array[];
  positionEmbeddings: Float32Array[];
  typeEmbeddings: Float32Array[];
}

/** A deterministic table of `rows` × DIMENSIONS values in [-1, 1) (no zero row). */
function table(rows: number, seed: number): Float32Array[] {
  let state = seed >>> 0;
  const next = () => {
    // xorshift32
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
  return Array.from({ length: rows }, () => Float32Array.from({ length: DIMENSIONS }, () => next() * 2 - 1));
}

/** Writes the model folder into `dir` (created) and returns it with the weights it holds. */
export function writeTinyBert(dir: string, options: TinyBertOptions = {}): TinyBert {
  const maxPositions = options.maxPositions ?? 16;
  const model: TinyBert = {
    dir,
    maxPositions,
    wordEmbeddings: table(VOCABULARY.length, 1),
    positionEmbeddings: table(maxPositions, 2),
    typeEmbeddings: table(2, 3),
  };
  const modelFile = path.join(dir, options.modelPath ?? 'model.onnx');
  mkdirSync(path.dirname(modelFile), { recursive: true });
  writeFileSync(modelFile, encodeModel(model));
  writeFileSync(path.join(dir, 'tokenizer.json'), JSON.stringify(tokenizerJson()));
  writeFileSync(
    path.join(dir, 'config.json'),
    JSON.stringify({
      architectures: ['BertModel'],
      model_type: 'bert',
      hidden_size: DIMENSIONS,
      max_position_embeddings: maxPositions,
      type_vocab_size: 2,
      vocab_size: VOCABULARY.length,
    }),
  );
  if (options.pooling) {
    mkdirSync(path.join(dir, '1_Pooling'), { recursive: true });
    writeFileSync(
      path.join(dir, '1_Pooling', 'config.json'),
      JSON.stringify({
        word_embedding_dimension: DIMENSIONS,
        pooling_mode_cls_token: options.pooling === 'cls',
        pooling_mode_mean_tokens: options.pooling === 'mean',
        pooling_mode_max_tokens: options.pooling === 'max',
        pooling_mode_mean_sqrt_len_tokens: false,
      }),
    );
  }
  return model;
}

/** A tokenizer.json as `tokenizers` saves bert-base-uncased's, over {@link VOCABULARY}. */
function tokenizerJson(): object {
  const id = (token: string) => VOCABULARY.indexOf(token as (typeof VOCABULARY)[number]);
  const special = (token: string) => ({
    id: id(token),
    content: token,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'].map(special),
    normalizer: {
      type: 'BertNormalizer',
      clean_text: true,
      handle_chinese_chars: true,
      strip_accents: null,
      lowercase: true,
    },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
      ],
      pair: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } },
        { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: Object.fromEntries(
        ['[CLS]', '[SEP]'].map((token) => [token, { id: token, ids: [id(token)], tokens: [token] }]),
      ),
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab: Object.fromEntries(VOCABULARY.map((token, i) => [token, i])),
    },
  };
}

/**
 * What the model answers for one tokenized text, pooled (`mean` over the text's tokens, or the first token's output
 * for `cls`) and L2-normalised: the reference the provider's vectors are compared with.
 */
export function referenceEmbedding(model: TinyBert, ids: number[], pooling: 'mean' | 'cls'): Float32Array {
  const hidden = ids.map((token, position) => {
    const row = new Float32Array(DIMENSIONS);
    for (let d = 0; d < DIMENSIONS; d++)
      row[d] = model.wordEmbeddings[token][d] + model.positionEmbeddings[position][d] + model.typeEmbeddings[0][d];
    return row;
  });
  // Output at position i: h[i] + the sum of h[i..end].
  const outputs = hidden.map((row, i) => {
    const out = Float32Array.from(row);
    for (let j = i; j < hidden.length; j++) for (let d = 0; d < DIMENSIONS; d++) out[d] += hidden[j][d];
    return out;
  });
  const pooled = new Float32Array(DIMENSIONS);
  if (pooling === 'cls') pooled.set(outputs[0]);
  else {
    for (const out of outputs) for (let d = 0; d < DIMENSIONS; d++) pooled[d] += out[d] / outputs.length;
  }
  const norm = Math.hypot(...pooled);
  return pooled.map((value) => value / norm);
}

/** Token ids of `words` (each in {@link VOCABULARY}) between `[CLS]` and `[SEP]`. */
export function tokenIds(...words: string[]): number[] {
  const ids = words.map((word) => {
    const i = VOCABULARY.indexOf(word as (typeof VOCABULARY)[number]);
    if (i < 0) throw new Error(`${word} is not in the tiny vocabulary`);
    return i;
  });
  return [2, ...ids, 3];
}

// ---- A minimal protobuf writer for ONNX's ModelProto (onnx/onnx.proto3: field numbers as declared there). ----

type Field = Uint8Array;

function varint(value: number | bigint): number[] {
  let rest = BigInt.asUintN(64, BigInt(value));
  const bytes: number[] = [];
  do {
    let byte = Number(rest & 0x7fn);
    rest >>= 7n;
    if (rest) byte |= 0x80;
    bytes.push(byte);
  } while (rest);
  return bytes;
}

const intField = (field: number, value: number | bigint): Field =>
  Uint8Array.from([...varint(field << 3), ...varint(value)]);

function bytesField(field: number, payload: Uint8Array | string): Field {
  const bytes = typeof payload === 'string' ? new TextEncoder().encode(payload) : payload;
  return Uint8Array.from([...varint((field << 3) | 2), ...varint(bytes.length), ...bytes]);
}

function message(...fields: Array<Field | Field[]>): Uint8Array {
  return Buffer.concat(fields.flat());
}

const ELEMENT = { FLOAT: 1, INT64: 7 } as const;
const ATTRIBUTE = { INT: 2, INTS: 7 } as const;

function tensor(name: string, dims: number[], type: keyof typeof ELEMENT, values: ArrayLike<number>): Uint8Array {
  const raw =
    type === 'FLOAT'
      ? new Uint8Array(Float32Array.from(values).buffer)
      : new Uint8Array(BigInt64Array.from(Array.from(values, BigInt)).buffer);
  return message(
    dims.map((dim) => intField(1, dim)),
    intField(2, ELEMENT[type]),
    bytesField(8, name),
    bytesField(9, raw),
  );
}

function valueInfo(name: string, type: keyof typeof ELEMENT, dims: Array<number | string>): Uint8Array {
  const shape = message(
    dims.map((dim) => bytesField(1, typeof dim === 'number' ? intField(1, dim) : bytesField(2, dim))),
  );
  const tensorType = message(intField(1, ELEMENT[type]), bytesField(2, shape));
  return message(bytesField(1, name), bytesField(2, bytesField(1, tensorType)));
}

function node(op: string, inputs: string[], outputs: string[], attributes: Uint8Array[] = []): Uint8Array {
  return message(
    inputs.map((input) => bytesField(1, input)),
    outputs.map((output) => bytesField(2, output)),
    bytesField(3, `${op}_${outputs[0]}`),
    bytesField(4, op),
    attributes.map((attribute) => bytesField(5, attribute)),
  );
}

const intAttribute = (name: string, value: number) =>
  message(bytesField(1, name), intField(3, value), intField(20, ATTRIBUTE.INT));

function encodeModel(model: TinyBert): Uint8Array {
  const flat = (rows: Float32Array[]) => rows.flatMap((row) => Array.from(row));
  const initializers = [
    tensor('word_embeddings', [VOCABULARY.length, DIMENSIONS], 'FLOAT', flat(model.wordEmbeddings)),
    tensor('position_embeddings', [model.maxPositions, DIMENSIONS], 'FLOAT', flat(model.positionEmbeddings)),
    tensor('token_type_embeddings', [2, DIMENSIONS], 'FLOAT', flat(model.typeEmbeddings)),
    tensor('zero', [], 'INT64', [0]),
    tensor('one', [], 'INT64', [1]),
    tensor('last_axis', [1], 'INT64', [2]),
  ];
  const nodes = [
    node('Gather', ['word_embeddings', 'input_ids'], ['words']),
    node('Shape', ['input_ids'], ['ids_shape']),
    node('Gather', ['ids_shape', 'one'], ['sequence_length'], [intAttribute('axis', 0)]),
    node('Range', ['zero', 'sequence_length', 'one'], ['positions']),
    node('Gather', ['position_embeddings', 'positions'], ['position_vectors']),
    node('Gather', ['token_type_embeddings', 'token_type_ids'], ['type_vectors']),
    node('Add', ['words', 'position_vectors'], ['with_positions']),
    node('Add', ['with_positions', 'type_vectors'], ['hidden']),
    node('Cast', ['attention_mask'], ['mask_float'], [intAttribute('to', ELEMENT.FLOAT)]),
    node('Unsqueeze', ['mask_float', 'last_axis'], ['mask_column']),
    node('Mul', ['hidden', 'mask_column'], ['masked']),
    node('CumSum', ['masked', 'one'], ['rest_sum'], [intAttribute('reverse', 1)]),
    node('Add', ['hidden', 'rest_sum'], ['last_hidden_state']),
  ];
  const graph = message(
    nodes.map((n) => bytesField(1, n)),
    bytesField(2, 'tiny_bert'),
    initializers.map((t) => bytesField(5, t)),
    ['input_ids', 'attention_mask', 'token_type_ids'].map((name) =>
      bytesField(11, valueInfo(name, 'INT64', ['batch', 'sequence'])),
    ),
    bytesField(12, valueInfo('last_hidden_state', 'FLOAT', ['batch', 'sequence', DIMENSIONS])),
  );
  const opset = message(bytesField(1, ''), intField(2, 14));
  return message(intField(1, 8), bytesField(2, 'hindsight-tests'), bytesField(7, graph), bytesField(8, opset));
}
