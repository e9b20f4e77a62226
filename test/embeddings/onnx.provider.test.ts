import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig } from '../../src/config';
import { createEmbeddingProvider } from '../../src/embeddings';
import { EmbeddingService } from '../../src/embeddings/embedding.service';
import { OnnxEmbeddingProvider } from '../../src/embeddings/onnx.provider';
import { createTestApp } from '../support/app';
import { runOffline } from '../support/offline/run-offline';
import {
  ReembedDocument,
  ReembedStatusDocument,
  RecordExperiencesDocument,
  SearchExperiencesDocument,
} from '../support/generated/graphql';
import { DIMENSIONS, referenceEmbedding, tokenIds, writeTinyBert, type TinyBert } from '../support/tiny-bert';

let root: string;
beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'hindsight-onnx-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const folder = (name: string, options: Parameters<typeof writeTinyBert>[1] = {}) =>
  writeTinyBert(path.join(root, name), options);

function expectVector(actual: Float32Array, expected: Float32Array): void {
  // Not toBeInstanceOf: the vectors come from the worker's messages, made in another realm than jest's sandbox.
  expect(Object.prototype.toString.call(actual)).toBe('[object Float32Array]');
  expect(actual).toHaveLength(expected.length);
  actual.forEach((value, d) => expect(value).toBeCloseTo(expected[d], 5));
}

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, value, d) => sum + value * b[d], 0);

/** Thirty words of the vocabulary: 32 tokens with [CLS] and [SEP], twice the tiny model's 16 positions. */
const LONG_WORDS = Array.from({ length: 30 }, (_, i) => ['memory', 'search', 'agent', 'server', 'cache'][i % 5]);

describe('OnnxEmbeddingProvider on a BERT-shaped model (mean pooling from 1_Pooling/config.json)', () => {
  let model: TinyBert;
  let provider: OnnxEmbeddingProvider;
  beforeAll(async () => {
    model = folder('tiny-mean', { pooling: 'mean' });
    provider = await OnnxEmbeddingProvider.create({ dir: model.dir, batchSize: 3 });
  });
  afterAll(() => provider.close());

  test("one unit vector per text, in order: the mean of the model's states over the text's word pieces", async () => {
    expect(provider).toMatchObject({ id: 'onnx', model: 'tiny-mean', dimensions: DIMENSIONS, maxTokens: 16 });
    const vectors = await provider.embed(['The deployed databases, failing.', 'Zebra retry', 'cache']);
    expect(vectors).toHaveLength(3);
    for (const vector of vectors) expect(Math.hypot(...vector)).toBeCloseTo(1, 5);
    expectVector(
      vectors[0],
      referenceEmbedding(
        model,
        tokenIds('the', 'deploy', '##ed', 'database', '##s', ',', 'fail', '##ing', '.'),
        'mean',
      ),
    );
    // Lower-cased by the tokenizer's normaliser; a word outside the vocabulary is [UNK].
    expectVector(vectors[1], referenceEmbedding(model, tokenIds('[UNK]', 'retry'), 'mean'));
    expectVector(vectors[2], referenceEmbedding(model, tokenIds('cache'), 'mean'));
  });

  test('padding changes nothing: a short text embeds the same alone and in a batch with longer texts', async () => {
    const [alone] = await provider.embed(['agent']);
    const [batched] = await provider.embed(['agent', 'the server timeout failed the test runs', 'search memory']);
    expectVector(batched, alone);
  });

  test('more texts than a batch (3) come back in order, each as when embedded alone', async () => {
    const texts = ['agent', 'memory search', 'the cache', 'server timeout', 'retry', 'test runs', 'database migration'];
    const together = await provider.embed(texts);
    for (const [i, text] of texts.entries()) expectVector(together[i], (await provider.embed([text]))[0]);
  });

  test("a text longer than the model's 16 positions is cut to its first 14 word pieces, [SEP] kept", async () => {
    const [vector] = await provider.embed([LONG_WORDS.join(' ')]);
    expectVector(vector, referenceEmbedding(model, tokenIds(...LONG_WORDS.slice(0, 14)), 'mean'));
  });

  test('with query and document prefixes, the service embeds searches and stored texts after each (e5 style)', async () => {
    const prefixed = await OnnxEmbeddingProvider.create({
      dir: model.dir,
      batchSize: 8,
      prefixes: { query: 'query: ', document: 'passage: ' },
    });
    try {
      const service = new EmbeddingService(prefixed, null, { batchSize: 8 });
      const query = await service.embedQuery('database migration');
      const [document] = await service.embed(['database migration']);
      expectVector(query, referenceEmbedding(model, tokenIds('query', ':', 'database', 'migration'), 'mean'));
      expectVector(document, referenceEmbedding(model, tokenIds('passage', ':', 'database', 'migration'), 'mean'));
      // Stored vectors record the document prefix: changing it asks for reembed as a model change does.
      expect(service.signature).toEqual({
        provider: 'onnx',
        model: 'tiny-mean (documents prefixed "passage: ")',
        dimensions: DIMENSIONS,
      });
    } finally {
      await prefixed.close();
    }
  });
});

