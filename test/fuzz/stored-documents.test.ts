import type { Document } from 'mongodb';
import { createTestApp, type TestApp } from '../support/app';
import { nested, postOperation, readEverything } from './fuzz-support';
import { createLogger } from '../../src/logger';
import { buildAppSchema } from '../../src/schema';

/**
 * Documents as an older version or another tool might have written them, straight through the driver: wrong types,
 * missing required fields, strings for numbers, huge numbers, nesting near the engine's limit, invalid dates.
 */
const NOW = new Date('2025-01-01T00:00:00Z');
const DEEP = nested(95);
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

const TASKS: Array<[string, Document]> = [
  ['missing goal, query and pattern', { goal: undefined, originalQuery: undefined, goalPattern: undefined }],
  ['numbers for strings', { goal: 7, originalQuery: 1e308, taskId: 99 }],
  ['unknown status and agent type', { status: 'exploded', agentType: 'robot' }],
  ['metrics of the wrong types', { successMetrics: { executionTime: 'slow', stepsCompleted: 1e308, retries: -1e308 } }],
  ['metrics not an object', { successMetrics: 'fine' }],
  ['steps of the wrong shape', { steps: [{ order: 'first' }, 'x', null] }],
  ['steps not a list', { steps: { a: 1 } }],
  ['dates that are no dates', { createdAt: 'yesterday', learning: { learnedAt: 'never' } }],
];

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

  it.each(EXPERIENCES)('an experience with %s leaves listings and searches working', async (_, poison) => {
    const { insertedId } = await app.db.collection('eat_agent_experiences').insertOne(experience('poison', poison));
    try {
      const reply = await readAll();
      // Searches refuse vectors of an unknown embedder by design (reembed fixes them): a coded error, not a failure.
      const errors = (reply.body.errors ?? []).filter(
        (error) => error.extensions?.reason !== 'EMBEDDING_MODEL_MISMATCH',
      );
      expect(errors).toEqual([]);
      const listed = (reply.body.data!.experiences as any).edges.map((edge: any) => edge.node.experienceId);
      expect(listed).toContain('good-experience');
      expect(listed).toHaveLength(2);
    } finally {
      await app.db.collection('eat_agent_experiences').deleteOne({ _id: insertedId });
    }
  });

  it.each(SESSIONS)('a session with %s leaves listings and analytics working', async (_, poison) => {
    await app.db.collection('sessions').insertOne(session('poison', poison));
    try {
      const reply = await readAll();
      expect(reply.body.errors).toBeUndefined();
      const listed = (reply.body.data!.sessions as any).edges.map((edge: any) => edge.node.sessionId);
      expect(listed.sort()).toEqual(['good-session', 'poison']);
    } finally {
      await app.db.collection('sessions').deleteOne({ _id: 'poison' as never });
    }
  });

  it.each(TASKS)('a task with %s leaves listings and similar tasks working', async (_, poison) => {
    const { insertedId } = await app.db.collection('tasks').insertOne(task('poison', poison));
    try {
      const reply = await readAll();
      const errors = (reply.body.errors ?? []).filter(
        (error) => error.extensions?.reason !== 'EMBEDDING_MODEL_MISMATCH',
      );
      expect(errors).toEqual([]);
      expect((reply.body.data!.tasks as any).totalCount).toBe(2);
    } finally {
      await app.db.collection('tasks').deleteOne({ _id: insertedId });
    }
  });
});
