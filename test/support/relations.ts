/**
 * The relations of the API that go through DataLoader, each resolved on a list of parents, and the data they are
 * resolved on: what test/modules/shared/loaders.test.ts asserts relation by relation and bench/batching.ts prints.
 * Each relation's operation runs once with the request's loaders batching and once with them switched off
 * (`createContext(deps, { batching: false })`), counting the database commands the driver sends.
 */
import type { Db } from 'mongodb';

/** Parents per list: every relation below is resolved for this many parents. */
export const PARENTS = 50;
/** The relations are asked for through PARENTS aliases: above the default alias limit, which these proofs raise. */
export const BATCHING_LIMITS = { maxAliases: PARENTS };
const AGENTS = ['planner', 'writer'];
const MESSAGES_PER_AGENT = 25;
/** Sessions seeded: twice the parents, so that list-length tests can page 100 of them. */
export const SESSIONS = 2 * PARENTS;
/** Experiences seeded: the PARENTS newest have sessions; the rest are older, so `similar` also finds unlisted ones. */
const EXPERIENCES = PARENTS + 10;

const pad = (index: number) => String(index).padStart(3, '0');
export const sessionId = (index: number) => `bs-${pad(index)}`;
export const experienceId = (index: number) => `be-${pad(index)}`;
export const taskId = (index: number) => `bt-${pad(index)}`;
export const patternId = (index: number) => `bp-${pad(index)}`;
const minute = (index: number) => new Date(Date.UTC(2025, 0, 1, 0, index));

/** Runs one operation (failing on GraphQL errors) with the request's loaders batching or not. */
export type Runner = (query: string, variables?: Record<string, unknown>, batching?: boolean) => Promise<unknown>;

/** One relation of the API, resolved on a list of parents. */
export interface RelationCase {
  /** `Type.field` of the relation (or the root field whose aliases share a loader). */
  relation: string;
  /** Parents the relation is resolved for (agents: two per session). */
  parents: number;
  /** The operation resolving the relation on every parent. */
  query: string;
  /** The same operation without the relation: its commands are the parents' own reads. */
  parentsOnly: string;
  /** Reads the relation costs with batching: one per loader it goes through (0: served by the parents' read). */
  batchedReads: number;
  /** Reads it costs without batching: one per parent and loader (and per neighbour for `similar`). */
  unbatchedReads: number;
  /** Batched in the in-process index only: with VECTOR_SEARCH=atlas each parent's search is its own command. */
  inProcessSearchOnly?: true;
}

/**
 * Atlas's `$vectorSearch` takes one query vector per command, so with VECTOR_SEARCH=atlas a `similar` per parent is one
 * search command per parent: the batching figures of `similar` hold for the in-process index only.
 */
export const ONE_SEARCH_PER_PARENT = process.env.VECTOR_SEARCH === 'atlas';

const aliases = (field: (index: number) => string) =>
  `query {\n${Array.from({ length: PARENTS }, (_, index) => `  r${index}: ${field(index)}`).join('\n')}\n}`;
const experiencesWith = (fields: string) =>
  `query { experiences(first: ${PARENTS}) { edges { node { experienceId ${fields} } } } }`;
const SIMILAR_LIMIT = 2;

/**
 * Every relation field of src/modules/<feature>/*.resolver.ts that reads the database, plus the root lookups by id
 * that share its loaders. Relations answered from the parent's own read (Session.agents, Agent.lastMessage,
 * Agent.messageCount, Session.agent, SimilarTask.task) cost no command and are covered by the list-length test.
 */
