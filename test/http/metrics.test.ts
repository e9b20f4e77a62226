import { EmbeddingService, type EmbeddingCacheDocument } from '../../src/embeddings/embedding.service';
import { HashEmbeddingProvider } from '../../src/embeddings/hash.provider';
import { EXPERIENCES_COLLECTION } from '../../src/modules/experiences/experience.document';
import { MAX_LABEL_VALUES } from '../../src/observability/metrics';
import { createTestApp, stopFollowing, type TestApp } from '../support/app';
import { startFailPointEngine } from '../support/fail-point';
import { CreateSessionDocument, MessageAppendedDocument, UpsertAgentDocument } from '../support/generated/graphql';
import { scrape, type Scrape } from '../support/metrics';
import { subscribe, waitUntil, wsClient } from '../support/subscriptions';

const DURATION = 'hindsight_graphql_request_duration_seconds_count';

describe('GET /metrics (Prometheus text format)', () => {
  let app: TestApp;
  let url: string;
  let base: string;

  const post = async (body: Record<string, unknown>) => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return (await response.json()) as { errors?: Array<{ extensions: { code: string } }> };
  };
  const run = async (query: string, variables: Record<string, unknown> = {}) => {
    const body = await post({ query, variables });
    expect(body.errors).toBeUndefined();
  };

  beforeAll(async () => {
    app = await createTestApp();
    // The search spaces' change streams would send getMores at any moment, counted on one side of a boundary only.
    await stopFollowing(app);
    url = await app.server.listen(0, '127.0.0.1');
    base = url.replace(/\/graphql$/, '');
  });
  afterAll(async () => {
    await app?.close();
  });

  it('counts the GraphQL requests and exactly the database commands they send (as command monitoring sees them)', async () => {
    const before = await scrape(base);
    app.commands.reset();
    await run('mutation { createSession(input: { sessionId: "m-1" }) { sessionId } }');
    await run('mutation { upsertAgent(sessionId: "m-1", input: { agentId: "a", agentData: {} }) { agentId } }');
    await run(
      'mutation { appendMessage(sessionId: "m-1", agentId: "a", input: { role: USER, content: "hi" }) { messageId } }',
    );
    await run('{ session(id: "m-1") { agents { messages(last: 20) { edges { node { text } } } } } }');
    const after = await scrape(base);

    const delta = (name: string) => after.value(name) - before.value(name);
    expect(delta('hindsight_graphql_requests_total')).toBe(4);
    expect(app.commands.count()).toBeGreaterThanOrEqual(4);
    // At least the operations' commands: the pool also times what the app's background work (change streams) sends.
    expect(delta('hindsight_database_command_duration_seconds_count')).toBeGreaterThanOrEqual(app.commands.count());
    expect(delta('hindsight_database_command_duration_seconds_sum')).toBeGreaterThan(0);
    expect(after.value('hindsight_graphql_requests_in_flight')).toBe(0);
    // prom-client's default process metrics.
    expect(after.value('process_resident_memory_bytes')).toBeGreaterThan(after.value('nodejs_heap_size_used_bytes'));
  });

  it('shows a 300 ms stall of the event loop in hindsight_event_loop_delay_seconds', async () => {
    const DELAY = 'hindsight_event_loop_delay_seconds_bucket';
    const slow = (scrape: Scrape) => scrape.value(DELAY, { le: '+Inf' }) - scrape.value(DELAY, { le: '0.25' });
    const before = await scrape(base);
    expect(before.text).toContain('# TYPE hindsight_event_loop_delay_seconds histogram');
    const end = Date.now() + 300;
    while (Date.now() < end); // a request's synchronous work, as a stemmer's loop on a long token would be
    // The monitor's timer records the stall the next time it runs.
    let after = await scrape(base);
    for (let tries = 0; slow(after) === slow(before) && tries < 20; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      after = await scrape(base);
    }
    expect(slow(after) - slow(before)).toBeGreaterThanOrEqual(1);
    expect(after.value('hindsight_event_loop_delay_seconds_sum')).toBeGreaterThan(
      before.value('hindsight_event_loop_delay_seconds_sum') + 0.25,
    );
  });

  it('times each request under its operation name: anonymous, unknown, and the names past the bound as "other"', async () => {
    const before = await scrape(base);
    await run('query ListSessions { sessions(first: 1) { totalCount } }');
    await run('query ListSessions { sessions(first: 1) { totalCount } }');
    await run('{ sessions(first: 1) { totalCount } }');
    await post({ query: 'query First { sessions(first: 1) { totalCount } } query Second { __typename }' });
    await post({ query: 'query First { __typename } query Second { __typename }', operationName: 'Second' });
    await post({ query: 'not graphql at all' });
    const after = await scrape(base);
    const delta = (operation: string) => after.value(DURATION, { operation }) - before.value(DURATION, { operation });
    expect(delta('ListSessions')).toBe(2);
    expect(delta('anonymous')).toBe(1);
    // A document of two operations without operationName fails, but is named after its first.
    expect(delta('First')).toBe(1);
    expect(delta('Second')).toBe(1);
    expect(delta('unknown')).toBe(1);

    for (let i = 0; i < MAX_LABEL_VALUES + 5; i++) await post({ query: `query Name${i} { __typename }` });
    const bounded = await scrape(base);
    const names = bounded.labelSets(DURATION).map((labels) => labels.operation);
    expect(names.length).toBeLessThanOrEqual(MAX_LABEL_VALUES + 1);
    expect(bounded.value(DURATION, { operation: 'other' })).toBeGreaterThanOrEqual(5);
  });

  it('counts the errors answered, by code, and never shows a variable', async () => {
    const before = await scrape(base);
    await post({ query: '{ session(id: "no-such-session") { sessionId } }' });
    await post({ query: 'query ($id: ID!) { session(id: $id) { sessionId } }', variables: { id: 'secret-value-42' } });
    await post({ query: '{ noSuchField }' });
    const after = await scrape(base);
    const delta = (code: string) =>
      after.value('hindsight_graphql_errors_total', { code }) -
      before.value('hindsight_graphql_errors_total', { code });
    expect(delta('NOT_FOUND')).toBe(2);
    expect(delta('GRAPHQL_VALIDATION_FAILED')).toBe(1);
    expect(after.text).not.toContain('secret-value-42');
  });

  it('times embedding calls and counts their failures and the cache hits', async () => {
    const cache = app.db.collection<EmbeddingCacheDocument>('metrics_embedding_cache');
    const embedder = new EmbeddingService(new HashEmbeddingProvider(8), cache, { batchSize: 16 });
    const broken = new HashEmbeddingProvider(8);
    broken.embed = () => Promise.reject(new Error('provider down'));
    const failing = new EmbeddingService(broken, null, { batchSize: 16 });
    const calls = (scrape: Scrape) =>
      scrape.value('hindsight_embedding_call_duration_seconds_count', { provider: 'hash' });
    const hits = (scrape: Scrape) => scrape.value('hindsight_embedding_cache_hits_total');
    const misses = (scrape: Scrape) => scrape.value('hindsight_embedding_cache_misses_total');
    const errors = (scrape: Scrape) => scrape.value('hindsight_embedding_call_errors_total', { provider: 'hash' });

    const before = await scrape(base);
    await embedder.embed(['export the invoices', 'list them', 'export the invoices']);
    const once = await scrape(base);
    await embedder.embed(['export the invoices', 'list them', 'and one more']);
    await expect(failing.embed(['anything'])).rejects.toThrow('provider down');
    const after = await scrape(base);

    expect({
      calls: calls(once) - calls(before),
      hits: hits(once) - hits(before),
      misses: misses(once) - misses(before),
    }).toEqual({ calls: 1, hits: 0, misses: 2 });
    // Two texts from the cache, the new one from the provider; then the failing call.
    expect({
      calls: calls(after) - calls(once),
      hits: hits(after) - hits(once),
      misses: misses(after) - misses(once),
    }).toEqual({ calls: 2, hits: 2, misses: 2 });
    expect(errors(after) - errors(once)).toBe(1);
  });

  it('times searches per space and backend', async () => {
    await run(`mutation ($input: RecordExperienceInput!) { recordExperience(input: $input) { experienceId } }`, {
      input: {
        primaryGoalDescription: 'Metrics: export the invoices',
        subTaskDescription: 'Metrics: list them',
        initiatingAgentId: 'metrics-agent',
        finalOutcome: 'SUCCESS',
      },
    });
    const before = await scrape(base);
    await run('{ searchExperiences(query: "export invoices", fields: [PRIMARY_GOAL], limit: 3) { score } }');
    const after = await scrape(base);
    const backend = process.env.VECTOR_SEARCH === 'atlas' ? 'atlas' : 'memory';
    const delta = (labels: Record<string, string>) =>
      after.value('hindsight_search_duration_seconds_count', labels) -
      before.value('hindsight_search_duration_seconds_count', labels);
    expect(delta({ space: 'experiences.primary_goal_description', backend })).toBe(1);
    expect(delta({ space: 'experiences.primary_goal_description', backend: 'keyword' })).toBe(1);
  });

  it('shows the subscriptions open now', async () => {
    await app.run(CreateSessionDocument, { input: { sessionId: 'm-sub' } });
    await app.run(UpsertAgentDocument, { sessionId: 'm-sub', input: { agentId: 'a1', agentData: {} } });
    const open = async () => (await scrape(base)).value('hindsight_subscriptions');
    const before = await open();
    const client = wsClient(url);
    const sub = subscribe(client, MessageAppendedDocument, { sessionId: 'm-sub', agentId: 'a1' });
    await waitUntil(() => app.deps.changes.consumers === 1);
    expect(await open()).toBe(before + 1);
    sub.unsubscribe();
    await client.dispose();
    const deadline = Date.now() + 2000;
    while ((await open()) !== before && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await open()).toBe(before);
  });
});

