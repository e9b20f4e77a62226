import { loadConfig } from '../../../src/config';
import { createEmbeddingProvider } from '../../../src/embeddings';
import type { EmbeddingProvider } from '../../../src/embeddings/provider';
import { tokenize } from '../../../src/search/tokenize';
import { createTestApp, type TestApp } from '../../support/app';
import { distractors, targets, type CorpusExperience } from '../../support/fixtures/experience-corpus';
import { RecordExperiencesDocument, SearchExperiencesDocument } from '../../support/generated/graphql';

/** The only test that loads the real local model (Universal Sentence Encoder lite, 512-d); slow by nature. */
jest.setTimeout(15 * 60_000);

const CORPUS_SIZE = 1000;

/** Function words a paraphrase may share with its experience. */
const STOP_WORDS = new Set(
  'a an the of for to in on at and or with by from into over what how much can someone we our their my me is are be it its this that which so whenever after before about each every all as up out down than then why s per'.split(
    ' ',
  ),
);

function input(experience: CorpusExperience) {
  const {
    experienceId,
    primaryGoalDescription,
    subTaskDescription,
    initiatingAgentId,
    inputContextSummary,
    outputSummary,
    finalOutcome,
    tags,
  } = experience;
  return {
    experienceId,
    primaryGoalDescription,
    subTaskDescription,
    initiatingAgentId,
    inputContextSummary,
    outputSummary,
    finalOutcome,
    tags,
  };
}

describe('retrieval quality with the local model', () => {
  let app: TestApp;
  let provider: EmbeddingProvider;
  beforeAll(async () => {
    provider = await createEmbeddingProvider(loadConfig({}, { embeddingsProvider: 'local' }));
    app = await createTestApp({ embeddings: provider });
    const corpus = [...targets, ...distractors(CORPUS_SIZE - targets.length)];
    for (let start = 0; start < corpus.length; start += 250) {
      await app.run(RecordExperiencesDocument, { inputs: corpus.slice(start, start + 250).map(input) });
    }
  });
  afterAll(async () => {
    await app.close();
    await provider.close?.();
  });

  it('the paraphrased queries share at most one content word with their experience', () => {
    expect(targets.length).toBeGreaterThanOrEqual(30);
    for (const target of targets) {
      const words = new Set(
        [
          target.primaryGoalDescription,
          target.subTaskDescription,
          target.inputContextSummary,
          target.outputSummary,
        ].flatMap(tokenize),
      );
      const shared = tokenize(target.query).filter((word) => !STOP_WORDS.has(word) && words.has(word));
      expect({ id: target.experienceId, shared: shared.length <= 1 ? 'ok' : shared }).toEqual({
        id: target.experienceId,
        shared: 'ok',
      });
    }
  });

  it(`finds the experience a paraphrase describes among ${CORPUS_SIZE}: hit@3 >= 0.8 in the default (HYBRID) mode`, async () => {
    expect(await app.db.collection('eat_agent_experiences').countDocuments()).toBe(CORPUS_SIZE);
    const report: Record<string, { hitAt1: number; hitAt3: number; misses: string[] }> = {};
    for (const mode of ['HYBRID', 'VECTOR', 'KEYWORD'] as const) {
      let hitAt1 = 0;
      let hitAt3 = 0;
      const misses: string[] = [];
      for (const target of targets) {
        const { searchExperiences } = await app.run(SearchExperiencesDocument, { query: target.query, limit: 3, mode });
        const ids = searchExperiences.map(
          (hit: { experience: { experienceId: string } }) => hit.experience.experienceId,
        );
        if (ids[0] === target.experienceId) hitAt1++;
        if (ids.includes(target.experienceId)) hitAt3++;
        else misses.push(target.experienceId);
      }
      report[mode] = { hitAt1: hitAt1 / targets.length, hitAt3: hitAt3 / targets.length, misses };
    }
    console.log(
      `retrieval quality, ${targets.length} paraphrased queries over ${CORPUS_SIZE} experiences (local model):\n` +
        Object.entries(report)
          .map(
            ([mode, r]) =>
              `  ${mode.padEnd(7)} hit@1 ${r.hitAt1.toFixed(3)}  hit@3 ${r.hitAt3.toFixed(3)}  missed@3: ${r.misses.join(', ') || '-'}`,
          )
          .join('\n'),
    );
    expect(report.HYBRID.hitAt3).toBeGreaterThanOrEqual(0.8);
  });
});
