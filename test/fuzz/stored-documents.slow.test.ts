import type { Document } from 'mongodb';
import { createTestApp, type TestApp } from '../support/app';
import { nested, postOperation, postRaw, readEverything, storedToolDocument, type GraphQLReply } from './fuzz-support';
import { createLogger } from '../../src/logger';
import { buildAppSchema } from '../../src/schema';
import { scrape } from '../support/metrics';

/**
 * Documents as an older version or another tool might have written them, straight through the driver: wrong types,
 * missing required fields, strings for numbers, huge numbers, nesting near the engine's limit, invalid dates.
 */
const NOW = new Date('2025-01-01T00:00:00Z');
const DEEP = nested(95);
/** Nesting near the limit for values stored a few levels down (a tool call's args, a step). */
const DEEP_INSIDE = nested(90);
/** The test app's embedder: searches compare only vectors recorded as made by it. */
const MODEL = { provider: 'hash', model: 'feature-hash-v1-384', dimensions: 384 };

const experience = (id: string, poison: Document): Document => ({
  experience_id: id,
  primary_goal_description: 'goal a',
  sub_task_description: 'sub a',
  initiating_agent_id: 'agent',
  final_outcome: 'success',
  timestamp: NOW,
  version: 1,
  embedding_model: MODEL,
  ...poison,
});

const EXPERIENCES: Array<[string, Document]> = [
  ['missing goal and outcome', { primary_goal_description: undefined, final_outcome: undefined }],
  ['numbers for strings', { primary_goal_description: 42, sub_task_description: 1e308, initiating_agent_id: 7 }],
  ['unknown outcome', { final_outcome: 'exploded' }],
  ['string timestamp that is no date', { timestamp: 'not a date' }],
  ['missing timestamp', { timestamp: undefined }],
  ['version as a huge number', { version: 1e308 }],
  ['version as a string', { version: 'one' }],
  ['tags not a list', { tags: 'a,b', involved_components: { a: 1 } }],
  ['lists of numbers', { tags: [1, null, 'x'], involved_components: [null] }],
  ['deep key decisions', { key_decisions_made: DEEP, feedback_signals: { extra: DEEP } }],
  ['feedback not an object', { feedback_signals: 'bad' }],
  ['embedding model of the wrong shape', { embedding_model: { provider: 1 } }],
  ['embedding model with huge and deep parts', { embedding_model: { provider: DEEP, model: 5, dimensions: 1e308 } }],
  ['embedding model not an object', { embedding_model: 'hash' }],
  ['id a number', { experience_id: 12345 }],
];

const session = (id: string, poison: Document): Document => ({
  _id: id,
  session_id: id,
  session_type: 'default',
  created_at: NOW,
  updated_at: NOW,
  metadata: {},
  feedbacks: [],
  agents: {},
  ...poison,
});

const message = (poison: Document): Document => ({
  message_id: 1,
  role: 'user',
  content: 'hi',
  created_at: NOW,
  updated_at: NOW,
  ...poison,
});

const agent = (messages: Document[], poison: Document = {}): Document => ({
  agent_data: {},
  created_at: NOW,
  updated_at: NOW,
  messages,
  ...poison,
});

const SESSIONS: Array<[string, Document]> = [
  ['dates as strings', { created_at: 'yesterday', updated_at: 12 }],
  ['missing type and metadata', { session_type: undefined, metadata: undefined, feedbacks: undefined }],
  ['metadata not an object', { metadata: 'x', session_type: 3 }],
  ['feedbacks of the wrong shape', { feedbacks: [{ rating: 'sideways', comment: 5 }, null, 'x'] }],
  ['agents not an object', { agents: [1, 2] }],
  ['agent without messages', { agents: { a: agent([], { messages: undefined, agent_data: 'x' }) } }],
  [
    'huge latencies and tokens',
    {
      agents: {
        a: agent([
          message({ event_loop_metrics: { accumulated_metrics: { latencyMs: 1.79e308 } } }),
          message({
            message_id: 2,
            event_loop_metrics: {
              accumulated_metrics: { latencyMs: 1.79e308 },
              accumulated_usage: { inputTokens: 1.79e308, outputTokens: 'many', totalTokens: -1e308 },
            },
          }),
        ]),
      },
    },
  ],
  [
    'messages of the wrong shape',
    {
      agents: {
        a: agent([
          message({ message_id: 'one', role: 'robot', created_at: 'x' }),
          message({ message_id: 2e10 }),
          'x' as never,
        ]),
      },
    },
  ],
  ['deep metadata and content', { metadata: { deep: DEEP }, agents: { a: agent([message({ content: DEEP })]) } }],
];

