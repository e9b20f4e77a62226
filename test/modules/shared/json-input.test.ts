import { createTestApp, type TestApp } from '../../support/app';
import {
  AppendMessageDocument,
  CreateSessionDocument,
  RecordExperienceDocument,
  RecordToolExecutionDocument,
  SessionAnalyticsDocument,
  ToolPerformanceDocument,
  UpdateSessionMetadataDocument,
  UpsertAgentDocument,
} from '../../support/generated/graphql';

/** `{a: {a: … {a: leaf}}}` with `depth` objects. */
function nested(depth: number, leaf: unknown = 1): Record<string, unknown> {
  let value: any = { a: leaf };
  for (let level = 1; level < depth; level++) value = { a: value };
  return value;
}

const experience = (extra: Record<string, unknown> = {}): any => ({
  primaryGoalDescription: 'Ship the order',
  subTaskDescription: 'Create the shipment',
  initiatingAgentId: 'planner',
  finalOutcome: 'SUCCESS',
  // Copies of one experience with other JSON, each stored.
  dedupe: false,
  ...extra,
});

const EXPERIENCES = `query { experiences(first: 50) { totalCount edges { node { experienceId keyDecisionsMade feedbackSignals { data } } } } }`;
const SEARCH = `query { searchExperiences(query: "shipment", mode: KEYWORD, limit: 50) { experience { experienceId keyDecisionsMade } } }`;
const SESSIONS = `query { sessions(first: 50) { totalCount edges { node { sessionId metadata } } } }`;

