/**
 * The vector model check that guards every search: many searches over HTTP (each request with its own request-bound
 * database handle) share one check per interval, and the check reads the index on `embedding_model`, never the
 * documents.
 */
import { print } from 'graphql';
import { createTestApp, postGraphQL, type TestApp } from '../../support/app';
import {
  RecordExperiencesDocument,
  RecordTaskDocument,
  SearchExperiencesDocument,
  SimilarTasksDocument,
} from '../../support/generated/graphql';

const SEARCHES = 40;

describe('the vector model check', () => {
  let app: TestApp;
  let url: string;

  beforeAll(async () => {
    app = await createTestApp();
    url = await app.server.listen(0, '127.0.0.1');
    await app.run(RecordExperiencesDocument, {
      inputs: Array.from({ length: 30 }, (_, i) => ({
        initiatingAgentId: `agent-${i % 3}`,
        primaryGoalDescription: `Deploy service ${i} to the staging cluster`,
        subTaskDescription: 'Roll out the new image',
        finalOutcome: 'SUCCESS' as const,
      })),
    });
    await app.run(RecordTaskDocument, {
      input: {
        taskId: 't1',
        originalQuery: 'List orders in Berlin',
        goal: 'List orders in Berlin',
        status: 'COMPLETED',
      },
    });
  });
  afterAll(() => app.close());

  it('runs once for many HTTP searches, through the index', async () => {
    app.commands.reset();
    const searches = Array.from({ length: SEARCHES }, (_, i) =>
      i % 2
        ? { query: print(SearchExperiencesDocument), variables: { query: `deploy service ${i}`, mode: 'HYBRID' } }
        : { query: print(SimilarTasksDocument), variables: { query: `orders in Berlin ${i}` } },
    );
    for (const body of searches) {
      const response = await postGraphQL(url, body);
      expect(response.body.errors).toBeUndefined();
    }
    // Concurrent searches share the check in flight, too.
    const concurrent = await Promise.all(searches.map((body) => postGraphQL(url, body)));
    for (const response of concurrent) expect(response.body.errors).toBeUndefined();

    const checks = app.commands.events.filter(
      (event) => event.commandName === 'distinct' && event.command.key === 'embedding_model',
    );
    expect(checks.map((event) => event.command.distinct).sort()).toEqual(['eat_agent_experiences', 'tasks']);
    // Nothing else the check sends matches on the model's fields with $ne/$or (a scan of every document).
    const scans = app.commands.events.filter((event) => JSON.stringify(event.command.filter ?? {}).includes('$ne'));
    expect(scans).toEqual([]);
  });

  it('reads the models present from the index', async () => {
    const indexes = await app.db.collection('eat_agent_experiences').indexes();
    expect(indexes.map((index) => index.key)).toContainEqual({ embedding_model: 1 });
  });
});