const task = (id: string, poison: Document): Document => ({
  taskId: id,
  originalQuery: 'query a',
  goal: 'goal a',
  goalPattern: 'goal_a',
  status: 'completed',
  steps: [{ id: 'step-1', action: 'tool1', order: 1 }],
  successMetrics: { executionTime: 5, stepsCompleted: 1, retries: 0, userInputsRequired: 0 },
  createdAt: NOW,
  embedding_model: MODEL,
  ...poison,
});

const toolCall = (poison: Document): Document => ({
  name: 'tool1',
  args: {},
  result: 'ok',
  result_truncated: false,
  outcome: 'success',
  execution_time: 5,
  insights: '',
  learning: '',
  relevance: '',
  ...poison,
});

const action = (poison: Document): Document => ({
  iteration: 0,
  timestamp: NOW,
  mode: 'fast',
  thinking: 'think',
  planning: '',
  reflection: '',
  approach: '',
  tool_calls: [toolCall({})],
  synthesis: '',
  progress: '',
  hypothesis: { belief: '', test: '' },
  ...poison,
});

const TASKS: Array<[string, Document]> = [
  ['missing goal, query and pattern', { goal: undefined, originalQuery: undefined, goalPattern: undefined }],
  ['numbers for strings', { goal: 7, originalQuery: 1e308, taskId: 99 }],
  ['unknown status and agent type', { status: 'exploded', agentType: 'robot' }],
  ['metrics of the wrong types', { successMetrics: { executionTime: 'slow', stepsCompleted: 1e308, retries: -1e308 } }],
  ['metrics not an object', { successMetrics: 'fine' }],
  ['steps of the wrong shape', { steps: [{ order: 'first' }, 'x', null] }],
  ['steps not a list', { steps: { a: 1 } }],
  ['dates that are no dates', { createdAt: 'yesterday', learning: { learnedAt: 'never' } }],
  ['steps with huge and deep values', { steps: [{ id: DEEP_INSIDE, action: 5, order: 1e308 }, { order: -1e308 }] }],
  [
    'actions of the wrong types',
    {
      actions: [
        action({ iteration: 'one', mode: 'warp', timestamp: 'x', thinking: 5, hypothesis: 'x', progress: 'sideways' }),
        action({ iteration: 1e308, hypothesis: { belief: DEEP_INSIDE }, tool_calls: 'x' }),
        'x',
        null,
      ],
    },
  ],
  [
    'tool calls of the wrong types',
    {
      actions: [
        action({
          tool_calls: [
            toolCall({ name: 5, args: 'x', outcome: 'exploded', execution_time: 'slow', result_truncated: 'yes' }),
            toolCall({ insights: 7, relevance: 'very', learning: DEEP_INSIDE, execution_time: -1e308 }),
            toolCall({ name: undefined, outcome: undefined, args: { deep: DEEP_INSIDE } }),
            'x',
            null,
          ],
        }),
      ],
    },
  ],
  ['actions not a list', { actions: { a: 1 } }],
  ['embedding model of the wrong shape', { embedding_model: { provider: DEEP, model: 5, dimensions: 1e308 } }],
  ['embedding model not an object', { embedding_model: 'hash' }],
];

const plan = (id: string, poison: Document): Document => ({
  patternId: id,
  goalPattern: 'goal_a',
  stepSequence: ['tool1'],
  successRate: 1,
  avgExecutionTime: 5,
  commonIssues: [],
  createdAt: NOW,
  lastUsed: NOW,
  usageCount: 1,
  steps: [{ id: 'step-1', action: 'tool1', order: 1 }],
  exampleGoal: 'goal a',
  successCount: 1,
  failureCount: 0,
  totalExecutionTime: 5,
  issues: [],
  embedding_model: MODEL,
  ...poison,
});