describe('free-form JSON inputs and what is stored', () => {
  let app: TestApp;
  const snapshot = async () =>
    Promise.all(
      ['sessions', 'eat_agent_experiences', 'tool_performance', 'tasks'].map((name) =>
        app.db.collection(name).find({}).sort({ _id: 1 }).toArray(),
      ),
    );

  /** The operation fails with BAD_USER_INPUT naming `field`, and no collection changes. */
  async function rejects(document: any, variables: Record<string, unknown>, field: string): Promise<void> {
    const before = await snapshot();
    const result = await app.execute(document, variables);
    const error = result.errors?.[0];
    expect({ code: error?.extensions?.code, field: error?.extensions?.field }).toEqual({
      code: 'BAD_USER_INPUT',
      field,
    });
    expect(await snapshot()).toEqual(before);
  }

  beforeAll(async () => {
    app = await createTestApp();
    await app.run(CreateSessionDocument, { input: { sessionId: 's' } });
    await app.run(UpsertAgentDocument, { sessionId: 's', input: { agentId: 'agent', agentData: {} } });
  });
  afterAll(() => app.close());

  it('JSON inputs: depth ≤ 100, no $ / NUL / __proto__ keys, finite numbers; the error names the path', async () => {
    const proto = JSON.parse('{"__proto__": {"polluted": true}}');
    await rejects(
      RecordExperienceDocument,
      { input: experience({ keyDecisionsMade: nested(101) }) },
      `input.keyDecisionsMade${'.a'.repeat(100)}`,
    );
    await rejects(
      RecordExperienceDocument,
      { input: experience({ feedbackSignals: { extra: { list: [nested(100_000)] } } }) },
      `input.feedbackSignals.extra.list.0${'.a'.repeat(98)}`,
    );
    await rejects(CreateSessionDocument, { input: { metadata: { a: { b: { $x: 1 } } } } }, 'input.metadata.a.b.$x');
    await rejects(CreateSessionDocument, { input: { metadata: { a: { 'b\0': 1 } } } }, 'input.metadata.a.b\0');
    await rejects(CreateSessionDocument, { input: { metadata: { a: proto } } }, 'input.metadata.a.__proto__');
    await rejects(
      UpdateSessionMetadataDocument,
      { sessionId: 's', metadata: { t: [1, proto] } },
      'metadata.t.1.__proto__',
    );
    await rejects(
      UpsertAgentDocument,
      { sessionId: 's', input: { agentId: '__proto__', agentData: {} } },
      'input.agentId',
    );
    await rejects(
      UpsertAgentDocument,
      { sessionId: 's', input: { agentId: 'b', agentData: { x: [{ $set: 1 }] } } },
      'input.agentData.x.0.$set',
    );
    await rejects(
      AppendMessageDocument,
      {
        sessionId: 's',
        agentId: 'agent',
        input: { role: 'USER', content: [{ type: 'text', n: Infinity }] } /* JSON's 1e999 */,
      },
      'input.content.0.n',
    );
    await rejects(
      RecordExperienceDocument,
      { input: experience({ keyDecisionsMade: { step: { [`$where`]: 'x' } } }) },
      'input.keyDecisionsMade.step.$where',
    );
    expect(({} as any).polluted).toBeUndefined();
    // 100 levels are accepted.
    await app.run(RecordExperienceDocument, { input: experience({ keyDecisionsMade: nested(100) }) });
  });

  it('measured figures have ranges: 0 ≤ latencyMs, durationMs ≤ 1e9; token counts non-negative integers', async () => {
    const append = (eventLoopMetrics: Record<string, unknown>): any => ({
      sessionId: 's',
      agentId: 'agent',
      input: { role: 'ASSISTANT', content: 'ok', eventLoopMetrics },
    });
    await rejects(AppendMessageDocument, append({ latencyMs: 1.79e308 }), 'input.eventLoopMetrics.latencyMs');
    await rejects(AppendMessageDocument, append({ latencyMs: -1 }), 'input.eventLoopMetrics.latencyMs');
    await rejects(AppendMessageDocument, append({ inputTokens: -3 }), 'input.eventLoopMetrics.inputTokens');
    await rejects(
      RecordToolExecutionDocument,
      { input: { toolName: 't', success: true, durationMs: 1.79e308 } },
      'input.0.durationMs',
    );
    await app.run(AppendMessageDocument, append({ latencyMs: 1e9, inputTokens: 2 }));
  });

  it('reads answer for the other documents when a stored one is hostile (written through the driver)', async () => {
    // Sub-tasks of their own: a search shows one experience per memory, and copies of one memory are one.
    await app.run(RecordExperienceDocument, {
      input: experience({ experienceId: 'good', subTaskDescription: 'Create the good shipment' }),
    });
    const good = await app.db.collection('eat_agent_experiences').findOne({ experience_id: 'good' });
    const { _id, ...fields } = good!;
    // 170 levels inside a document (the engine, as mongod, stores up to 180), a non-finite and a huge number.
    await app.db.collection('eat_agent_experiences').insertOne({
      ...fields,
      experience_id: 'hostile',
      sub_task_description: 'Create the hostile shipment',
      key_decisions_made: nested(170),
      feedback_signals: { extra: { inf: Infinity, nan: NaN, huge: 1.79e308 } },
    });
    await app.db.collection('sessions').insertOne({
      _id: 'hostile' as any,
      session_type: 'default',
      metadata: nested(170, NaN),
      agents: {
        a: {
          agent_data: { agent_id: 'a' },
          messages: [1.79e308, 1.79e308, Infinity, NaN].map((latencyMs, message_id) => ({
            message: { role: 'assistant', content: 'x' },
            message_id,
            event_loop_metrics: {
              accumulated_metrics: { latencyMs },
              accumulated_usage: { inputTokens: 1.79e308, outputTokens: 1, totalTokens: Infinity },
            },
          })),
        },
      },
      created_at: new Date(),
      updated_at: new Date(),
    });
    await app.db.collection('tool_performance').insertOne({
      toolName: 'hostile',
      totalExecutions: 2,
      successCount: 2,
      failureCount: 0,
      timedExecutions: 2,
      totalDuration: Infinity,
      slowCount: 2,
      avgDuration: Infinity,
      successRate: 1,
      contexts: [],
      commonErrors: [],
      optimalContext: [],
    });

    const listing = await app.execute(EXPERIENCES);
    expect(listing.errors).toBeUndefined();
    const ids = listing.data!.experiences.edges.map((edge: any) => edge.node.experienceId);
    expect(ids).toEqual(expect.arrayContaining(['good', 'hostile']));
    const search = await app.execute(SEARCH);
    expect(search.errors).toBeUndefined();
    expect(search.data!.searchExperiences.map((hit: any) => hit.experience.experienceId)).toContain('good');
    const sessions = await app.execute(SESSIONS);
    expect(sessions.errors).toBeUndefined();
    expect(sessions.data!.sessions.edges.map((edge: any) => edge.node.sessionId)).toEqual(['hostile', 's']);

    const analytics = await app.execute(SessionAnalyticsDocument, { by: 'SESSION_TYPE' as any });
    expect(analytics.errors).toBeUndefined();
    expect(analytics.data!.sessionAnalytics.averageLatencyMs).toBe(Number.MAX_VALUE);
    expect(analytics.data!.sessionAnalytics.tokens.total).toBe(Number.MAX_VALUE);
    const tool = await app.execute(ToolPerformanceDocument, { toolName: 'hostile' });
    expect(tool.errors).toBeUndefined();
    expect(tool.data!.toolPerformance.avgDuration).toBe(Number.MAX_VALUE);
  });
});
