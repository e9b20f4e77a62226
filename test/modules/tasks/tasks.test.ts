import { createTestApp, type TestApp } from '../../support/app';
import {
  type RecordTaskInput,
  HistoryTaskDocument,
  HistoryTasksDocument,
  LearnFromTaskDocument,
  RecordTaskDocument,
  TasksWithPlansDocument,
} from '../../support/generated/graphql';

function input(i: number, overrides: Partial<RecordTaskInput> = {}): RecordTaskInput {
  return {
    taskId: `task-${String(i).padStart(3, '0')}`,
    originalQuery: `Create a shipment for facility F${i}`,
    goal: `Create a shipment for facility F${i}`,
    planId: `plan-${i}`,
    steps: [{ action: 'list_facilities' }, { action: 'create_shipment' }],
    status: i % 3 === 0 ? 'FAILED' : 'COMPLETED',
    successMetrics: { executionTime: 1000 + i, stepsCompleted: 2, retries: 1, userInputsRequired: 0 },
    agentType: 'EXECUTOR',
    context: 'facility_management',
    createdAt: new Date(Date.UTC(2025, 0, 1, 0, i)).toISOString(),
    ...overrides,
  };
}

describe('tasks: record, read, list', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
    for (let i = 1; i <= 12; i++) await app.run(RecordTaskDocument, { input: input(i) });
  });
  afterAll(() => app.close());

  it("stores the seed's fields, the goal template, the steps and both vectors with their embedder", async () => {
    const document = await app.db.collection('tasks').findOne({ taskId: 'task-001' });
    expect(document).toMatchObject({
      taskId: 'task-001',
      originalQuery: 'Create a shipment for facility F1',
      goal: 'Create a shipment for facility F1',
      planId: 'plan-1',
      status: 'completed',
      successMetrics: { executionTime: 1001, stepsCompleted: 2, retries: 1, userInputsRequired: 0 },
      createdAt: new Date(Date.UTC(2025, 0, 1, 0, 1)),
      goalPattern: 'create_*_for_facility_*',
      steps: [
        { id: 'step-1', action: 'list_facilities', order: 1 },
        { id: 'step-2', action: 'create_shipment', order: 2 },
      ],
      agentType: 'executor',
      embedding_model: { provider: 'hash', model: 'feature-hash-v1-384', dimensions: 384 },
    });
    expect(document!.embeddings.originalQuery_embedding).toHaveLength(384);
    expect(document!.embeddings.goal_embedding).toHaveLength(384);
    const { task } = await app.run(HistoryTaskDocument, { id: 'task-001' });
    expect(task).toMatchObject({
      taskId: 'task-001',
      status: 'COMPLETED',
      executionTime: 1001,
      patternId: null,
      plan: null,
      learnedAt: null,
    });
  });

  it('generates an ObjectId-like taskId, sorts steps by order and defaults metrics to zero', async () => {
    const { recordTask } = await app.run(RecordTaskDocument, {
      input: {
        originalQuery: 'List orders in Berlin',
        goal: 'List orders in Berlin',
        status: 'PAUSED',
        steps: [
          { id: 'b', action: 'format', order: 2 },
          { id: 'a', action: 'search_orders', order: 1 },
        ],
      },
    });
    expect(recordTask.taskId).toMatch(/^[0-9a-f]{24}$/);
    expect(recordTask.steps).toEqual([
      { stepId: 'a', action: 'search_orders', order: 1 },
      { stepId: 'b', action: 'format', order: 2 },
    ]);
    expect(recordTask.successMetrics).toEqual({
      executionTime: 0,
      stepsCompleted: 0,
      retries: 0,
      userInputsRequired: 0,
    });
    expect(recordTask.goalPattern).toBe('list_orders_in_*');
  });

  it('refuses a taskId that exists (CONFLICT) and invalid input (BAD_USER_INPUT naming the field)', async () => {
    const duplicate = await app.execute(RecordTaskDocument, { input: input(1) });
    expect(duplicate.errors?.[0].extensions).toMatchObject({ code: 'CONFLICT', taskId: 'task-001' });
    const blank = await app.execute(RecordTaskDocument, { input: input(99, { goal: '   ' }) });
    expect(blank.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.goal' });
    const orders = await app.execute(RecordTaskDocument, {
      input: input(99, {
        steps: [
          { action: 'a', order: 1 },
          { action: 'b', order: 1 },
        ],
      }),
    });
    expect(orders.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'input.steps' });
    expect(await app.db.collection('tasks').countDocuments({ taskId: 'task-099' })).toBe(0);
  });

  it('lists tasks newest first, page by page, with a filter', async () => {
    const first = (await app.run(HistoryTasksDocument, { filter: { status: 'COMPLETED' }, first: 5 })).tasks;
    expect(first.totalCount).toBe(8);
    expect(first.edges.map((edge: any) => edge.node.taskId)).toEqual([
      'task-011',
      'task-010',
      'task-008',
      'task-007',
      'task-005',
    ]);
    const second = (
      await app.run(HistoryTasksDocument, {
        filter: { status: 'COMPLETED' },
        first: 5,
        after: first.pageInfo.endCursor,
      })
    ).tasks;
    expect(second.edges.map((edge: any) => edge.node.taskId)).toEqual(['task-004', 'task-002', 'task-001']);
    expect(second.pageInfo.hasNextPage).toBe(false);
    const window = (
      await app.run(HistoryTasksDocument, {
        filter: {
          since: '2025-01-01T00:03:00Z',
          until: '2025-01-01T00:05:00Z',
          goalPattern: 'create_*_for_facility_*',
        },
      })
    ).tasks;
    expect(window.edges.map((edge: any) => edge.node.taskId)).toEqual(['task-004', 'task-003']);
  });

  it('resolves Task.plan for a page of tasks with one batched read of plan_patterns', async () => {
    for (const i of [1, 2, 4]) {
      await app.run(LearnFromTaskDocument, {
        input: {
          taskId: `task-00${i}`,
          planId: `plan-${i}`,
          status: 'COMPLETED',
          metrics: { executionTime: 1000, stepsCompleted: 2, retries: 0, userInputsRequired: 0 },
        },
      });
    }
    app.commands.reset();
    const { tasks } = await app.run(TasksWithPlansDocument, { first: 20 });
    expect(app.commands.count('find', 'plan_patterns')).toBe(1);
    const learned = tasks.edges.filter((edge: any) => edge.node.plan).map((edge: any) => edge.node);
    expect(learned.map((task: any) => task.taskId).sort()).toEqual(['task-001', 'task-002', 'task-004']);
    expect(new Set(learned.map((task: any) => task.plan.usageCount))).toEqual(new Set([3]));
  });

  it("serves a task inserted as the seed's TaskSimilarity example, deriving its goal template", async () => {
    await app.db.collection('tasks').insertOne({
      taskId: '690b00000000000000000001',
      originalQuery: 'Create a shipment for facility HAN',
      goal: 'Create a shipment for facility HAN',
      planId: '690c00000000000000000001',
      status: 'completed',
      successMetrics: { executionTime: 1200, stepsCompleted: 2, retries: 0, userInputsRequired: 0 },
      createdAt: new Date('2025-02-01T00:00:00Z'),
    });
    const { task } = await app.run(HistoryTaskDocument, { id: '690b00000000000000000001' });
    expect(task).toMatchObject({
      goalPattern: 'create_*_for_facility_*',
      steps: [],
      status: 'COMPLETED',
      agentType: null,
      executionTime: 1200,
    });
    expect((await app.run(HistoryTaskDocument, { id: 'nope' })).task).toBeNull();
  });

  it('creates the indexes seed 002 lists (no text index: keyword search is BM25 in the search subsystem)', async () => {
    const keys = (await app.db.collection('tasks').indexes()).map((index) => index.key);
    expect(keys).toEqual(
      expect.arrayContaining([{ taskId: 1 }, { status: 1, createdAt: -1 }, { createdAt: -1, taskId: -1 }]),
    );
    expect(keys.some((key) => Object.values(key).includes('text'))).toBe(false);
    const plans = (await app.db.collection('plan_patterns').indexes()).map((index) => index.key);
    expect(plans).toEqual(
      expect.arrayContaining([{ goalPattern: 1, usageCount: -1 }, { successRate: -1 }, { usageCount: -1 }]),
    );
  });
});
