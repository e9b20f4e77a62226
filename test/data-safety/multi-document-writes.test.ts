import type { CommandStartedEvent, CommandSucceededEvent, Document } from 'mongodb';
import { createTestApp, type TestApp } from '../support/app';
import { databaseFingerprint } from '../support/fingerprint';
import { PlanPatternRepository } from '../../src/modules/plans/plan.repository';

/** One stored document of the good state, and the damage done to it before the mutation. */
interface Damage {
  collection: string;
  filter: Record<string, unknown>;
  set: Record<string, unknown>;
}

const task = (taskId: string, steps: string[] = []) =>
  `mutation { recordTask(input: { goal: "Book a flight to Oslo", originalQuery: "flight ${taskId}", status: PAUSED, taskId: "${taskId}", steps: [${steps.map((action) => `{ action: "${action}" }`).join(', ')}] }) { taskId } }`;
const recordAction = (key = '') =>
  `mutation { recordAction(taskId: "t1"${key}, input: { mode: FAST, toolCalls: [{ name: "search", result: "ok", outcome: SUCCESS }, { name: "fetch", result: "boom", outcome: FAILURE }] }) { action { iteration } } }`;
const recordTools =
  'mutation { recordToolExecutions(inputs: [{ toolName: "search", success: true, durationMs: 5 }, { toolName: "fetch", success: false, durationMs: 9, error: "boom" }]) { totalExecutions } }';
const appendMessages = (key = '') =>
  `mutation { appendMessages(sessionId: "s1", agentId: "a1"${key}, inputs: [{ role: USER, content: "a" }, { role: ASSISTANT, content: "b" }]) { messageId } }`;
const experience = (id: string) =>
  `{ experienceId: "${id}", primaryGoalDescription: "Book a flight.", subTaskDescription: "Search.", initiatingAgentId: "agent", finalOutcome: SUCCESS }`;

const learn =
  'mutation { learnFromTask(input: { taskId: "t2", status: COMPLETED, metrics: { executionTime: 5, stepsCompleted: 2 }, insights: ["Check the date first."] }) { patternsLearned } }';

/** The good state every case starts from: a task with a run, two tools, a session with messages, an experience. */
async function seed(app: TestApp): Promise<void> {
  await app.run(task('t1', ['search', 'fetch']));
  await app.run(task('t0', ['search', 'fetch']));
  await app.run(task('t2', ['search', 'fetch']));
  await app.run(learn.replace('"t2"', '"t0"'));
  await app.run(recordAction());
  await app.run('mutation { createSession(input: { sessionId: "s1" }) { sessionId } }');
  await app.run('mutation { upsertAgent(sessionId: "s1", input: { agentId: "a1", agentData: {} }) { agentId } }');
  await app.run(appendMessages(', idempotencyKey: "seed"'));
  await app.run(`mutation { recordExperiences(inputs: [${experience('e1')}]) { experienceId } }`);
}

const tool = (toolName: string, set: Record<string, unknown>): Damage => ({
  collection: 'tool_performance',
  filter: { toolName },
  set,
});
const taskDamage = (set: Record<string, unknown>): Damage => ({ collection: 'tasks', filter: { taskId: 't1' }, set });
const sessionDamage = (set: Record<string, unknown>): Damage => ({
  collection: 'sessions',
  filter: { _id: 's1' },
  set,
});

/**
 * Every mutation writing more than one document (or one document in more than one step), with each document it
 * touches damaged in turn: the answer is coded and names the damaged field, and the database is as it was.
 */
const CASES: Array<[string, Damage, string, string, string | undefined]> = [
  [
    'recordAction: its first tool',
    tool('search', { totalExecutions: 'two' }),
    recordAction(),
    'CONFLICT',
    'totalExecutions',
  ],
  ['recordAction: its second tool', tool('fetch', { commonErrors: 5 }), recordAction(), 'CONFLICT', 'commonErrors'],
  [
    'recordAction: a tool, keyed',
    tool('fetch', { contexts: 'x' }),
    recordAction(', idempotencyKey: "k1"'),
    'CONFLICT',
    'contexts',
  ],
  ['recordAction: the task actions', taskDamage({ actions: { a: 1 } }), recordAction(), 'CONFLICT', 'actions'],
  [
    'recordAction: the run summary',
    taskDamage({ 'run.failing_calls': 5 }),
    recordAction(),
    'CONFLICT',
    'run.failing_calls',
  ],
  ['recordToolExecutions: the first tool', tool('search', { slowCount: 'x' }), recordTools, 'CONFLICT', 'slowCount'],
  [
    'recordToolExecutions: the second tool',
    tool('fetch', { totalDuration: 'x' }),
    recordTools,
    'CONFLICT',
    'totalDuration',
  ],
  [
    'appendMessages: the messages',
    sessionDamage({ 'agents.a1.messages': { a: 1 } }),
    appendMessages(),
    'CONFLICT',
    'agents.a1.messages',
  ],
  [
    'appendMessages: the keyed-write record',
    sessionDamage({ applied_writes: 'x' }),
    appendMessages(', idempotencyKey: "k2"'),
    'CONFLICT',
    'applied_writes',
  ],
  [
    'recordExperiences: an id taken by a stored experience',
    { collection: 'eat_agent_experiences', filter: { experience_id: 'e1' }, set: {} },
    `mutation { recordExperiences(inputs: [${experience('e2')}, ${experience('e1')}]) { experienceId } }`,
    'CONFLICT',
    undefined,
  ],
  [
    'addFeedback: the feedbacks',
    sessionDamage({ feedbacks: 5 }),
    'mutation { addFeedback(sessionId: "s1", input: { rating: UP, comment: "ok" }) { comment } }',
    'CONFLICT',
    'feedbacks',
  ],
  [
    'learnFromTask: its plan pattern',
    { collection: 'plan_patterns', filter: {}, set: { usageCount: 'x' } },
    learn,
    'CONFLICT',
    'usageCount',
  ],
  ['learnFromTask: a tool of its steps', tool('fetch', { contexts: 'x' }), learn, 'CONFLICT', 'contexts'],
  [
    'learnFromTask: an insight it reinforces',
    { collection: 'agent_insights', filter: {}, set: { evidence: 5 } },
    learn,
    'CONFLICT',
    'evidence',
  ],
  [
    'recordInsight: the insight it reinforces',
    { collection: 'agent_insights', filter: {}, set: { confidence: 'high' } },
    'mutation { recordInsight(input: { agentType: EXECUTOR, type: PATTERNS, insight: "Check the date first." }) { insight } }',
    'CONFLICT',
    'confidence',
  ],
];