test('loads and embeds offline: no socket, HTTP, fetch or DNS attempt in the main thread or the model worker', async () => {
  const { stdout, guarded, attempts } = await runOffline('embed-onnx-offline.ts', [path.join(root, 'offline')]);
  expect(guarded).toEqual(['main', 'worker']);
  expect(attempts).toEqual([]);
  expect(JSON.parse(stdout)).toEqual({ lengths: [DIMENSIONS, DIMENSIONS] });
});

describe('pooling and length settings', () => {
  test('cls pooling from 1_Pooling/config.json (model in onnx/model.onnx); EMBEDDING_POOLING overrides it', async () => {
    const model = folder('tiny-cls', { pooling: 'cls', modelPath: 'onnx/model.onnx' });
    const ids = tokenIds('retry', 'the', 'server');
    const cls = await OnnxEmbeddingProvider.create({ dir: model.dir, batchSize: 8 });
    const mean = await OnnxEmbeddingProvider.create({ dir: model.dir, batchSize: 8, pooling: 'mean' });
    try {
      const [[byCls], [byMean]] = await Promise.all([
        cls.embed(['retry the server']),
        mean.embed(['retry the server']),
      ]);
      expectVector(byCls, referenceEmbedding(model, ids, 'cls'));
      expectVector(byMean, referenceEmbedding(model, ids, 'mean'));
      expect(dot(byCls, byMean)).toBeLessThan(0.999);
    } finally {
      await Promise.all([cls.close(), mean.close()]);
    }
  });

  test('without 1_Pooling/config.json it pools by mean; EMBEDDING_MAX_TOKENS cuts below the model maximum', async () => {
    const model = folder('tiny-bare');
    const provider = await createEmbeddingProvider(
      loadConfig({ EMBEDDING_MODEL_DIR: model.dir, EMBEDDING_MAX_TOKENS: '8', EMBEDDING_MODEL: 'tiny-bert-v1' }),
    );
    try {
      expect(provider).toMatchObject({ id: 'onnx', model: 'tiny-bert-v1', maxTokens: 8 });
      const [short, long] = await provider.embed(['memory search', LONG_WORDS.join(' ')]);
      expectVector(short, referenceEmbedding(model, tokenIds('memory', 'search'), 'mean'));
      expectVector(long, referenceEmbedding(model, tokenIds(...LONG_WORDS.slice(0, 6)), 'mean'));
    } finally {
      await provider.close?.();
    }
  });
});

