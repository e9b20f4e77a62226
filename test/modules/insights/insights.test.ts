import { createTestApp, type TestApp } from '../../support/app';
import {
  type RecordInsightInput,
  AgentInsightsDocument,
  AgentInsightsWithTasksDocument,
  DeleteInsightDocument,
  RecordInsightDocument,
  ValidateInsightDocument,
} from '../../support/generated/graphql';

/** Tasks as seed 002's TaskSimilarity model has them, inserted as they are (no goalPattern, no vectors). */
const seedTasks = ['690b0000000000000000000a', '690b0000000000000000000b', '690b0000000000000000000c'].map(
  (taskId, i) => ({
    taskId,
    originalQuery: `Create a shipment for facility HAN #${i}`,
    goal: 'Create a shipment for facility HAN',
    planId: '690c00000000000000000001',
    status: 'completed',
    successMetrics: { executionTime: 1200, stepsCompleted: 2, retries: 0, userInputsRequired: 0 },
    createdAt: new Date(Date.UTC(2025, 0, 10 + i)),
  }),
);
const [t1, t2, t3] = seedTasks.map((task) => task.taskId);

describe('agent insights', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
    await app.db.collection('tasks').insertMany(seedTasks.map((task) => ({ ...task })));
  });
  afterAll(() => app.close());

  const record = (input: RecordInsightInput) =>
    app.run(RecordInsightDocument, { input }).then((data) => data.recordInsight);

  it('dedupes an insight by agent, type and text, and raises its confidence with each new supporting task', async () => {
    const first = await record({
      agentType: 'PLANNER',
      type: 'PATTERNS',
      insight: 'Facility lookup before shipment creation works well',
      evidence: [{ taskId: t1, description: 'completed in 1200 ms' }],
    });
    expect(first).toMatchObject({
      agentType: 'PLANNER',
      type: 'PATTERNS',
      confidence: 0.5,
      evidenceCount: 1,
      lastValidated: null,
    });

    const again = await record({
      agentType: 'PLANNER',
      type: 'PATTERNS',
      insight: '  facility lookup before   shipment creation WORKS well ',
      evidence: [
        { taskId: t1, description: 'repeated' },
        { taskId: t2, description: 'completed too' },
      ],
    });
    // Only t2 is new: 1 − (1 − 0.5) × 0.75
    expect(again).toMatchObject({ id: first.id, insight: first.insight, confidence: 0.625, evidenceCount: 2 });
    expect(again.evidence.map((piece: any) => piece.taskId)).toEqual([t1, t2]);

    const repeated = await record({
      agentType: 'PLANNER',
      type: 'PATTERNS',
      insight: first.insight,
      evidence: [{ taskId: t2, description: 'x' }],
    });
    expect(repeated).toMatchObject({ confidence: 0.625, evidenceCount: 2 });

    const otherType = await record({ agentType: 'PLANNER', type: 'WARNINGS', insight: first.insight });
    expect(otherType.id).not.toBe(first.id);
  });

  it('validateInsight stamps lastValidated, raises confidence when valid and halves it when not', async () => {
    const insight = await record({
      agentType: 'EXECUTOR',
      type: 'OPTIMIZATIONS',
      insight: 'Use ObjectId for facilityId',
      confidence: 0.6,
    });
    const valid = (await app.run(ValidateInsightDocument, { id: insight.id, valid: true })).validateInsight;
    expect(valid.confidence).toBeCloseTo(1 - 0.4 * 0.75, 12);
    expect(Date.parse(valid.lastValidated!)).toBeGreaterThan(Date.now() - 60_000);
    const refuted = (await app.run(ValidateInsightDocument, { id: insight.id, valid: false })).validateInsight;
    expect(refuted.confidence).toBeCloseTo((1 - 0.4 * 0.75) / 2, 12);

    const missing = await app.execute(ValidateInsightDocument, { id: 'ins_nope', valid: true });
    expect(missing.errors?.[0].extensions?.code).toBe('NOT_FOUND');
  });

  it('agentInsights filters by agent, type and confidence, most confident first, within the limit', async () => {
    await record({
      agentType: 'THOUGHT',
      type: 'PATTERNS',
      insight: 'Similar queries used facility lookup first',
      confidence: 0.9,
    });
    await record({ agentType: 'THOUGHT', type: 'WARNINGS', insight: 'Short codes are ambiguous', confidence: 0.7 });
    await record({
      agentType: 'THOUGHT',
      type: 'PATTERNS',
      insight: 'Ask for the facility when missing',
      confidence: 0.3,
    });

    const all = (await app.run(AgentInsightsDocument, { agentType: 'THOUGHT' })).agentInsights;
    expect(all.insights.map((insight: any) => insight.confidence)).toEqual([0.9, 0.7, 0.3]);
    expect(all.count).toBe(3);
    const patterns = (await app.run(AgentInsightsDocument, { agentType: 'THOUGHT', insightType: 'PATTERNS' }))
      .agentInsights;
    expect(patterns.insights.map((insight: any) => insight.insight)).toEqual([
      'Similar queries used facility lookup first',
      'Ask for the facility when missing',
    ]);
    const confident = (await app.run(AgentInsightsDocument, { agentType: 'THOUGHT', minConfidence: 0.5, limit: 1 }))
      .agentInsights;
    expect(confident.insights.map((insight: any) => insight.confidence)).toEqual([0.9]);

    const bad = await app.execute(AgentInsightsDocument, { agentType: 'THOUGHT', minConfidence: 1.5 });
    expect(bad.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'minConfidence' });
  });

  it('resolves evidence to tasks with one batched read of the tasks collection', async () => {
    await record({
      agentType: 'EXECUTOR',
      type: 'WARNINGS',
      insight: 'Retry create_shipment once on timeout',
      evidence: [
        { taskId: t2, description: 'timed out once' },
        { taskId: t3, description: 'timed out once' },
        { taskId: 'unknown-task', description: 'not recorded' },
      ],
    });
    await record({
      agentType: 'EXECUTOR',
      type: 'WARNINGS',
      insight: 'Validate facility codes',
      evidence: [{ taskId: t1, description: 'bad code' }],
    });
    app.commands.reset();
    const { agentInsights } = await app.run(AgentInsightsWithTasksDocument, {
      agentType: 'EXECUTOR',
      insightType: 'WARNINGS',
    });
    expect(app.commands.count('find', 'tasks')).toBe(1);
    const evidence = agentInsights.insights.flatMap((insight: any) => insight.evidence);
    expect(evidence).toEqual(
      expect.arrayContaining([
        {
          taskId: t1,
          description: 'bad code',
          task: { taskId: t1, goal: 'Create a shipment for facility HAN', status: 'COMPLETED' },
        },
        {
          taskId: t3,
          description: 'timed out once',
          task: { taskId: t3, goal: 'Create a shipment for facility HAN', status: 'COMPLETED' },
        },
        { taskId: 'unknown-task', description: 'not recorded', task: null },
      ]),
    );
  });

  it('deleteInsight removes it and returns it; a second delete is NOT_FOUND', async () => {
    const insight = await record({ agentType: 'PLANNER', type: 'OPTIMIZATIONS', insight: 'Batch the lookups' });
    expect((await app.run(DeleteInsightDocument, { id: insight.id })).deleteInsight).toEqual({ id: insight.id });
    const again = await app.execute(DeleteInsightDocument, { id: insight.id });
    expect(again.errors?.[0].extensions?.code).toBe('NOT_FOUND');
  });

  it('stores the seed’s field names and lowercase enum values', async () => {
    const document = await app.db.collection('agent_insights').findOne({ agentType: 'thought', type: 'warnings' });
    expect(document).toMatchObject({
      agentType: 'thought',
      type: 'warnings',
      insight: 'Short codes are ambiguous',
      confidence: 0.7,
      evidence: [],
      createdAt: expect.any(Date),
      lastValidated: null,
    });
    const indexes = (await app.db.collection('agent_insights').indexes()).map((index) => index.key);
    expect(indexes).toEqual(expect.arrayContaining([{ agentType: 1, type: 1, confidence: -1 }]));
  });
});
