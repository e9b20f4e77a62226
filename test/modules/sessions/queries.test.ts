import { call, type OperationCall, createTestApp, type TestApp } from '../../support/app';
import { sessionAlice } from '../../support/fixtures/session-alice';
import { SessionAnalyticsDocument, SessionsDocument } from '../../support/generated/graphql';

const d = (text: string) => new Date(text);

/** Seed-shaped sessions besides the seed's own example; the analytics expectations below are computed by hand from these four. */
const bob = {
  _id: 'bob-translation',
  session_id: 'bob-translation',
  session_type: 'translation',
  created_at: d('2024-01-10T08:00:00Z'),
  updated_at: d('2024-01-25T08:00:00Z'),
  metadata: { department: 'support', priority: 'low' },
  feedbacks: [{ rating: 'up', comment: '', created_at: d('2024-01-25T08:00:00Z') }],
  agents: {
    translator: {
      agent_data: {
        agent_id: 'translator',
        created_at: '2024-01-10T08:00:00.000Z',
        updated_at: '2024-01-10T08:00:00.000Z',
      },
      created_at: d('2024-01-10T08:00:00Z'),
      updated_at: d('2024-01-25T08:00:00Z'),
      messages: [
        {
          message_id: 1,
          role: 'user',
          content: 'hola',
          created_at: d('2024-01-10T08:00:00Z'),
          updated_at: d('2024-01-10T08:00:00Z'),
        },
        {
          message_id: 2,
          role: 'assistant',
          content: [{ type: 'text', text: 'hello' }],
          created_at: d('2024-01-10T08:00:01Z'),
          updated_at: d('2024-01-10T08:00:01Z'),
          event_loop_metrics: {
            accumulated_metrics: { latencyMs: 100 },
            accumulated_usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
          },
        },
        {
          message_id: 3,
          role: 'user',
          content: 'gracias',
          created_at: d('2024-01-25T08:00:00Z'),
          updated_at: d('2024-01-25T08:00:00Z'),
        },
      ],
    },
  },
};
const carol = {
  _id: 'carol-support',
  session_id: 'carol-support',
  session_type: 'customer_support',
  created_at: d('2024-01-20T08:00:00Z'),
  updated_at: d('2024-01-21T08:00:00Z'),
  metadata: { department: 'sales', priority: 'low', custom_data: { tier: 'free' } },
  feedbacks: [],
  agents: {},
};
const dave = {
  _id: 'dave-chat',
  session_id: 'dave-chat',
  session_type: 'chat',
  created_at: d('2024-02-01T08:00:00Z'),
  updated_at: d('2024-02-02T08:00:00Z'),
  metadata: {},
  feedbacks: [
    { rating: null, comment: 'meh', created_at: d('2024-02-02T08:00:00Z') },
    { rating: 'down', comment: 'slow', created_at: d('2024-02-02T08:00:00Z') },
  ],
  agents: {
    helper: {
      agent_data: { agent_id: 'helper' },
      created_at: d('2024-02-01T08:00:00Z'),
      updated_at: d('2024-02-02T08:00:00Z'),
      messages: [
        {
          message_id: 1,
          role: 'user',
          content: 'hi',
          created_at: d('2024-02-01T08:00:00Z'),
          updated_at: d('2024-02-01T08:00:00Z'),
        },
      ],
    },
  },
};
const ALICE = sessionAlice._id;

