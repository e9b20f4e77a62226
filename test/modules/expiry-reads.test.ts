import { parse } from 'graphql';
import { SESSIONS_COLLECTION } from '../../src/modules/sessions/session.document';
import { TASKS_COLLECTION } from '../../src/modules/tasks/task.document';
import { createTestApp, type TestApp } from '../support/app';
import { subscribe, waitUntil, wsClient } from '../support/subscriptions';
import { startTtlEngine, type TtlEngine } from '../support/ttl-engine';

/**
 * A task or session whose expiresAt has passed is gone for every read before the TTL monitor deletes it. The engine's
 * TTL pass runs once an hour here, so the expired records stay stored throughout (the tests check that they do).
 */
const TTL_PASS_MS = 3_600_000;
const USER = 'user-expiry';
const GOAL = 'Refund invoice INV-7';

const RECORD_TASK = `mutation($input: RecordTaskInput!) { recordTask(input: $input) { id taskId expiresAt } }`;
const RECORD_ACTION = `mutation($taskId: ID!, $input: RecordActionInput!) {
  recordAction(taskId: $taskId, input: $input) { action { iteration } }
}`;
const LEARN = `mutation($input: LearnFromTaskInput!) { learnFromTask(input: $input) { patternId } }`;
const CREATE_SESSION = `mutation($input: CreateSessionInput!) { createSession(input: $input) { id sessionId expiresAt } }`;
const UPSERT_AGENT = `mutation($sessionId: ID!, $input: UpsertAgentInput!) {
  upsertAgent(sessionId: $sessionId, input: $input) { agentId }
}`;
const APPEND = `mutation($sessionId: ID!, $agentId: String!, $inputs: [AppendMessageInput!]!) {
  appendMessages(sessionId: $sessionId, agentId: $agentId, inputs: $inputs) { messageId }
}`;
const SIMILAR = `query($query: String, $goal: String, $userId: String, $status: TaskStatus, $limit: Int!) {
  similarTasks(query: $query, goal: $goal, userId: $userId, status: $status, limit: $limit, minSimilarity: 0) {
    tasks { taskId }
  }
}`;
const READS = `query($userId: String!, $goal: String!, $keep: ID!, $gone: ID!, $keepSession: ID!, $nodeIds: [ID!]!) {
  tasks(first: 50, filter: { userId: $userId }) { totalCount edges { node { taskId } } }
  unfiltered: tasks(first: 50) { totalCount edges { node { taskId } } }
  keep: task(id: $keep) { taskId }
  gone: task(id: $gone) { taskId }
  successfulPlans(goal: $goal, userId: $userId, minSuccessRate: 0) { plans { usageCount } }
  toolPerformance(toolName: "lookup_customer", userId: $userId) { totalExecutions }
  stuckTasks(minIterations: 2) { task { taskId } }
  sessions(first: 50, filter: { userId: $userId }) { totalCount edges { node { sessionId } } }
  keepSession: session(id: $keepSession) { sessionId }
  sessionAnalytics(filter: { userId: $userId }) { sessionCount messageCount }
  nodes(ids: $nodeIds) { id }
}`;

const taskIds = (connection: { edges: Array<{ node: { taskId: string } }> }) =>
  connection.edges.map((edge) => edge.node.taskId).sort();