export const RELATIONS: RelationCase[] = [
  {
    relation: 'Experience.session',
    parents: PARENTS,
    query: experiencesWith('session { sessionId sessionType }'),
    parentsOnly: experiencesWith(''),
    batchedReads: 1,
    unbatchedReads: PARENTS,
  },
  {
    relation: 'Experience.embeddings',
    parents: PARENTS,
    query: experiencesWith('embeddings { primaryGoalDescription }'),
    parentsOnly: experiencesWith(''),
    batchedReads: 1,
    unbatchedReads: PARENTS,
  },
  {
    // Its vectors (one read), then its ranked pool of neighbours (the closest max(4 × limit, 20)): those on the listed
    // page come from the request's cache, the others in one read. Unbatched: one vector read per parent, and per
    // neighbour of the pool one read to rank it and one to answer it. (Relevance, not score: the score's recency factor
    // moves with the clock between the two runs.)
    relation: 'Experience.similar',
    parents: PARENTS,
    query: experiencesWith(`similar(limit: ${SIMILAR_LIMIT}) { relevance experience { experienceId } }`),
    parentsOnly: experiencesWith(''),
    batchedReads: 2,
    unbatchedReads: PARENTS * (1 + 2 * Math.max(4 * SIMILAR_LIMIT, 20)),
    inProcessSearchOnly: true,
  },
  {
    // The pages come with the sessions' own read (session.selection.ts): no read of their own when batching, one
    // per agent without (the loaders' cache, which the sessions' read primes, is off then).
    relation: 'Agent.messages',
    parents: PARENTS * AGENTS.length,
    query: `query { sessions(first: ${PARENTS}) { edges { node { sessionId agents { agentId messages(last: 20) { totalCount edges { node { messageId text } } } } } } } }`,
    parentsOnly: `query { sessions(first: ${PARENTS}) { edges { node { sessionId agents { agentId } } } } }`,
    batchedReads: 0,
    unbatchedReads: PARENTS * AGENTS.length,
  },
  {
    relation: 'Experience.supersedes',
    parents: PARENTS,
    query: experiencesWith('supersedes { experienceId }'),
    parentsOnly: experiencesWith(''),
    batchedReads: 1,
    unbatchedReads: PARENTS,
  },
  {
    relation: 'Experience.history',
    parents: PARENTS,
    query: experiencesWith('history { type at }'),
    parentsOnly: experiencesWith(''),
    batchedReads: 1,
    unbatchedReads: PARENTS,
  },
  {
    relation: 'AgentInsight.supersedes',
    parents: PARENTS,
    query: `query { agentInsights(agentType: EXECUTOR, limit: ${PARENTS}) { insights { id supersedes { id } } } }`,
    parentsOnly: `query { agentInsights(agentType: EXECUTOR, limit: ${PARENTS}) { insights { id } } }`,
    batchedReads: 1,
    unbatchedReads: PARENTS,
  },
  {
    relation: 'AgentInsight.history',
    parents: PARENTS,
    query: `query { agentInsights(agentType: EXECUTOR, limit: ${PARENTS}) { insights { id history { type at } } } }`,
    parentsOnly: `query { agentInsights(agentType: EXECUTOR, limit: ${PARENTS}) { insights { id } } }`,
    batchedReads: 1,
    unbatchedReads: PARENTS,
  },
  {
    relation: 'InsightEvidence.task',
    parents: PARENTS,
    query: `query { agentInsights(agentType: EXECUTOR, limit: ${PARENTS}) { insights { id evidence { taskId task { taskId goal status } } } } }`,
    parentsOnly: `query { agentInsights(agentType: EXECUTOR, limit: ${PARENTS}) { insights { id evidence { taskId } } } }`,
    batchedReads: 1,
    unbatchedReads: PARENTS,
  },
  {
    relation: 'Task.plan',
    parents: PARENTS,
    query: `query { tasks(first: ${PARENTS}) { edges { node { taskId plan { patternId goalPattern usageCount } } } } }`,
    parentsOnly: `query { tasks(first: ${PARENTS}) { edges { node { taskId } } } }`,
    batchedReads: 1,
    unbatchedReads: PARENTS,
  },
  {
    relation: 'Task.actions',
    parents: PARENTS,
    query: `query { tasks(first: ${PARENTS}) { edges { node { taskId actions(limit: 10) { iteration toolCalls { name outcome } } } } } }`,
    parentsOnly: `query { tasks(first: ${PARENTS}) { edges { node { taskId } } } }`,
    batchedReads: 1,
    unbatchedReads: PARENTS,
  },
  {
    relation: 'Task.attempts',
    parents: PARENTS,
    query: `query { tasks(first: ${PARENTS}) { edges { node { taskId attempts } } } }`,
    parentsOnly: `query { tasks(first: ${PARENTS}) { edges { node { taskId } } } }`,
    batchedReads: 1,
    unbatchedReads: PARENTS,
  },
  {
    // Two levels: each experience's session, then each of those sessions' agents' messages (read with the sessions).
    relation: 'Experience.session.agents.messages',
    parents: PARENTS,
    query: experiencesWith(
      'session { sessionId agents { agentId messages(last: 5) { edges { node { messageId } } } } }',
    ),
    parentsOnly: experiencesWith(''),
    batchedReads: 1,
    unbatchedReads: PARENTS + PARENTS * AGENTS.length,
  },
  {
    relation: 'Query.session (aliases)',
    parents: PARENTS,
    query: aliases((index) => `session(id: "${sessionId(index)}") { sessionId messageCount }`),
    parentsOnly: '{ __typename }',
    batchedReads: 1,
    unbatchedReads: PARENTS,
  },
  {
    relation: 'Query.experience (aliases)',
    parents: PARENTS,
    query: aliases((index) => `experience(id: "${experienceId(index)}") { experienceId }`),
    parentsOnly: '{ __typename }',
    batchedReads: 1,
    unbatchedReads: PARENTS,
  },
  {
    relation: 'Query.task (aliases)',
    parents: PARENTS,
    query: aliases((index) => `task(id: "${taskId(index)}") { taskId }`),
    parentsOnly: '{ __typename }',
    batchedReads: 1,
    unbatchedReads: PARENTS,
  },
  {
    relation: 'Query.planPattern (aliases)',
    parents: PARENTS,
    query: aliases((index) => `planPattern(id: "${patternId(index)}") { patternId }`),
    parentsOnly: '{ __typename }',
    batchedReads: 1,
    unbatchedReads: PARENTS,
  },
];