const PLANS: Array<[string, Document]> = [
  ['missing pattern, goal and steps', { goalPattern: undefined, exampleGoal: undefined, steps: undefined }],
  ['numbers for strings', { goalPattern: 7, exampleGoal: 1e308, patternId: 99, stepSequence: [1, null] }],
  ['counts of the wrong types', { successRate: 'high', usageCount: 1e308, successCount: -1e308, failureCount: 'x' }],
  ['huge times', { avgExecutionTime: 1.79e308, totalExecutionTime: 1.79e308 }],
  ['lists not lists', { stepSequence: 'a,b', commonIssues: { a: 1 }, issues: 'x', steps: { a: 1 } }],
  ['steps and issues of the wrong shape', { steps: [{ order: 'first' }, 'x', null], issues: [{ count: 'x' }, 3] }],
  ['dates that are no dates', { createdAt: 'yesterday', lastUsed: 12e20 }],
  ['steps with huge and deep values', { steps: [{ id: DEEP_INSIDE, action: 5, order: 1e308 }, { order: -1e308 }] }],
  ['embedding model of the wrong shape', { embedding_model: { provider: DEEP, model: 5, dimensions: 1e308 } }],
  ['embedding model not an object', { embedding_model: 'hash' }],
];

const insight = (id: string, poison: Document): Document => ({
  insightId: id,
  agentType: 'executor',
  type: 'patterns',
  insight: 'insight a',
  key: 'insight a',
  confidence: 0.5,
  evidence: [{ taskId: 't1', description: 'd' }],
  evidenceCount: 1,
  createdAt: NOW,
  lastValidated: null,
  ...poison,
});

const INSIGHTS: Array<[string, Document]> = [
  ['missing text and type', { insight: undefined, type: undefined, key: undefined }],
  ['numbers for strings', { insight: 42, insightId: 7, key: 1e308 }],
  ['unknown type', { type: 'rumours' }],
  ['confidence of the wrong type', { confidence: 'sure', evidenceCount: 1e308 }],
  ['huge confidence', { confidence: 1.79e308, evidenceCount: -1e308 }],
  ['evidence of the wrong shape', { evidence: [{ taskId: 5 }, 'x', null] }],
  ['evidence not a list', { evidence: { a: 1 } }],
  ['dates that are no dates', { createdAt: 'yesterday', lastValidated: 'never' }],
];

const tool = (name: string, poison: Document): Document => storedToolDocument(name, poison, NOW);

const TOOLS: Array<[string, Document]> = [
  ['counts of the wrong types', { totalExecutions: 'many', successCount: null, failureCount: 'x' }],
  ['huge durations and counts', { totalDuration: 1.79e308, avgDuration: 1.79e308, totalExecutions: 1e308 }],
  ['negative counts', { totalExecutions: -5, successCount: -1e308, timedExecutions: -1 }],
  ['errors of the wrong shape', { commonErrors: [{ error: 5, count: 'x' }, 'x', null] }],
  ['lists not lists', { commonErrors: 'x', optimalContext: { a: 1 }, contexts: 'c' }],
  [
    'contexts of the wrong shape',
    { contexts: [{ context: 'c', totalExecutions: 'x', totalDuration: 1.79e308 }, { context: 5 }, null] },
  ],
  ['dates that are no dates', { lastUpdated: 'yesterday', createdAt: 'never' }],
];

/**
 * The errors of a read other than the expected ones: STORED_VALUE_INVALID for the poison document `id` at a path the
 * data holds, and searches refusing vectors of an unknown embedder by design (reembed fixes them: a coded error).
 */
function unexpectedErrors(reply: GraphQLReply, id: unknown): unknown[] {
  return (reply.body.errors ?? []).filter((error) => {
    if (error.extensions?.reason === 'EMBEDDING_MODEL_MISMATCH') return false;
    if (error.extensions?.code !== 'STORED_VALUE_INVALID' || error.extensions.id !== String(id)) return true;
    const path = error.path as Array<string | number>;
    const value = path.reduce<any>((at, key) => at?.[key], reply.body.data);
    return reply.body.data !== null && value === undefined;
  });
}

