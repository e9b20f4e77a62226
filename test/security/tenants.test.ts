import { tenantDatabaseName } from '../../src/auth/tenants';
import { createTestApp, postGraphQL, type TestApp } from '../support/app';

describe('tenant database names', () => {
  it('default tenant: the configured database; others: <db>-<tenant>, refused beyond 63 characters', () => {
    expect(tenantDatabaseName('hindsight', 'default')).toBe('hindsight');
    expect(tenantDatabaseName('hindsight', 'acme_2')).toBe('hindsight-acme_2');
    expect(() => tenantDatabaseName('d'.repeat(40), 'a'.repeat(32))).toThrow(/exceeds 63 characters/);
  });
});

/** Reads as the fast path answers them (default Accept) and as Apollo does (an Accept the fast path never takes). */
const SURFACES = { 'fast path': {}, Apollo: { accept: 'application/json;q=1' } };

describe('tenants: a key of tenant alpha reaches nothing of tenant beta', () => {
  let app: TestApp;
  let url: string;
  let experienceId: string;
  const ALPHA = 'key-alpha';
  const BETA = 'key-beta';
  const DEFAULT = 'key-default';

  beforeAll(async () => {
    app = await createTestApp({ config: { apiKeys: [`${ALPHA}:admin:alpha`, `${BETA}:admin:beta`, DEFAULT] } });
    url = await app.server.listen(0, '127.0.0.1');
    const created = await postGraphQL(
      url,
      {
        query: `mutation {
          createSession(input: { sessionId: "alpha-chat" }) { sessionId }
          recordExperience(input: {
            primaryGoalDescription: "Find the delayed parcel of order 1234"
            subTaskDescription: "Look up the shipment" initiatingAgentId: "a1" finalOutcome: SUCCESS
            outputSummary: "Parcel found at the depot" sessionId: "alpha-chat"
          }) { experienceId }
        }`,
      },
      ALPHA,
    );
    expect(created.body.errors).toBeUndefined();
    experienceId = created.body.data.recordExperience.experienceId;
  });
  afterAll(async () => {
    for (const tenant of ['alpha', 'beta']) await app.client.db(`${app.db.databaseName}-${tenant}`).dropDatabase();
    await app.close();
  });

  const READ = `{
    sessions { totalCount }
    experiences { totalCount }
    searchExperiences(query: "delayed parcel", limit: 5) { score }
    experience(id: "EXPERIENCE") { experienceId }
  }`;

  it.each(Object.entries(SURFACES))(
    '%s: beta and default see none of alpha’s data; alpha sees it',
    async (_name, headers) => {
      const query = READ.replace('EXPERIENCE', experienceId);
      const own = await postGraphQL(url, { query }, ALPHA, headers);
      expect(own.body.data).toMatchObject({
        sessions: { totalCount: 1 },
        experiences: { totalCount: 1 },
        experience: { experienceId },
      });
      expect(own.body.data.searchExperiences.length).toBe(1);
      for (const key of [BETA, DEFAULT]) {
        const other = await postGraphQL(url, { query }, key, headers);
        expect(other.body).toEqual({
          data: {
            sessions: { totalCount: 0 },
            experiences: { totalCount: 0 },
            searchExperiences: [],
            experience: null,
          },
        });
        const session = await postGraphQL(url, { query: '{ session(id: "alpha-chat") { sessionId } }' }, key, headers);
        expect(session.body.errors[0].extensions.code).toBe('NOT_FOUND');
      }
    },
  );

  it('beta cannot delete alpha’s session or experience', async () => {
    const session = await postGraphQL(url, { query: 'mutation { deleteSession(id: "alpha-chat") }' }, BETA);
    expect(session.body.data?.deleteSession ?? session.body.errors[0].extensions.code).toEqual(
      session.body.data ? false : 'NOT_FOUND',
    );
    const experience = await postGraphQL(
      url,
      { query: `mutation { deleteExperience(id: "${experienceId}") { experienceId } }` },
      BETA,
    );
    expect(experience.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const still = await postGraphQL(url, { query: READ.replace('EXPERIENCE', experienceId) }, ALPHA);
    expect(still.body.data).toMatchObject({ sessions: { totalCount: 1 }, experience: { experienceId } });
  });

  it('each tenant’s database has the indexes of the default one', async () => {
    const names = async (dbName: string) =>
      (await app.client.db(dbName).collection('sessions').listIndexes().toArray()).map((index) => index.name).sort();
    const expected = await names(app.db.databaseName);
    expect(expected.length).toBeGreaterThan(1);
    // beta was prepared by its reads above, alpha by its writes.
    expect(await names(`${app.db.databaseName}-alpha`)).toEqual(expected);
    expect(await names(`${app.db.databaseName}-beta`)).toEqual(expected);
  });
});
