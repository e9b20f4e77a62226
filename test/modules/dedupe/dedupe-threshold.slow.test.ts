import { loadConfig } from '../../../src/config';
import { createEmbeddingProvider } from '../../../src/embeddings';
import type { EmbeddingProvider } from '../../../src/embeddings/provider';
import { DEDUPE_PAIRS } from '../../support/fixtures/dedupe-pairs';
import { pairScores, thresholdTable } from '../../support/dedupe/threshold';

/**
 * DEDUPE_THRESHOLD's default with the offline sentence model (Universal Sentence Encoder lite) on the labelled pairs,
 * as measured in docs/retrieval.md (`npm run eval:dedupe` prints the whole table).
 */
jest.setTimeout(2 * 60_000);

describe('the near-duplicate rule on the labelled goal pairs', () => {
  let provider: EmbeddingProvider;
  let scores: number[];
  beforeAll(async () => {
    provider = await createEmbeddingProvider(loadConfig({}, { embeddingsProvider: 'local' }));
    scores = await pairScores(provider, DEDUPE_PAIRS);
  });
  afterAll(() => provider.close?.());

  it('at the default threshold merges no pair of different tasks and as many paraphrases as measured', () => {
    const threshold = loadConfig({}).dedupeThreshold;
    const [row] = thresholdTable(DEDUPE_PAIRS, scores, [threshold]);
    expect(row.falsePositives).toBe(0);
    // 7 of 74 when measured: texts equal but for articles and inflection.
    expect(row.truePositives).toBeGreaterThanOrEqual(7);
  });

  it('a cosine alone would merge different tasks at every candidate threshold: the reason for the guard', () => {
    for (const row of thresholdTable(DEDUPE_PAIRS, scores, [0.8, 0.85, 0.9, 0.95], false))
      expect(row.falsePositives).toBeGreaterThan(0);
  });
});
