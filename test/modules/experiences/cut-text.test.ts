/**
 * A search hit says when its matched text is longer than the embedding model reads (`matchedTextCut`): its vector
 * stands for the beginning of the text only.
 */
import { HashEmbeddingProvider } from '../../../src/embeddings/hash.provider';
import type { EmbeddingProvider, InputLimit } from '../../../src/embeddings/provider';
import { createTestApp, type TestApp } from '../../support/app';

/** The hash embedder behind an input limit of 200 characters. */
class LimitedProvider implements EmbeddingProvider {
  readonly id = 'limited';
  readonly model = 'limited-v1';
  readonly dimensions = 64;
  readonly inputLimit: InputLimit = { unit: 'chars', max: 200 };
  private readonly inner = new HashEmbeddingProvider(64);
  embed(texts: string[]): Promise<Float32Array[]> {
    return this.inner.embed(texts);
  }
}

const LONG_GOAL = `Rotate the database credentials of the billing service ${'and then verify every replica '.repeat(20)}`;
const SHORT_GOAL = 'Rotate the database credentials of the search service';

describe('matchedTextCut', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp({ embeddings: new LimitedProvider() });
    for (const [id, goal] of [
      ['long', LONG_GOAL],
      ['short', SHORT_GOAL],
    ]) {
      await app.run(`mutation($input: RecordExperienceInput!) { recordExperience(input: $input) { experienceId } }`, {
        input: {
          experienceId: id,
          initiatingAgentId: 'ops',
          primaryGoalDescription: goal,
          subTaskDescription: 'credentials',
          finalOutcome: 'SUCCESS',
        },
      });
    }
  });
  afterAll(() => app.close());

  it.each(['HYBRID', 'VECTOR', 'KEYWORD'])('is true for a hit whose matched text was cut (%s)', async (mode) => {
    const data = await app.run(
      `query($mode: SearchMode) {
        searchExperiences(query: "rotate the database credentials", mode: $mode, fields: [PRIMARY_GOAL], limit: 5) {
          matchedField matchedTextCut experience { experienceId }
        }
      }`,
      { mode },
    );
    const cut = Object.fromEntries(
      data.searchExperiences.map((hit: any) => [hit.experience.experienceId, hit.matchedTextCut]),
    );
    expect(cut).toEqual({ long: true, short: false });
  });

  it('is read for similar experiences too', async () => {
    const data = await app.run(
      `query { experience(id: "short") { similar(limit: 5) { matchedTextCut experience { experienceId } } } }`,
    );
    expect(data.experience.similar).toEqual([{ matchedTextCut: true, experience: { experienceId: 'long' } }]);
  });
});
