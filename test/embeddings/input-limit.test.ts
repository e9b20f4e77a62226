import { EmbeddingService } from '../../src/embeddings/embedding.service';
import { HashEmbeddingProvider } from '../../src/embeddings/hash.provider';
import { cutForModel, type EmbeddingProvider, type InputLimit } from '../../src/embeddings/provider';
import { OpenAIEmbeddingProvider } from '../../src/embeddings/openai.provider';
import { registry } from '../../src/observability/metrics';

/** The hash embedder behind an input limit, recording the texts it is given. */
class LimitedProvider implements EmbeddingProvider {
  readonly id = 'limited';
  readonly model = 'limited-v1';
  readonly dimensions = 16;
  readonly texts: string[] = [];
  private readonly inner = new HashEmbeddingProvider(16);
  constructor(readonly inputLimit: InputLimit) {}
  async embed(texts: string[]): Promise<Float32Array[]> {
    this.texts.push(...texts);
    return this.inner.embed(texts);
  }
}

describe('cutForModel', () => {
  it('keeps a text within the limit as it is', () => {
    expect(cutForModel('short', { unit: 'chars', max: 5 })).toEqual({ text: 'short', truncated: false });
    expect(cutForModel('é'.repeat(4), { unit: 'bytes', max: 8 })).toEqual({ text: 'éééé', truncated: false });
    expect(cutForModel('x'.repeat(100), undefined).truncated).toBe(false);
  });

  it('cuts by UTF-16 units or UTF-8 bytes, never inside a character', () => {
    expect(cutForModel('abcdef', { unit: 'chars', max: 4 })).toEqual({ text: 'abcd', truncated: true });
    expect(cutForModel('a𝐀𝐀', { unit: 'chars', max: 4 })).toEqual({ text: 'a𝐀', truncated: true });
    expect(cutForModel('漢字語', { unit: 'bytes', max: 7 })).toEqual({ text: '漢字', truncated: true });
    expect(cutForModel('a😀b', { unit: 'bytes', max: 4 })).toEqual({ text: 'a', truncated: true });
    const cut = cutForModel('ж'.repeat(6_000_000), { unit: 'bytes', max: 8191 });
    expect(Buffer.byteLength(cut.text)).toBe(8190);
  });

  it("bounds OpenAI's input by bytes: at most 8,191 bytes, so at most 8,191 tokens", async () => {
    const provider = new OpenAIEmbeddingProvider(
      { apiKey: 'sk-test', baseURL: 'http://127.0.0.1:9', batchSize: 8, timeoutMs: 100, maxRetries: 0 },
      1536,
    );
    expect(provider.inputLimit).toEqual({ unit: 'bytes', max: 8191 });
  });
});

describe('EmbeddingService and the input limit', () => {
  it('gives the model a long text cut to its limit, says so and counts it', async () => {
    const provider = new LimitedProvider({ unit: 'chars', max: 100 });
    const service = new EmbeddingService(provider, null, { batchSize: 8 });
    const before = (await registry.getSingleMetric('hindsight_embedding_inputs_truncated_total')!.get()).values;
    const long = 'z'.repeat(12 * 1024 * 1024);
    const { vectors, truncated } = await service.embedDetailed([
      'short text',
      long,
      `${' '.repeat(500)}payload ${long}`,
    ]);
    expect(truncated).toEqual([false, true, true]);
    expect(vectors).toHaveLength(3);
    expect(provider.texts).toEqual(['short text', 'z'.repeat(100), `payload ${'z'.repeat(92)}`]);
    const after = (await registry.getSingleMetric('hindsight_embedding_inputs_truncated_total')!.get()).values;
    const count = (values: typeof after) => values.find((value) => value.labels.provider === 'limited')?.value ?? 0;
    expect(count(after) - count(before)).toBe(2);
  });

  it('embeds a text and its cut form alike (one vector, one provider call)', async () => {
    const provider = new LimitedProvider({ unit: 'chars', max: 10 });
    const service = new EmbeddingService(provider, null, { batchSize: 8 });
    const [a, b] = await service.embed(['0123456789', '0123456789 and more']);
    expect(b).toBe(a);
    expect(provider.texts).toEqual(['0123456789']);
  });
});