describe('a mutation refused on a damaged document writes nothing, also when it writes several', () => {
  let app: TestApp;
  // The seeded state, restored before each case (seeding through the API each time would take seconds).
  const seeded = new Map<string, Document[]>();
  beforeAll(async () => {
    app = await createTestApp();
    await seed(app);
    // The cases restore every collection themselves: the message index must not rebuild its entries meanwhile.
    await app.deps.messageIndex.forDb(app.db).ready();
    await app.deps.messageIndex.forDb(app.db).close();
    for (const { name } of await app.db.listCollections({}, { nameOnly: true }).toArray()) {
      seeded.set(name, await app.db.collection(name).find({}).toArray());
    }
  });
  afterAll(() => app.close());

  beforeEach(async () => {
    for (const [name, documents] of seeded) {
      await app.db.collection(name).deleteMany({});
      if (documents.length) await app.db.collection(name).insertMany(documents);
    }
  });

  it.each(CASES)('%s', async (_, damage, mutation, code, storedField) => {
    if (Object.keys(damage.set).length) {
      const { matchedCount } = await app.db
        .collection(damage.collection)
        .updateOne(damage.filter, { $set: damage.set });
      expect(matchedCount).toBe(1);
    }
    const before = await databaseFingerprint(app.db);
    const result = await app.execute(mutation);
    expect(result.errors?.map((error) => [error.extensions?.code, error.extensions?.storedField])).toEqual([
      [code, storedField],
    ]);
    expect(await databaseFingerprint(app.db)).toEqual(before);
  });

  it('a tool damaged between recordAction’s append and its count: the answer says the action is recorded, and a keyed retry counts it once', async () => {
    const tools = app.db.collection('tool_performance');
    const [search] = seeded.get('tool_performance')!.filter((doc) => doc.toolName === 'search');
    const actionsOf = async () =>
      ((await app.db.collection('tasks').findOne({ taskId: 't1' }))!.actions as unknown[]).length;
    const actionsBefore = await actionsOf();
    // Damages the tool the moment the append's reply arrives: after recordAction's check, before its count.
    const appends = new Set<number>();
    const started = (event: CommandStartedEvent) => {
      if (event.commandName === 'findAndModify' && event.command.findAndModify === 'tasks')
        appends.add(event.requestId);
    };
    let damaged: Promise<unknown> | undefined;
    const succeeded = (event: CommandSucceededEvent) => {
      if (!appends.has(event.requestId) || damaged) return;
      damaged = tools.updateOne({ toolName: 'search' }, { $set: { totalExecutions: 'two' } });
    };
    app.client.on('commandStarted', started);
    app.client.on('commandSucceeded', succeeded);
    let result;
    try {
      result = await app.execute(recordAction(', idempotencyKey: "race"'));
    } finally {
      app.client.off('commandStarted', started);
      app.client.off('commandSucceeded', succeeded);
    }
    await damaged;
    expect(result.errors?.map((error) => error.extensions)).toEqual([
      expect.objectContaining({ code: 'STORED_VALUE_INVALID', storedField: 'totalExecutions', actionRecorded: true }),
    ]);
    expect(await actionsOf()).toBe(actionsBefore + 1);

    await tools.replaceOne({ _id: search._id }, search);
    const retried = await app.execute(recordAction(', idempotencyKey: "race"'));
    expect(retried.errors).toBeUndefined();
    expect(await actionsOf()).toBe(actionsBefore + 1);
    const counted = await tools.findOne({ toolName: 'search' });
    expect(counted!.totalExecutions).toBe(search.totalExecutions + 1);
  });

  it('a plan pattern damaged after the check (a race) is CONFLICT from the update itself, which writes nothing', async () => {
    const [pattern] = seeded.get('plan_patterns')!;
    await app.db.collection('plan_patterns').updateOne({ _id: pattern._id }, { $set: { issues: 'x' } });
    const before = await databaseFingerprint(app.db);
    const run = {
      patternId: pattern.patternId,
      goalPattern: pattern.goalPattern,
      steps: pattern.steps,
      goal: 'g',
      goalVector: [],
      model: pattern.embedding_model,
      success: false,
      executionTime: 1,
      issues: ['late'],
      at: new Date(),
    };
    await expect(new PlanPatternRepository(app.db).learnRun(run, new Date())).rejects.toMatchObject({
      extensions: { code: 'CONFLICT', storedField: 'issues' },
    });
    expect(await databaseFingerprint(app.db)).toEqual(before);
  });
});
