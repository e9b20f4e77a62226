import { createTestApp, type TestApp } from '../support/app';

interface Metrics {
  graphqlRequests: number;
  graphqlInFlight: number;
  databaseCommands: number;
  rssBytes: number;
  heapUsedBytes: number;
}

describe('GET /metrics', () => {
  let app: TestApp;
  let base: string;

  const metrics = async (): Promise<Metrics> => {
    const response = await fetch(`${base}/metrics`);
    expect(response.status).toBe(200);
    return (await response.json()) as Metrics;
  };
  const post = async (query: string, variables: Record<string, unknown> = {}) => {
    const response = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    });
    const body = (await response.json()) as { errors?: unknown };
    expect(body.errors).toBeUndefined();
  };

  beforeAll(async () => {
    app = await createTestApp();
    // The search spaces' change streams would send getMores at any moment, counted on one side of a boundary only.
    await app.deps.search.forDb(app.db).stopFollowing();
    base = (await app.server.listen(0, '127.0.0.1')).replace(/\/graphql$/, '');
  });
  afterAll(async () => {
    await app?.close();
  });

  it('counts the GraphQL requests and exactly the database commands they send (as command monitoring sees them)', async () => {
    const before = await metrics();
    app.commands.reset();
    await post('mutation { createSession(input: { sessionId: "m-1" }) { sessionId } }');
    await post('mutation { upsertAgent(sessionId: "m-1", input: { agentId: "a", agentData: {} }) { agentId } }');
    await post(
      'mutation { appendMessage(sessionId: "m-1", agentId: "a", input: { role: USER, content: "hi" }) { messageId } }',
    );
    await post('{ session(id: "m-1") { agents { messages(last: 20) { edges { node { text } } } } } }');
    const after = await metrics();

    expect(after.graphqlRequests - before.graphqlRequests).toBe(4);
    expect(app.commands.count()).toBeGreaterThanOrEqual(4);
    expect(after.databaseCommands - before.databaseCommands).toBe(app.commands.count());
    expect(after.graphqlInFlight).toBe(0);
    expect(after.rssBytes).toBeGreaterThan(after.heapUsedBytes);
  });
});