describe('an expired task or session is gone for every read before the TTL monitor deletes it', () => {
  let engine: TtlEngine;
  let app: TestApp;
  let url: string;
  const ids: Record<string, string> = {};
  let expiresAt = 0;

  beforeAll(async () => {
    engine = await startTtlEngine(TTL_PASS_MS);
    app = await createTestApp({ databaseUri: engine.uri });
    url = await app.server.listen(0, '127.0.0.1');
  });
  afterAll(async () => {
    await app.close();
    await engine.close();
  });

  /** Records a task and a session, each once without expiry (`keep`) and once with ttlSeconds: 1 (`gone`). */
  async function recordBoth(): Promise<void> {
    for (const [name, expiry] of [
      ['keep', {}],
      ['gone', { ttlSeconds: 1 }],
    ] as const) {
      const taskId = `t-${name}`;
      const { recordTask } = await app.run(RECORD_TASK, {
        input: {
          taskId,
          originalQuery: GOAL,
          goal: GOAL,
          steps: [{ action: 'find_invoice' }, { action: 'refund_invoice' }],
          status: 'PAUSED',
          context: 'billing',
          userId: USER,
          ...expiry,
        },
      });
      ids[`task-${name}`] = recordTask.id;
      if (recordTask.expiresAt) expiresAt = Math.max(expiresAt, Date.parse(recordTask.expiresAt));
      for (let i = 0; i < 2; i++) {
        await app.run(RECORD_ACTION, {
          taskId,
          input: {
            mode: 'FAST',
            progress: 'STUCK',
            toolCalls: [{ name: 'lookup_customer', outcome: 'SUCCESS', result: 'customer 7', executionTimeMs: 40 }],
          },
        });
      }
      await app.run(LEARN, {
        input: {
          taskId,
          status: 'COMPLETED',
          metrics: { executionTime: 100, stepsCompleted: 1, retries: 0, userInputsRequired: 0 },
        },
      });
      const sessionId = `s-${name}`;
      const { createSession } = await app.run(CREATE_SESSION, { input: { sessionId, userId: USER, ...expiry } });
      ids[`session-${name}`] = createSession.id;
      if (createSession.expiresAt) expiresAt = Math.max(expiresAt, Date.parse(createSession.expiresAt));
      await app.run(UPSERT_AGENT, { sessionId, input: { agentId: 'a1', agentData: {} } });
      await app.run(APPEND, { sessionId, agentId: 'a1', inputs: [{ role: 'USER', content: `hello from ${name}` }] });
    }
  }

  /** What each read answers now. */
  async function reads() {
    const data = await app.run(READS, {
      userId: USER,
      goal: GOAL,
      keep: 't-keep',
      gone: 't-gone',
      keepSession: 's-keep',
      nodeIds: [ids['task-keep'], ids['task-gone'], ids['session-keep'], ids['session-gone']],
    });
    const similar = async (args: Record<string, unknown>) =>
      (await app.run(SIMILAR, { limit: 10, ...args })).similarTasks.tasks.map((hit: { taskId: string }) => hit.taskId);
    return {
      tasks: { ids: taskIds(data.tasks), totalCount: data.tasks.totalCount },
      unfilteredTasks: taskIds(data.unfiltered),
      task: [data.keep?.taskId, data.gone?.taskId],
      similarTasks: {
        query: (await similar({ query: GOAL })).sort(),
        goal: (await similar({ goal: GOAL })).sort(),
        user: (await similar({ query: GOAL, userId: USER })).sort(),
        status: (await similar({ goal: GOAL, status: 'COMPLETED' })).sort(),
      },
      successfulPlans: data.successfulPlans.plans.map((plan: { usageCount: number }) => plan.usageCount),
      toolPerformance: data.toolPerformance.totalExecutions,
      stuckTasks: data.stuckTasks.map((stuck: { task: { taskId: string } }) => stuck.task.taskId).sort(),
      sessions: {
        ids: data.sessions.edges.map((edge: { node: { sessionId: string } }) => edge.node.sessionId).sort(),
        totalCount: data.sessions.totalCount,
      },
      session: data.keepSession.sessionId,
      sessionAnalytics: data.sessionAnalytics,
      nodes: data.nodes.map((node: { id: string } | null) => node?.id ?? null),
    };
  }

  it('every read of tasks and sessions leaves out the expired ones and keeps the others', async () => {
    await recordBoth();
    const both = ['t-gone', 't-keep'];
    expect(await reads()).toEqual({
      tasks: { ids: both, totalCount: 2 },
      unfilteredTasks: both,
      task: ['t-keep', 't-gone'],
      similarTasks: { query: both, goal: both, user: both, status: both },
      successfulPlans: [2],
      toolPerformance: 4,
      stuckTasks: both,
      sessions: { ids: ['s-gone', 's-keep'], totalCount: 2 },
      session: 's-keep',
      sessionAnalytics: { sessionCount: 2, messageCount: 2 },
      nodes: [ids['task-keep'], ids['task-gone'], ids['session-keep'], ids['session-gone']],
    });

    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - Date.now() + 50)));
    const keep = ['t-keep'];
    expect(await reads()).toEqual({
      tasks: { ids: keep, totalCount: 1 },
      unfilteredTasks: keep,
      task: ['t-keep', undefined],
      similarTasks: { query: keep, goal: keep, user: keep, status: keep },
      successfulPlans: [1],
      toolPerformance: 2,
      stuckTasks: keep,
      sessions: { ids: ['s-keep'], totalCount: 1 },
      session: 's-keep',
      sessionAnalytics: { sessionCount: 1, messageCount: 1 },
      nodes: [ids['task-keep'], null, ids['session-keep'], null],
    });
    // Still stored: the reads above left them out themselves.
    expect(await app.db.collection(TASKS_COLLECTION).countDocuments({ taskId: 't-gone' })).toBe(1);
    expect(await app.db.collection(SESSIONS_COLLECTION).countDocuments({ _id: 's-gone' as never })).toBe(1);
  });

  it('session(id), the Strands store writes and recordAction answer NOT_FOUND for an expired record', async () => {
    const code = async (query: string, variables: Record<string, unknown>) =>
      (await app.execute(query, variables)).errors?.[0]?.extensions?.code;
    expect(await code(`query($id: ID!) { session(id: $id) { sessionId } }`, { id: 's-gone' })).toBe('NOT_FOUND');
    expect(
      await code(APPEND, { sessionId: 's-gone', agentId: 'a1', inputs: [{ role: 'USER', content: 'still there?' }] }),
    ).toBe('NOT_FOUND');
    expect(await code(UPSERT_AGENT, { sessionId: 's-gone', input: { agentId: 'a2', agentData: {} } })).toBe(
      'NOT_FOUND',
    );
    expect(await code(`mutation { deleteSession(id: "s-gone") }`, {})).toBe('NOT_FOUND');
    expect(await code(RECORD_ACTION, { taskId: 't-gone', input: { mode: 'FAST' } })).toBe('NOT_FOUND');
    // The same writes on the lasting ones succeed.
    expect(await code(APPEND, { sessionId: 's-keep', agentId: 'a1', inputs: [{ role: 'USER', content: 'hi' }] })).toBe(
      undefined,
    );
    expect(await code(RECORD_ACTION, { taskId: 't-keep', input: { mode: 'FAST' } })).toBe(undefined);
  });

  it('subscriptions deliver no write of an expired task or session', async () => {
    const client = wsClient(url);
    const taskUpdated = (id: string) =>
      subscribe(client, parse(`subscription($id: ID!) { taskUpdated(id: $id) { taskId } }`), { id });
    const sessionUpdated = (id: string) =>
      subscribe(client, parse(`subscription($id: ID!) { sessionUpdated(id: $id) { sessionId } }`), { id });
    const subscriptions = [
      taskUpdated('t-gone'),
      sessionUpdated('s-gone'),
      taskUpdated('t-keep'),
      sessionUpdated('s-keep'),
    ];
    await waitUntil(() => app.server.subscriptions.subscribers === subscriptions.length);
    // Another tool writes to all four documents, the expired ones first.
    for (const [collection, filter] of [
      [TASKS_COLLECTION, { taskId: 't-gone' }],
      [SESSIONS_COLLECTION, { _id: 's-gone' }],
      [TASKS_COLLECTION, { taskId: 't-keep' }],
      [SESSIONS_COLLECTION, { _id: 's-keep' }],
    ] as const) {
      await app.db.collection(collection).updateOne(filter as never, { $set: { note: 'touched' } });
    }
    const [goneTask, goneSession, keepTask, keepSession] = subscriptions;
    expect(await keepTask.next(5000)).toEqual({ data: { taskUpdated: { taskId: 't-keep' } } });
    expect(await keepSession.next(5000)).toEqual({ data: { sessionUpdated: { sessionId: 's-keep' } } });
    expect(goneTask.results).toEqual([]);
    expect(goneSession.results).toEqual([]);
    for (const subscription of subscriptions) subscription.unsubscribe();
    await client.dispose();
  });

  it('a new session or task may take the id of an expired one', async () => {
    const { createSession } = await app.run(CREATE_SESSION, { input: { sessionId: 's-gone', userId: USER } });
    expect(createSession).toMatchObject({ sessionId: 's-gone', expiresAt: null });
    const { recordTask } = await app.run(RECORD_TASK, {
      input: { taskId: 't-gone', originalQuery: GOAL, goal: GOAL, status: 'PAUSED', userId: USER },
    });
    expect(recordTask).toMatchObject({ taskId: 't-gone', expiresAt: null });
    const found = (await app.run(SIMILAR, { query: GOAL, limit: 10 })).similarTasks.tasks;
    expect(found.map((hit: { taskId: string }) => hit.taskId).sort()).toEqual(['t-gone', 't-keep']);
  });
});