describe('reads survive any stored document', () => {
  let app: TestApp;
  let url: string;
  const logged: string[] = [];
  beforeAll(async () => {
    app = await createTestApp({
      logger: createLogger('error', (line) => logged.push(line)),
      config: { maxQueryCost: 1_000_000_000, maxQueryDepth: 20, maxAliases: 100 },
    });
    url = await app.server.listen(0, '127.0.0.1');
    await app.db.collection('eat_agent_experiences').insertOne(experience('good-experience', {}));
    await app.db.collection('sessions').insertOne(session('good-session', {}));
    await app.db.collection('tasks').insertOne(task('good-task', {}));
    await app.db.collection('plan_patterns').insertOne(plan('good-plan', {}));
    await app.db.collection('agent_insights').insertOne(insight('good-insight', {}));
    await app.db.collection('tool_performance').insertOne(tool('good-tool', {}));
  });
  afterAll(() => app.close());

  /** The read-everything query; an unexpected error fails with what the server logged for it. */
  const readAll = async () => {
    logged.length = 0;
    const read = await readEverything(await buildAppSchema(), app.db);
    const reply = await postOperation(url, read.query, read.variables);
    if (logged.length) throw new Error(`the server logged errors: ${logged.join('\n').slice(0, 3000)}`);
    return reply;
  };

  /** A listing read on its own: a search refusing vectors (below) nulls the whole read-everything reply. */
  const list = async (query: string): Promise<any> => {
    const reply = await postOperation(url, query, {});
    expect(reply.body.errors ?? []).toEqual([]);
    return reply.body.data;
  };

  it.each(EXPERIENCES)('an experience with %s leaves listings and searches working', async (_, poison) => {
    const { insertedId } = await app.db.collection('eat_agent_experiences').insertOne(experience('poison', poison));
    try {
      expect(unexpectedErrors(await readAll(), poison.experience_id ?? 'poison')).toEqual([]);
      const listed = await list('{ experiences(first: 10) { edges { node { experienceId } } } }');
      expect(listed.experiences.edges.map((edge: any) => edge.node.experienceId).sort()).toEqual(
        ['good-experience', String(poison.experience_id ?? 'poison')].sort(),
      );
    } finally {
      await app.db.collection('eat_agent_experiences').deleteOne({ _id: insertedId });
    }
  });

  it.each(SESSIONS)('a session with %s leaves listings and analytics working', async (_, poison) => {
    await app.db.collection('sessions').insertOne(session('poison', poison));
    try {
      const reply = await readAll();
      expect(unexpectedErrors(reply, 'poison')).toEqual([]);
      const listed = (reply.body.data!.sessions as any).edges.map((edge: any) => edge.node.sessionId);
      expect(listed.sort()).toEqual(['good-session', 'poison']);
    } finally {
      await app.db.collection('sessions').deleteOne({ _id: 'poison' as never });
    }
  });

  it.each(TASKS)('a task with %s leaves listings and similar tasks working', async (_, poison) => {
    const { insertedId } = await app.db.collection('tasks').insertOne(task('poison', poison));
    try {
      expect(unexpectedErrors(await readAll(), poison.taskId ?? 'poison')).toEqual([]);
      expect((await list('{ tasks(first: 10) { totalCount } }')).tasks.totalCount).toBe(2);
      const actions = await postOperation(
        url,
        '{ tasks(first: 10) { edges { node { taskId attempts actions { iteration toolCalls { name } } } } } }',
        {},
      );
      expect(unexpectedErrors(actions, poison.taskId ?? 'poison')).toEqual([]);
      expect((actions.body.data!.tasks as any).edges).toHaveLength(2);
    } finally {
      await app.db.collection('tasks').deleteOne({ _id: insertedId });
    }
  });

  it.each(PLANS)('a plan pattern with %s leaves plan listings and searches working', async (_, poison) => {
    const { insertedId } = await app.db.collection('plan_patterns').insertOne(plan('poison', poison));
    try {
      expect(unexpectedErrors(await readAll(), poison.patternId ?? 'poison')).toEqual([]);
      expect((await list('{ planPatterns(first: 10) { totalCount } }')).planPatterns.totalCount).toBe(2);
    } finally {
      await app.db.collection('plan_patterns').deleteOne({ _id: insertedId });
    }
  });

  it.each(INSIGHTS)('an insight with %s leaves insight listings working', async (_, poison) => {
    const { insertedId } = await app.db.collection('agent_insights').insertOne(insight('poison', poison));
    try {
      expect(unexpectedErrors(await readAll(), poison.insightId ?? 'poison')).toEqual([]);
    } finally {
      await app.db.collection('agent_insights').deleteOne({ _id: insertedId });
    }
  });

  it.each(TOOLS)('a tool aggregate with %s leaves toolPerformance working', async (_, poison) => {
    const { insertedId } = await app.db.collection('tool_performance').insertOne(tool('poison', poison));
    try {
      expect(unexpectedErrors(await readAll(), 'poison')).toEqual([]);
    } finally {
      await app.db.collection('tool_performance').deleteOne({ _id: insertedId });
    }
  });
});