describe('sessions: queries and analytics', () => {
  let app: TestApp;
  const sessionIds = async (variables: Record<string, unknown>) =>
    (await app.run(SessionsDocument, variables)).sessions.edges.map((edge: any) => edge.node.sessionId);

  beforeAll(async () => {
    app = await createTestApp();
    await app.db.collection('sessions').insertMany([structuredClone(sessionAlice), bob, carol, dave] as any[]);
  });
  afterAll(() => app.close());

  it('lists sessions newest update first by default, and in any order asked', async () => {
    expect(await sessionIds({})).toEqual(['dave-chat', 'bob-translation', ALICE, 'carol-support']);
    expect(await sessionIds({ orderBy: { field: 'CREATED_AT', direction: 'ASC' } })).toEqual([
      'bob-translation',
      ALICE,
      'carol-support',
      'dave-chat',
    ]);
    expect(await sessionIds({ orderBy: { field: 'CREATED_AT', direction: 'DESC' } })).toEqual([
      'dave-chat',
      'carol-support',
      ALICE,
      'bob-translation',
    ]);
    expect(await sessionIds({ orderBy: { field: 'UPDATED_AT', direction: 'ASC' } })).toEqual([
      'carol-support',
      ALICE,
      'bob-translation',
      'dave-chat',
    ]);
  });

  it('pages sessions with first/after, totalCount counting the whole filtered list', async () => {
    const one = (await app.run(SessionsDocument, { first: 3, orderBy: { field: 'CREATED_AT', direction: 'ASC' } }))
      .sessions;
    expect(one.edges.map((edge: any) => edge.node.sessionId)).toEqual(['bob-translation', ALICE, 'carol-support']);
    expect(one.totalCount).toBe(4);
    expect(one.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    const two = (
      await app.run(SessionsDocument, {
        first: 3,
        after: one.pageInfo.endCursor,
        orderBy: { field: 'CREATED_AT', direction: 'ASC' },
      })
    ).sessions;
    expect(two.edges.map((edge: any) => edge.node.sessionId)).toEqual(['dave-chat']);
    expect(two.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
  });

  it('filters by session type, metadata paths, time ranges and feedback', async () => {
    const sorted = async (filter: Record<string, unknown>) => (await sessionIds({ filter })).sort();
    expect(await sorted({ sessionType: 'customer_support' })).toEqual(['carol-support', ALICE].sort());
    expect(await sorted({ metadata: [{ path: 'department', value: 'sales' }] })).toEqual(
      ['carol-support', ALICE].sort(),
    );
    expect(
      await sorted({
        metadata: [
          { path: 'department', value: 'sales' },
          { path: 'priority', value: 'low' },
        ],
      }),
    ).toEqual(['carol-support']);
    expect(await sorted({ metadata: [{ path: 'custom_data.tier', value: 'premium' }] })).toEqual([ALICE]);
    expect(await sorted({ metadata: [{ path: 'tags', value: ['new_customer', 'enterprise'] }] })).toEqual([ALICE]);
    expect(await sorted({ metadata: [{ path: 'department', value: null }] })).toEqual(['dave-chat']);
    // after is inclusive, before exclusive.
    expect(
      await sorted({ createdAfter: '2024-01-15T09:00:00.000Z', createdBefore: '2024-02-01T08:00:00.000Z' }),
    ).toEqual(['carol-support', ALICE].sort());
    expect(await sorted({ updatedAfter: '2024-01-22T00:00:00.000Z' })).toEqual(
      ['bob-translation', 'dave-chat', ALICE].sort(),
    );
    expect(await sorted({ updatedBefore: '2024-01-22T00:00:00.000Z' })).toEqual(['carol-support']);
    expect(await sorted({ feedback: 'UP' })).toEqual(['bob-translation', ALICE].sort());
    expect(await sorted({ feedback: 'DOWN' })).toEqual(['dave-chat', ALICE].sort());
    expect(await sorted({ feedback: 'ANY' })).toEqual(['bob-translation', 'dave-chat', ALICE].sort());
    expect(await sorted({ feedback: 'NONE' })).toEqual(['carol-support']);
    expect(await sorted({ sessionType: 'customer_support', feedback: 'NONE' })).toEqual(['carol-support']);
    const counted = await app.run(SessionsDocument, { filter: { feedback: 'ANY' }, first: 1 });
    expect(counted.sessions.totalCount).toBe(3);
  });

  it('keeps keyset pages exact when many sessions share the same updated_at', async () => {
    const at = d('2023-06-01T00:00:00Z');
    await app.db.collection('sessions').insertMany(
      ['t5', 't3', 't1', 't4', 't2'].map((id) => ({
        _id: id,
        session_id: id,
        session_type: 'tie',
        created_at: at,
        updated_at: at,
        metadata: {},
        feedbacks: [],
        agents: {},
      })) as any[],
    );
    const seen: string[] = [];
    let after: string | undefined;
    for (let round = 0; round < 5; round++) {
      const page = (await app.run(SessionsDocument, { filter: { sessionType: 'tie' }, first: 2, after })).sessions;
      seen.push(...page.edges.map((edge: any) => edge.node.sessionId));
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor ?? undefined;
    }
    expect(seen).toEqual(['t5', 't4', 't3', 't2', 't1']);
    await app.db.collection('sessions').deleteMany({ session_type: 'tie' });
  });

  it('computes analytics in the database, matching hand-computed totals of the fixtures', async () => {
    const data = await app.run(SessionAnalyticsDocument, { by: 'SESSION_TYPE' });
    expect(data.sessionAnalytics).toEqual({
      sessionCount: 4,
      messageCount: 6 + 3 + 0 + 1,
      averageMessagesPerSession: 2.5,
      feedback: { up: 2, down: 2, neutral: 2 },
      tokens: { input: 28 + 89 + 12 + 10, output: 24 + 18 + 8 + 5, total: 52 + 107 + 20 + 15 },
      averageLatencyMs: (245 + 312 + 123 + 100) / 4,
      countsBy: [
        { value: 'customer_support', count: 2 },
        { value: 'chat', count: 1 },
        { value: 'translation', count: 1 },
      ],
    });
  });

  it('applies the session filter to analytics and counts by a metadata path', async () => {
    const support = await app.run(SessionAnalyticsDocument, {
      filter: { sessionType: 'customer_support' },
      by: 'METADATA',
      metadataPath: 'priority',
    });
    expect(support.sessionAnalytics).toEqual({
      sessionCount: 2,
      messageCount: 6,
      averageMessagesPerSession: 3,
      feedback: { up: 1, down: 1, neutral: 1 },
      tokens: { input: 129, output: 50, total: 179 },
      averageLatencyMs: (245 + 312 + 123) / 3,
      countsBy: [
        { value: 'high', count: 1 },
        { value: 'low', count: 1 },
      ],
    });
    const departments = await app.run(SessionAnalyticsDocument, { by: 'METADATA', metadataPath: 'department' });
    expect(departments.sessionAnalytics.countsBy).toEqual([
      { value: 'sales', count: 2 },
      { value: null, count: 1 },
      { value: 'support', count: 1 },
    ]);
    const tiers = await app.run(SessionAnalyticsDocument, {
      filter: { feedback: 'NONE' },
      by: 'METADATA',
      metadataPath: 'custom_data.tier',
    });
    expect(tiers.sessionAnalytics.countsBy).toEqual([{ value: 'free', count: 1 }]);
  });

  it('gives zero analytics and a null latency when nothing matches', async () => {
    const data = await app.run(SessionAnalyticsDocument, { filter: { sessionType: 'nothing' }, by: 'SESSION_TYPE' });
    expect(data.sessionAnalytics).toEqual({
      sessionCount: 0,
      messageCount: 0,
      averageMessagesPerSession: 0,
      feedback: { up: 0, down: 0, neutral: 0 },
      tokens: { input: 0, output: 0, total: 0 },
      averageLatencyMs: null,
      countsBy: [],
    });
  });

  it('computes analytics with aggregate commands only, never reading whole documents into the server', async () => {
    app.commands.reset();
    await app.run(SessionAnalyticsDocument, { by: 'SESSION_TYPE' });
    expect(app.commands.count('find')).toBe(0);
    expect(app.commands.count('aggregate', 'sessions')).toBe(2);
  });

  it('rejects bad metadata paths and countsBy arguments with BAD_USER_INPUT naming the field', async () => {
    const cases: Array<[OperationCall, string]> = [
      [call(SessionsDocument, { filter: { metadata: [{ path: '$where', value: 1 }] } }), 'filter.metadata.0.path'],
      [call(SessionsDocument, { filter: { metadata: [{ path: 'a..b', value: 1 }] } }), 'filter.metadata.0.path'],
      [
        call(SessionsDocument, { filter: { metadata: [{ path: 'a', value: { $ne: 1 } }] } }),
        'filter.metadata.0.value.$ne',
      ],
      [call(SessionsDocument, { first: 501 }), 'first'],
      [call(SessionsDocument, { after: 'garbage' }), 'after'],
      [call(SessionAnalyticsDocument, { by: 'METADATA' }), 'metadataPath'],
      [call(SessionAnalyticsDocument, { by: 'SESSION_TYPE', metadataPath: 'department' }), 'metadataPath'],
      [call(SessionAnalyticsDocument, { by: 'METADATA', metadataPath: 'x.$y' }), 'metadataPath'],
    ];
    for (const [{ document, variables }, field] of cases) {
      const result = await app.execute(document, variables);
      expect(result.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field });
    }
  });
});