/** A seed 001 session with two agents of MESSAGES_PER_AGENT messages each. */
function sessionDocument(index: number) {
  const at = minute(index);
  const messages = (agent: string) =>
    Array.from({ length: MESSAGES_PER_AGENT }, (_, m) => ({
      message_id: m + 1,
      role: m % 2 ? 'assistant' : 'user',
      content: `${agent} of session ${index}, message ${m + 1}`,
      created_at: at,
      updated_at: at,
    }));
  return {
    _id: sessionId(index),
    session_id: sessionId(index),
    session_type: 'default',
    created_at: at,
    updated_at: at,
    metadata: {},
    feedbacks: [],
    agents: Object.fromEntries(
      AGENTS.map((agent) => [
        agent,
        { agent_data: { agent_id: agent }, created_at: at, updated_at: at, messages: messages(agent) },
      ]),
    ),
  };
}

/** A seed 002 plan pattern. */
function planPatternDocument(index: number) {
  const at = minute(index);
  return {
    patternId: patternId(index),
    goalPattern: `create_shipment_for_facility_${index}`,
    stepSequence: ['list_facilities', 'create_shipment'],
    steps: [],
    exampleGoal: `Create a shipment for facility ${index}`,
    successRate: 1,
    avgExecutionTime: 1000,
    commonIssues: [],
    usageCount: 1,
    successCount: 1,
    failureCount: 0,
    totalExecutionTime: 1000,
    issues: [],
    createdAt: at,
    lastUsed: at,
  };
}

const TOPICS = [
  'billing',
  'shipping',
  'returns',
  'onboarding',
  'search',
  'reports',
  'alerts',
  'exports',
  'imports',
  'audits',
];

/**
 * Seeds the parents and their relations: SESSIONS sessions (two agents, MESSAGES_PER_AGENT messages each),
 * EXPERIENCES experiences (the PARENTS newest each with its own session), PARENTS plan patterns, PARENTS tasks (each
 * naming its own plan, with one recorded action) and PARENTS insights (each with one task as evidence). Experiences,
 * tasks, actions and insights go through the API, so that they are embedded and indexed as in use.
 */