describe('similarTasks refills a page that dropping expired tasks left short', () => {
  let engine: TtlEngine;
  let app: TestApp;
  beforeAll(async () => {
    engine = await startTtlEngine(TTL_PASS_MS);
    app = await createTestApp({ databaseUri: engine.uri });
  });
  afterAll(async () => {
    await app.close();
    await engine.close();
  });

  it('the lasting task is found though 100 expired ones, better matches, fill every candidate list', async () => {
    const query = 'polish the brass telescope lens';
    await app.run(RECORD_TASK, {
      input: {
        taskId: 'lasting',
        originalQuery: 'clean an old telescope',
        goal: 'clean an old telescope',
        status: 'COMPLETED',
      },
    });
    let expiresAt = 0;
    for (let i = 0; i < 100; i++) {
      const { recordTask } = await app.run(RECORD_TASK, {
        input: { taskId: `fleeting-${i}`, originalQuery: query, goal: query, status: 'COMPLETED', ttlSeconds: 1 },
      });
      expiresAt = Date.parse(recordTask.expiresAt);
    }
    const similar = async (args: Record<string, unknown>) =>
      (await app.run(SIMILAR, { limit: 1, ...args })).similarTasks.tasks.map((hit: { taskId: string }) => hit.taskId);
    // Before they expire, the 100 (k = 100 candidates per list) hide the lasting one.
    expect(await similar({ query })).toEqual([expect.stringMatching(/^fleeting-/)]);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - Date.now() + 50)));
    expect(await similar({ query })).toEqual(['lasting']);
    expect(await similar({ goal: query })).toEqual(['lasting']);
    expect(await similar({ query, goal: query })).toEqual(['lasting']);
    expect(await app.db.collection(TASKS_COLLECTION).countDocuments({ taskId: /^fleeting-/ })).toBe(100);
  });
});