describe('a missing or broken file refuses the start, naming its path', () => {
  const cases: Array<[string, (dir: string) => void, (dir: string) => string]> = [
    [
      'no model file',
      (dir) => unlinkSync(path.join(dir, 'model.onnx')),
      (dir) => `neither ${path.join(dir, 'model.onnx')} nor ${path.join(dir, 'onnx', 'model.onnx')} exists`,
    ],
    [
      'a model file that is not ONNX',
      (dir) => writeFileSync(path.join(dir, 'model.onnx'), 'not a protobuf graph'),
      (dir) => `${path.join(dir, 'model.onnx')} is not a model onnxruntime can run`,
    ],
    [
      'no tokenizer.json',
      (dir) => unlinkSync(path.join(dir, 'tokenizer.json')),
      (dir) => `${path.join(dir, 'tokenizer.json')} is missing`,
    ],
    [
      'a truncated tokenizer.json',
      (dir) => writeFileSync(path.join(dir, 'tokenizer.json'), '{"model": {"type": "WordPie'),
      (dir) => `${path.join(dir, 'tokenizer.json')} is not valid JSON`,
    ],
    [
      'no config.json',
      (dir) => unlinkSync(path.join(dir, 'config.json')),
      (dir) => `${path.join(dir, 'config.json')} is missing`,
    ],
    [
      'a pooling the server does not run',
      (dir) => {
        mkdirSync(path.join(dir, '1_Pooling'), { recursive: true });
        writeFileSync(path.join(dir, '1_Pooling', 'config.json'), JSON.stringify({ pooling_mode_max_tokens: true }));
      },
      (dir) => `${path.join(dir, '1_Pooling', 'config.json')} asks for pooling_mode_max_tokens`,
    ],
  ];
  test.each(cases)('%s', async (name, damage, message) => {
    const { dir } = folder(`broken-${name.replace(/\W+/g, '-')}`);
    damage(dir);
    const config = loadConfig({ EMBEDDINGS_PROVIDER: 'onnx', EMBEDDING_MODEL_DIR: dir });
    const error = await createEmbeddingProvider(config).then(
      (provider) => provider.close?.().then(() => null),
      (reason: unknown) => reason as Error,
    );
    expect(error?.message).toContain(`Could not load the ONNX embedding model in ${dir} (EMBEDDING_MODEL_DIR): `);
    expect(error?.message).toContain(message(dir));
  });

  test('EMBEDDINGS_PROVIDER=onnx without EMBEDDING_MODEL_DIR is a configuration error', () => {
    expect(() => loadConfig({ EMBEDDINGS_PROVIDER: 'onnx' })).toThrow(ConfigError);
    expect(() => loadConfig({ EMBEDDINGS_PROVIDER: 'onnx' })).toThrow(/EMBEDDING_MODEL_DIR/);
    expect(loadConfig({ EMBEDDING_MODEL_DIR: '/models/bge', OPENAI_API_KEY: 'k' }).embeddingsProvider).toBe('onnx');
    // Prefixes are kept as written: their trailing space is part of what the model was trained with.
    expect(loadConfig({ EMBEDDING_QUERY_PREFIX: 'query: ' }).embeddingQueryPrefix).toBe('query: ');
  });
});

describe('the server on an ONNX model', () => {
  test('after a switch from hash (384 dimensions) to onnx (8), search is refused until reembed; then a search embeds the query after its prefix', async () => {
    const model = folder('app');
    const source = await createTestApp();
    const onnx = await OnnxEmbeddingProvider.create({
      dir: model.dir,
      batchSize: 16,
      prefixes: { query: 'query: ', document: 'passage: ' },
    });
    const other = await createTestApp({ embeddings: onnx });
    const sameDb = { db: other.client.db(source.db.databaseName) };
    const goals = ['deploy the database migration', 'retry the server timeout', 'search the agent memory'];
    try {
      await source.run(RecordExperiencesDocument, {
        inputs: goals.map((goal, i) => ({
          experienceId: `exp-${i}`,
          primaryGoalDescription: goal,
          subTaskDescription: 'test run',
          initiatingAgentId: 'agent',
          finalOutcome: 'SUCCESS' as const,
        })),
      });
      const refused = await other.execute(SearchExperiencesDocument, { query: goals[1], mode: 'VECTOR' }, sameDb);
      expect(refused.errors![0].extensions).toMatchObject({
        reason: 'EMBEDDING_MODEL_MISMATCH',
        stored: { provider: 'hash', dimensions: 384 },
        current: { provider: 'onnx', model: 'app (documents prefixed "passage: ")', dimensions: DIMENSIONS },
      });

      await other.run(ReembedDocument, { collection: 'EXPERIENCES' }, sameDb);
      for (let i = 0; ; i++) {
        const { reembedStatus } = await other.run(ReembedStatusDocument, { collection: 'EXPERIENCES' }, sameDb);
        if (reembedStatus?.state === 'DONE') break;
        expect(reembedStatus?.state).toBe('RUNNING');
        if (i > 200) throw new Error('reembed did not finish');
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      const stored = await source.db.collection('eat_agent_experiences').findOne({ experience_id: 'exp-1' });
      expect(stored!.embedding_model).toEqual(other.deps.embedder.signature);
      expect(stored!.embeddings.primary_goal_description_embedding).toHaveLength(DIMENSIONS);

      const { searchExperiences } = await other.run(
        SearchExperiencesDocument,
        { query: goals[1], mode: 'VECTOR', limit: 1 },
        sameDb,
      );
      expect(searchExperiences[0].experience.experienceId).toBe('exp-1');
      // The query was embedded after "query: ", the stored goal after "passage: ".
      const words = ['retry', 'the', 'server', 'timeout'];
      const expected = dot(
        referenceEmbedding(model, tokenIds('query', ':', ...words), 'mean'),
        referenceEmbedding(model, tokenIds('passage', ':', ...words), 'mean'),
      );
      expect(expected).toBeLessThan(0.999);
      expect(searchExperiences[0].vectorScore).toBeCloseTo(expected, 4);
    } finally {
      await other.close();
      await onnx.close();
      await source.close();
    }
  });
});