export async function seedRelations(db: Db, run: Runner): Promise<void> {
  await db
    .collection('sessions')
    .insertMany(Array.from({ length: SESSIONS }, (_, index) => sessionDocument(index)) as never[]);
  await db
    .collection('plan_patterns')
    .insertMany(Array.from({ length: PARENTS }, (_, index) => planPatternDocument(index)));
  const inputs = Array.from({ length: EXPERIENCES }, (_, index) => ({
    experienceId: experienceId(index),
    primaryGoalDescription: `Resolve the ${TOPICS[index % TOPICS.length]} request of customer ${index}`,
    subTaskDescription: `Check the ${TOPICS[(index + 3) % TOPICS.length]} records`,
    initiatingAgentId: 'planner',
    finalOutcome: 'SUCCESS',
    // The PARENTS newest are listed first (newest first) and each has its own session.
    timestamp: minute(EXPERIENCES - index).toISOString(),
    ...(index < PARENTS ? { sessionId: sessionId(index) } : {}),
  }));
  await run(
    'mutation Seed($inputs: [RecordExperienceInput!]!) { recordExperiences(inputs: $inputs) { experienceId } }',
    { inputs },
  );
  for (let index = 0; index < PARENTS; index++) {
    await run('mutation Seed($input: RecordTaskInput!) { recordTask(input: $input) { taskId } }', {
      input: {
        taskId: taskId(index),
        originalQuery: `Create a shipment for facility ${index}`,
        goal: `Create a shipment for facility ${index}`,
        planId: patternId(index),
        status: 'COMPLETED',
        createdAt: minute(index).toISOString(),
      },
    });
    await run(
      'mutation Seed($taskId: ID!, $input: RecordActionInput!) { recordAction(taskId: $taskId, input: $input) { taskId } }',
      {
        taskId: taskId(index),
        input: {
          mode: 'FAST',
          thinking: 'Look the facility up first',
          toolCalls: [{ name: 'list_facilities', args: { facility: index }, outcome: 'SUCCESS' }],
        },
      },
    );
    await run('mutation Seed($input: RecordInsightInput!) { recordInsight(input: $input) { id } }', {
      input: {
        agentType: 'EXECUTOR',
        type: 'PATTERNS',
        insight: `Facility ${index} needs its code checked first`,
        evidence: [{ taskId: taskId(index), description: `seen in task ${index}` }],
      },
    });
  }
}

/** One relation's figures: whole-request command counts with and without batching, and the relation's own reads. */
export interface BatchingFigures {
  relation: string;
  query: string;
  parents: number;
  batchedCommands: number;
  unbatchedCommands: number;
  /** unbatchedCommands / batchedCommands. */
  ratio: number;
  /** Commands the relation adds to its parents' reads. */
  batchedRelationReads: number;
  unbatchedRelationReads: number;
  /** Whether both runs returned the same data (they must). */
  sameData: boolean;
}

/** Runs an operation and counts the commands it sent. */
export type CountingRunner = (query: string, batching: boolean) => Promise<{ data: unknown; commands: number }>;

/**
 * Measures one relation: its operation once to warm one-time checks, then batched, unbatched, and its parents alone.
 */
export async function measureRelation(relation: RelationCase, count: CountingRunner): Promise<BatchingFigures> {
  await count(relation.query, true);
  const batched = await count(relation.query, true);
  const unbatched = await count(relation.query, false);
  const parents = await count(relation.parentsOnly, true);
  return {
    relation: relation.relation,
    query: relation.query,
    parents: relation.parents,
    batchedCommands: batched.commands,
    unbatchedCommands: unbatched.commands,
    ratio: unbatched.commands / batched.commands,
    batchedRelationReads: batched.commands - parents.commands,
    unbatchedRelationReads: unbatched.commands - parents.commands,
    sameData: JSON.stringify(batched.data) === JSON.stringify(unbatched.data),
  };
}
