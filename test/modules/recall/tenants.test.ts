import { createTestApp, postGraphQL, type TestApp } from '../../support/app';

const ALPHA = 'key-recall-alpha';
const BETA = 'key-recall-beta';

const RECALL = `query($scope: RecallScopeInput) {
  recall(query: "Ship a parcel to the Berlin warehouse", scope: $scope) { tokens text items { kind id } }
}`;

/** Over HTTP with two tenants' keys: recall reads the caller's tenant only, whatever the scope names. */
describe('recall across tenants', () => {
  let app: TestApp;
  let url: string;
  let alphaExperience: string;
  let alphaInsight: string;

  beforeAll(async () => {
    app = await createTestApp({ config: { apiKeys: [`${ALPHA}:admin:alpha`, `${BETA}:admin:beta`] } });
    url = await app.server.listen(0, '127.0.0.1');
    const written = await postGraphQL(
      url,
      {
        query: `mutation {
          recordExperience(input: {
            primaryGoalDescription: "Ship a parcel to the Berlin warehouse" subTaskDescription: "Create the shipment"
            initiatingAgentId: "shipper" finalOutcome: SUCCESS outputSummary: "Shipped" userId: "u-alpha"
          }) { experienceId }
          recordInsight(input: {
            agentType: EXECUTOR type: WARNINGS insight: "Berlin parcels need a postcode" userId: "u-alpha"
          }) { id }
        }`,
      },
      ALPHA,
    );
    expect(written.body.errors).toBeUndefined();
    alphaExperience = written.body.data.recordExperience.experienceId;
    alphaInsight = written.body.data.recordInsight.id;
    const said = await postGraphQL(
      url,
      {
        query: `mutation {
          createSession(input: { sessionId: "alpha-chat" }) { sessionId }
          upsertAgent(sessionId: "alpha-chat", input: { agentId: "shipper", agentData: {} }) { agentId }
          appendMessage(sessionId: "alpha-chat", agentId: "shipper", input: {
            role: USER, content: "Ship my parcel to the Berlin warehouse"
          }) { messageId }
        }`,
      },
      ALPHA,
    );
    expect(said.body.errors).toBeUndefined();
  });
  afterAll(async () => {
    for (const tenant of ['alpha', 'beta']) await app.client.db(`${app.db.databaseName}-${tenant}`).dropDatabase();
    await app.close();
  });

  it('alpha recalls its memories and messages; beta, naming alpha’s user and agent, finds nothing', async () => {
    const scope = { userId: 'u-alpha', agentId: 'shipper' };
    const own = await postGraphQL(url, { query: RECALL, variables: { scope: { agentId: 'shipper' } } }, ALPHA);
    expect(own.body.errors).toBeUndefined();
    expect(own.body.data.recall.items.map((item: { id: string }) => item.id).sort()).toEqual(
      [alphaExperience, 'alpha-chat/shipper/0'].sort(),
    );
    const user = await postGraphQL(url, { query: RECALL, variables: { scope: { userId: 'u-alpha' } } }, ALPHA);
    expect(user.body.data.recall.items.map((item: { id: string }) => item.id)).toContain(alphaInsight);
    for (const variables of [{ scope }, { scope: null }]) {
      const other = await postGraphQL(url, { query: RECALL, variables }, BETA);
      expect(other.body.errors).toBeUndefined();
      expect(other.body.data.recall).toEqual({ tokens: 0, text: '', items: [] });
    }
  });
});