const LAG = 'hindsight_search_follower_lag_seconds';
const GOAL_SPACE = 'experiences.primary_goal_description';

describe('the search follower lag on /metrics', () => {
  it('is each followed space’s: it grows while a write cannot be applied, is 0 once it is, and goes with following', async () => {
    const engine = await startFailPointEngine();
    const app = await createTestApp({ databaseUri: engine.uri });
    try {
      const base = (await app.server.listen(0, '127.0.0.1')).replace(/\/graphql$/, '');
      const index = app.deps.search.forDb(app.db);
      await waitUntil(() => index.followStatus(GOAL_SPACE).position !== null, 5000);
      const lags = async () => (await scrape(base)).value(LAG, { space: GOAL_SPACE });
      expect((await scrape(base)).labelSets(LAG)).toContainEqual({ space: GOAL_SPACE });
      expect(await lags()).toBe(0);

      // The follower reads written documents back with `find`: while that fails (retried every 500 ms), the write
      // waits, and its age is the lag.
      await engine.failNext(['find'], 6);
      await app.db.collection(EXPERIENCES_COLLECTION).insertOne({ experience_id: 'lag-1' });
      let highest = 0;
      const deadline = Date.now() + 10_000;
      for (let lag = await lags(); highest < 1 || lag > 0; lag = await lags()) {
        if (Date.now() > deadline) throw new Error(`lag ${lag} s, highest ${highest} s`);
        highest = Math.max(highest, lag);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(highest).toBeGreaterThanOrEqual(1);

      await index.stopFollowing();
      expect((await scrape(base)).labelSets(LAG)).not.toContainEqual({ space: GOAL_SPACE });
    } finally {
      await app.close();
      await engine.close();
    }
  }, 30_000);
});
