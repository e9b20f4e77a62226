import { loadConfig } from '../../../src/config';
import { createEmbeddingProvider } from '../../../src/embeddings';
import type { EmbeddingProvider } from '../../../src/embeddings/provider';
import { createTestApp, type TestApp } from '../../support/app';
import { historyFixture, recordHistory, type FixtureTask } from '../../support/fixtures/task-history';
import { SimilarTasksDocument } from '../../support/generated/graphql';

/** similarTasks with the offline sentence model (Universal Sentence Encoder lite) over the 52-task history. */
jest.setTimeout(5 * 60_000);

const PARAPHRASES: Array<{ query: string; originalQuery: string }> = [
  {
    query: 'End the membership of client C-2001, they were charged two times',
    originalQuery: 'Cancel the subscription of customer C-2001 because of double billing',
  },
  { query: 'Put Maria behind the wheel on route R-10', originalQuery: 'Assign driver Maria to route R-10' },
  { query: 'Will it rain in Oslo over the next three days?', originalQuery: 'Get weather in Oslo for 3 days' },
  { query: 'Show me the purchases placed from Hamburg', originalQuery: 'Which orders do we have in Hamburg?' },
];

describe('similarTasks with a sentence model', () => {
  let app: TestApp;
  let provider: EmbeddingProvider;
  let fixture: FixtureTask[];
  beforeAll(async () => {
    provider = await createEmbeddingProvider(loadConfig({}, { embeddingsProvider: 'local' }));
    app = await createTestApp({ embeddings: provider });
    fixture = historyFixture();
    await recordHistory(app, fixture);
  });
  afterAll(async () => {
    await app.close();
    await provider.close?.();
  });

  it.each(PARAPHRASES)('ranks the task a paraphrase describes first: $query', async ({ query, originalQuery }) => {
    const target = fixture.find((entry) => entry.input.originalQuery === originalQuery)!;
    const { similarTasks } = await app.run(SimilarTasksDocument, { query, minSimilarity: 0, limit: 60 });
    const [first] = similarTasks.tasks;
    expect(first.taskId).toBe(target.input.taskId);
    // Above every task of another kind (another plan), whatever words they share with the query.
    const plan = (task: { steps: Array<{ action: string }> }) => task.steps.map((step) => step.action).join();
    const unrelated = similarTasks.tasks.filter((task: any) => plan(task.task) !== plan(target.input));
    expect(unrelated.length).toBeGreaterThan(20);
    for (const task of unrelated) expect(task.similarity).toBeLessThan(first.similarity);
  });
});