describe('a stored value the API cannot render fails only its own field', () => {
  let app: TestApp;
  let url: string;
  const logged: string[] = [];
  beforeAll(async () => {
    app = await createTestApp({ logger: createLogger('warn', (line) => logged.push(line)) });
    url = await app.server.listen(0, '127.0.0.1');
    await app.db
      .collection('eat_agent_experiences')
      .insertMany([
        experience('good-experience', {}),
        experience('poison', { primary_goal_description: { secret: 'stored value' }, timestamp: 'not a date' }),
      ]);
  });
  afterAll(() => app.close());

  it.each([
    [
      'plan_patterns',
      plan('poison', { successRate: 'high' }),
      'successRate',
      '{ planPatterns(first: 5) { edges { node { successRate } } } }',
    ],
    [
      'tasks',
      task('poison-step', { steps: [{ id: 's1', action: { not: 'text' }, order: 1 }] }),
      'steps.0.action',
      '{ tasks(first: 5) { edges { node { steps { stepId action order } } } } }',
    ],
    [
      'tasks',
      task('poison-call', {
        actions: [action({ iteration: 0 }), action({ iteration: 1, tool_calls: [toolCall({ outcome: 'exploded' })] })],
      }),
      'actions.1.tool_calls.0.outcome',
      '{ tasks(first: 5) { edges { node { actions { iteration toolCalls { name outcome } } } } } }',
    ],
    [
      'tasks',
      task('poison-actions', { actions: { a: 1 } }),
      'actions',
      '{ tasks(first: 5) { edges { node { actions { iteration } } } } }',
    ],
    [
      'tasks',
      task('poison-action', { actions: [action({ iteration: 0 }), 'x', action({ iteration: 1 })] }),
      'actions.1',
      '{ tasks(first: 5) { edges { node { actions { iteration } } } } }',
    ],
    [
      'tasks',
      task('poison-attempts', { actions: [action({ iteration: 0 }), null] }),
      'actions.1',
      '{ tasks(first: 5) { edges { node { attempts } } } }',
    ],
    [
      'tasks',
      task('poison-attempts-list', { actions: 'x' }),
      'actions',
      '{ tasks(first: 5) { edges { node { attempts } } } }',
    ],
    [
      'tool_performance',
      tool('poison', { totalExecutions: 'two' }),
      'totalExecutions',
      '{ toolPerformance(toolName: "poison") { totalExecutions successRate } }',
    ],
    [
      'tool_performance',
      tool('poison', { commonErrors: [{ error: 'e', frequency: 1 }, 'x'] }),
      'commonErrors',
      '{ toolPerformance(toolName: "poison") { commonErrors { error } } }',
    ],
    [
      'tool_performance',
      tool('poison', { contexts: [{ context: 'c', totalExecutions: 1, successCount: 'one' }] }),
      'contexts.0.successCount',
      '{ toolPerformance(toolName: "poison", context: "c") { successCount } }',
    ],
    [
      'eat_agent_experiences',
      experience('poison-model', { embedding_model: { ...MODEL, dimensions: 1e308 } }),
      'embedding_model.dimensions',
      '{ experiences(first: 5) { edges { node { embeddingModel { provider model dimensions } } } } }',
    ],
    [
      'agent_insights',
      insight('poison', { type: 'rumours' }),
      'type',
      '{ agentInsights(agentType: EXECUTOR) { insights { type } } }',
    ],
  ])('a %s document reports its substituted field', async (collection, document, storedField, query) => {
    const { insertedId } = await app.db.collection(collection).insertOne(document);
    try {
      const reply = await postOperation(url, query, {});
      expect(reply.body.errors?.map((error) => [error.extensions.code, error.extensions.storedField])).toEqual([
        ['STORED_VALUE_INVALID', storedField],
      ]);
      expect(reply.body.data).not.toBeNull();
    } finally {
      await app.db.collection(collection).deleteOne({ _id: insertedId });
    }
  });

  const fastPathAnswered = async () => (await scrape(url)).value('hindsight_graphql_fast_path_total');

  const QUERY = '{ experiences(first: 10) { edges { node { experienceId goal: primaryGoalDescription timestamp } } } }';

  // A body with an extension the fast path does not know goes to Apollo (src/graphql/fast-path.ts).
  it.each([
    ['the fast path', JSON.stringify({ query: QUERY }), 1],
    ["Apollo's path", JSON.stringify({ query: QUERY, extensions: { reference: true } }), 0],
  ])(
    'on %s: one STORED_VALUE_INVALID error per substituted field, with its path; the other items intact',
    async (_, body, byFastPath) => {
      logged.length = 0;
      const fastPathBefore = await fastPathAnswered();
      const reply = await postRaw(url, body);
      expect(reply.status).toBe(200);
      expect((await fastPathAnswered()) - fastPathBefore).toBe(byFastPath);
      const nodes = (reply.body.data!.experiences as any).edges.map((edge: any) => edge.node);
      const at = nodes.findIndex((node: any) => node.experienceId === 'poison');
      expect(nodes).toHaveLength(2);
      expect(nodes[1 - at]).toEqual({
        experienceId: 'good-experience',
        goal: 'goal a',
        timestamp: NOW.toISOString(),
      });
      expect(nodes[at]).toEqual({ experienceId: 'poison', goal: '', timestamp: new Date(0).toISOString() });
      const errors = reply.body.errors!;
      expect(errors.map((error) => [error.path, error.extensions.code])).toEqual([
        [['experiences', 'edges', at, 'node', 'goal'], 'STORED_VALUE_INVALID'],
        [['experiences', 'edges', at, 'node', 'timestamp'], 'STORED_VALUE_INVALID'],
      ]);
      expect(errors[0].message).toContain('eat_agent_experiences document "poison"');
      expect(errors[0].message).toContain('primary_goal_description');
      expect(JSON.stringify(errors)).not.toContain('stored value');
      const warnings = logged.filter((line) => JSON.parse(line).level === 'warn');
      expect(warnings).toHaveLength(1);
      expect(JSON.parse(warnings[0])).toMatchObject({ collection: 'eat_agent_experiences', id: 'poison' });
    },
  );

  it('reports through fragments and aliases, one error per path, both paths when two fields reach one document', async () => {
    const query = `{
      one: experience(id: "poison") { ...goals }
      experiences(first: 10) { edges { node { ... on Experience { experienceId primaryGoalDescription } } } }
    }
    fragment goals on Experience { g1: primaryGoalDescription g2: primaryGoalDescription primaryGoalDescription }`;
    const reply = await postOperation(url, query, {});
    const nodes = (reply.body.data!.experiences as any).edges.map((edge: any) => edge.node);
    const at = nodes.findIndex((node: any) => node.experienceId === 'poison');
    expect(reply.body.errors!.map((error) => error.path).sort()).toEqual(
      [
        ['one', 'g1'],
        ['one', 'g2'],
        ['one', 'primaryGoalDescription'],
        ['experiences', 'edges', at, 'node', 'primaryGoalDescription'],
      ].sort(),
    );
  });
});
