/**
 * The operations the benchmark drives: each is one GraphQL document with variables drawn per request (other ids,
 * other texts, so no cache serves a whole run), and for the plain database reads the baseline's path for the same
 * variables (bench/baseline-server.ts answers it with the same reads, without GraphQL).
 */
import { seededRandom } from '../test/support/vectors';
import {
  EXPERIENCE_SPACING_MS,
  SEED_EPOCH,
  SESSION_SPACING_MS,
  experienceTexts,
  pick,
  userMessage,
  type Random,
  type SeedManifest,
  type SeedSizes,
} from './seed';

export interface Operation {
  name: string;
  /** What it does, for the table. */
  description: string;
  kind: 'read' | 'write';
  query: string;
  /** The variables of the next request. */
  variables(r: Random): Record<string, unknown>;
  /** Also measured from one connection (latency without queueing): the operations with an end-to-end latency target. */
  singleClient?: boolean;
  /** The baseline's path for the same variables; absent where there is no plain-driver equivalent. */
  baselinePath?(variables: Record<string, unknown>): string;
  /** Concurrent connections of its load, where not the run's (`--connections`). */
  connections?: number;
}

const param = (value: unknown) => encodeURIComponent(String(value));

/** A time between the first and the last seeded record of a kind (ISO), so that a page before it is usually full. */
function timeWithin(r: Random, count: number, spacingMs: number): string {
  const span = count * spacingMs;
  const least = Math.min(span, 50 * spacingMs);
  return new Date(SEED_EPOCH + least + r() * (span - least)).toISOString();
}

/**
 * The part of the sessions (the newest half) that appendMessage writes to. An append moves its session's updated_at to
 * now, out of the range the pages are drawn from, so the pages stay full for every later target: the shared target
 * reads after the embedded target's writes.
 */
const APPENDED_SESSIONS = 0.5;

/** The eight operations of issue 7 over the seeded data, appendMessage also at its target's 32 connections. */
export function operations(manifest: SeedManifest, sizes: SeedSizes): Operation[] {
  const session = (r: Random) => pick(r, manifest.sessions);
  const paged = Math.floor(sizes.sessions * (1 - APPENDED_SESSIONS));
  const appendedSessions = manifest.sessions.slice(paged);
  const appendMessage: Operation = {
    name: 'appendMessage',
    description: 'append a user message to an agent of a session',
    kind: 'write',
    query: `mutation Append($sessionId: ID!, $agentId: String!, $input: AppendMessageInput!) {
  appendMessage(sessionId: $sessionId, agentId: $agentId, input: $input) { messageId createdAt }
}`,
    variables: (r) => {
      const { id, agents } = pick(r, appendedSessions);
      return { sessionId: id, agentId: pick(r, agents), input: { role: 'USER', content: userMessage(r) } };
    },
  };
  return [
    {
      name: 'session',
      description: 'session by id with its agents and their last 20 messages',
      kind: 'read',
      query: `query Session($id: ID!) {
  session(id: $id) {
    sessionId sessionType createdAt updatedAt metadata
    agents { agentId messageCount agentData { model } messages(last: 20) { edges { node { messageId role content createdAt } } } }
  }
}`,
      variables: (r) => ({ id: session(r).id }),
      baselinePath: (v) => `/session?id=${param(v.id)}`,
    },
    {
      name: 'sessionsPage',
      description: 'a page of 20 sessions, each agent with its last message',
      kind: 'read',
      query: `query Sessions($before: DateTimeISO!) {
  sessions(first: 20, filter: { updatedBefore: $before }) {
    edges { node { sessionId sessionType updatedAt agents { agentId messageCount lastMessage { messageId role content createdAt } } } }
    pageInfo { hasNextPage endCursor }
  }
}`,
      variables: (r) => ({ before: timeWithin(r, paged, SESSION_SPACING_MS) }),
      baselinePath: (v) => `/sessions?before=${param(v.before)}`,
    },
    appendMessage,
    // The target for appends is set at 32 connections.
    { ...appendMessage, name: 'appendMessage32', description: 'appendMessage at 32 connections', connections: 32 },
    {
      name: 'recordExperience',
      description: 'record an experience (4 texts embedded and indexed)',
      kind: 'write',
      query: `mutation Record($input: RecordExperienceInput!) {
  recordExperience(input: $input) { experienceId timestamp }
}`,
      variables: (r) => ({
        input: {
          ...experienceTexts(r),
          initiatingAgentId: `agent-${1 + Math.floor(r() * 20)}`,
          finalOutcome: pick(r, ['SUCCESS', 'FAILURE', 'PARTIAL_SUCCESS']),
          sessionId: session(r).id,
          tags: ['bench'],
        },
      }),
    },
    {
      name: 'searchExperiences',
      description: `hybrid search over ${sizes.experiences} experiences (4 fields), top 10`,
      kind: 'read',
      singleClient: true,
      query: `query Search($query: String!) {
  searchExperiences(query: $query, limit: 10) { score vectorScore keywordScore matchedField experience { experienceId primaryGoalDescription finalOutcome } }
}`,
      variables: (r) => ({ query: pick(r, manifest.experienceQueries) }),
    },
    {
      name: 'similarTasks',
      description: `similar tasks by query and goal over ${sizes.tasks} tasks, top 10`,
      kind: 'read',
      query: `query Similar($query: String!, $goal: String!) {
  similarTasks(query: $query, goal: $goal, limit: 10, minSimilarity: 0) { count tasks { taskId similarity goal status } }
}`,
      variables: (r) => pick(r, manifest.taskQueries),
    },
    {
      name: 'toolPerformance',
      description: 'tool performance in a context, with recommendations',
      kind: 'read',
      query: `query Tool($toolName: String!, $context: String) {
  toolPerformance(toolName: $toolName, context: $context) {
    toolName context totalExecutions successRate avgDuration commonErrors { error frequency percentage } optimalContext recommendations
  }
}`,
      variables: (r) => ({ toolName: pick(r, manifest.toolNames), context: pick(r, manifest.contexts) }),
      baselinePath: (v) => `/tool?name=${param(v.toolName)}&context=${param(v.context)}`,
    },
    {
      name: 'experiencesWithSessions',
      description: 'nested: 50 experiences, each with its session',
      kind: 'read',
      query: `query Nested($until: DateTimeISO!) {
  experiences(first: 50, filter: { until: $until }) {
    edges { node { experienceId primaryGoalDescription finalOutcome timestamp session { sessionId sessionType updatedAt } } }
  }
}`,
      variables: (r) => ({ until: timeWithin(r, sizes.experiences, EXPERIENCE_SPACING_MS) }),
      baselinePath: (v) => `/experiences?until=${param(v.until)}`,
    },
  ];
}

/** A request generator for an operation: a seeded stream of variables (the same sequence on every run). */
export function variableStream(operation: Operation, seed: number): () => Record<string, unknown> {
  const r = seededRandom(seed);
  return () => operation.variables(r);
}
