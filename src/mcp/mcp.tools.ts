import {
  getNamedType,
  GraphQLEnumType,
  GraphQLInputObjectType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLScalarType,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLSchema,
} from 'graphql';
import type { Role } from '../auth/caller';

/**
 * An MCP tool: one root field of the GraphQL schema, run as a GraphQL operation for the caller, so it goes through the
 * same resolver, service, validation and `@Authorized` role as the field itself. Its arguments are the field's.
 */
export interface ToolSpec {
  name: string;
  /** `Query.searchExperiences` or `Mutation.recordExperience`. */
  field: `${'Query' | 'Mutation'}.${string}`;
  /** For a model choosing a tool: when to use it and what it returns. */
  description: string;
  /** The GraphQL selection of the result: what the tool answers, kept compact. */
  selection: string;
}

const EXPERIENCE = `experienceId primaryGoalDescription subTaskDescription finalOutcome initiatingAgentId
  inputContextSummary outputSummary involvedComponents tags timestamp sessionId workflowId userId occurrences
  lastSeenAt`;
const SUCCESS_METRICS = 'successMetrics { executionTime retries stepsCompleted userInputsRequired }';

export const TOOLS: readonly ToolSpec[] = [
  {
    name: 'recall',
    field: 'Query.recall',
    description:
      'Call this first, before starting a task: describe the task in query and get, in one call, what you should ' +
      'know for it as Markdown ready to read: relevant past experiences (outcome and lessons), insights, plans that ' +
      'worked, warnings about tools that failed on similar tasks, and relevant past messages. The text never ' +
      'exceeds budget tokens (default 2000); items list what was chosen and why. Pass scope.userId (and agentId, ' +
      'sessionId) when working for one end user, agent or session, and include to ask for some parts only.',
    selection: 'text tokens budget items { kind id score why tokens }',
  },
  {
    name: 'search_experiences',
    field: 'Query.searchExperiences',
    description:
      'Search past agent experiences (what was tried, what happened) by meaning and keywords. Use before starting ' +
      'a task to learn from similar earlier work. Returns the best matches with their score: relevance to the query, ' +
      'lowered a little for failures, old memories and ones that feedback marked wrong (pass ranking: ' +
      '{ relevanceOnly: true } for relevance alone). Pass diversity: 0.5 to see different memories rather than ' +
      'variants of one. When working for one end user, pass filter.userId to search only the memories about that user.',
    selection: `score relevance matchedField experience { ${EXPERIENCE} }`,
  },
  {
    name: 'record_experience',
    field: 'Mutation.recordExperience',
    description:
      'Record one experience after finishing a piece of work: the goal, the sub-task, the outcome ' +
      '(SUCCESS, FAILURE, PARTIAL_SUCCESS...) and what was learned, so later agents can find it with search_experiences. ' +
      'Set userId when the experience is about one end user. ' +
      'Recording the same goal and sub-task with the same outcome again returns the stored experience with one more ' +
      'occurrence (and the new tags) instead of a copy; pass dedupe: false to keep a separate record.',
    selection: EXPERIENCE,
  },
  {
    name: 'similar_tasks',
    field: 'Query.similarTasks',
    description:
      'Find earlier tasks similar to a user query or goal, with their status and success metrics. Use to see how ' +
      'comparable requests went before planning.',
    selection: `count tasks { taskId goal query status userId similarity executionTime ${SUCCESS_METRICS} }`,
  },
  {
    name: 'successful_plans',
    field: 'Query.successfulPlans',
    description:
      'Plans that worked for goals like this one, best first, with their steps and success rate. Reuse a plan by ' +
      'passing its planId to record_task and learn_from_task.',
    selection:
      'count plans { planId goal successRate usageCount avgExecutionTime score commonIssues steps { order action } }',
  },
  {
    name: 'tool_performance',
    field: 'Query.toolPerformance',
    description:
      'How well a tool has worked: success rate, average duration, common errors and advice, optionally in one ' +
      'context. Use before choosing between tools.',
    selection: `toolName context totalExecutions successRate avgDuration recommendations optimalContext
      commonErrors { error frequency percentage }`,
  },
  {
    name: 'agent_insights',
    field: 'Query.agentInsights',
    description:
      'Lessons learned for a kind of agent (PLANNER, EXECUTOR, ...), most confident first. Read them before acting.',
    selection: 'count insights { id type insight confidence evidenceCount userId agentId }',
  },
  {
    name: 'supersede_memory',
    field: 'Mutation.supersedeMemory',
    description:
      'Replace a memory (kind EXPERIENCE or INSIGHT) that turned out wrong or outdated by a newer one of the same ' +
      'kind: record or find the correct memory first, then pass the wrong one as id and the correct one as by. The ' +
      'old memory stops appearing in searches and lists, and points to its replacement. Use retire_memory instead ' +
      'when nothing replaces it.',
    selection: `kind experience { experienceId status validUntil endedReason supersededBy { experienceId } }
      insight { id status validUntil endedReason supersededBy { id } }`,
  },
  {
    name: 'retire_memory',
    field: 'Mutation.retireMemory',
    description:
      'End a memory (kind EXPERIENCE or INSIGHT) that is no longer true and that nothing replaces, with the reason. ' +
      'It stops appearing in searches and lists. Use supersede_memory instead when a newer memory corrects it.',
    selection: `kind experience { experienceId status validUntil endedReason }
      insight { id status validUntil endedReason }`,
  },
  {
    name: 'learn_from_task',
    field: 'Mutation.learnFromTask',
    description:
      'After a recorded task finishes: give its outcome, metrics and the insights gained. Updates plan patterns, ' +
      'tool performance and agent insights. Safe to repeat: a task is learned once.',
    selection: 'success alreadyLearned patternId patternsLearned insightsStored',
  },
  {
    name: 'record_task',
    field: 'Mutation.recordTask',
    description:
      'Record a task an agent is working on or finished: the user query, the goal, its status and plan steps. ' +
      'Returns the taskId that record_action and learn_from_task take.',
    selection: `taskId goal originalQuery status planId context userId createdAt steps { stepId order action } ${SUCCESS_METRICS}`,
  },
  {
    name: 'record_action',
    field: 'Mutation.recordAction',
    description:
      "Record one iteration of a task's run (thinking, planning, tool calls and their results, reflection); the " +
      'iteration number is allocated when omitted.',
    selection: 'taskId action { iteration mode approach timestamp toolCalls { name outcome } }',
  },
  {
    name: 'append_message',
    field: 'Mutation.appendMessage',
    description:
      "Append one message (role and content) to an agent's conversation in a session; the session and agent must " +
      'exist. Returns the message with its messageId.',
    selection: 'messageId role text createdAt',
  },
  {
    name: 'get_session',
    field: 'Query.session',
    description:
      'Read a session: its metadata and, per agent, the message count and the last 20 messages. NOT_FOUND when the ' +
      'session does not exist.',
    selection: `sessionId sessionType userId createdAt updatedAt metadata messageCount
      agents { agentId messageCount messages(last: 20) { edges { node { messageId role text createdAt } } } }`,
  },
  {
    name: 'search_messages',
    field: 'Query.searchMessages',
    description:
      'Search what was said in past conversations (the text of stored messages) by meaning and keywords: "what did ' +
      'the user say about X". Narrow with filter (sessionId, agentId, userId, role, since, until); pass context: 2 ' +
      'to also get the two messages before and after each hit. Returns the best matches with their score, session ' +
      'and agent; a redacted message is found by its redaction only.',
    selection: `sessionId agentId score message { messageId role text createdAt }
      before { messageId role text } after { messageId role text }`,
  },
  {
    name: 'forget',
    field: 'Mutation.forget',
    description:
      'Permanently erase everything stored about one end user (scope.userId), one session (scope.sessionId) or one ' +
      'agent (scope.agentId): sessions and messages, experiences, tasks, insights, their history and what was ' +
      'learned only from them. Irreversible: use it only when the user asks for their data to be deleted, never to ' +
      'tidy up or to correct a memory. Call with dryRun: true first and tell the user what will go. Returns the ' +
      'counts per collection.',
    selection: 'scope dryRun searchEntriesRemoved erasedFromDisk counts { collection deleted changed messagesRemoved }',
  },
];

/** A tool as MCP lists it, with the role its GraphQL field requires. */
export interface ToolDefinition {
  spec: ToolSpec;
  role: Role;
  inputSchema: JsonSchema & { type: 'object' };
  /** The GraphQL operation run for a call; the call's arguments are its variables. */
  document: string;
  argumentNames: ReadonlySet<string>;
}

export type JsonSchema = Record<string, unknown>;

/**
 * Builds each tool from `schema`: its input schema and operation from the field's arguments, its role from `roles`
 * (rootFieldRoles). Throws when a tool names a field the schema lacks.
 */
export function defineTools(schema: GraphQLSchema, roles: ReadonlyMap<string, Role>): ToolDefinition[] {
  return TOOLS.map((spec) => {
    const [typeName, fieldName] = spec.field.split('.');
    const type = typeName === 'Query' ? schema.getQueryType() : schema.getMutationType();
    const field = type?.getFields()[fieldName];
    const role = roles.get(spec.field);
    if (!field || !role) throw new Error(`MCP tool ${spec.name}: no root field ${spec.field}`);
    return {
      spec,
      role,
      inputSchema: argumentsSchema(field.args),
      document: operation(typeName === 'Query' ? 'query' : 'mutation', field, spec.selection),
      argumentNames: new Set(field.args.map((arg) => arg.name)),
    };
  });
}

/**
 * `query($a: T, ...) { field(a: $a, ...) { selection } }`. An argument with a default gets a nullable variable, so an
 * omitted one takes the field's default.
 */
function operation(kind: 'query' | 'mutation', field: GraphQLField<unknown, unknown>, selection: string): string {
  const variables = field.args.map((arg) => {
    const type = arg.defaultValue !== undefined && arg.type instanceof GraphQLNonNull ? arg.type.ofType : arg.type;
    return `$${arg.name}: ${String(type)}`;
  });
  const args = field.args.map((arg) => `${arg.name}: $${arg.name}`);
  const list = (items: string[]) => (items.length ? `(${items.join(', ')})` : '');
  return `${kind}${list(variables)} { ${field.name}${list(args)} { ${selection} } }`;
}

function argumentsSchema(args: readonly GraphQLArgument[]): JsonSchema & { type: 'object' } {
  return objectSchema(
    args.map((arg) => ({ ...arg, required: arg.type instanceof GraphQLNonNull && arg.defaultValue === undefined })),
    new Set(),
  );
}

interface SchemaField {
  name: string;
  description?: string | null;
  type: GraphQLInputType;
  required: boolean;
}

function objectSchema(fields: readonly SchemaField[], seen: Set<string>): JsonSchema & { type: 'object' } {
  const properties: Record<string, JsonSchema> = {};
  for (const field of fields) {
    properties[field.name] = {
      ...typeSchema(field.type, seen),
      ...(field.description ? { description: field.description } : {}),
    };
  }
  const required = fields.filter((field) => field.required).map((field) => field.name);
  return { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false };
}

/** GraphQL input type → JSON Schema; a recursive input type is described as an object from its second occurrence. */
function typeSchema(type: GraphQLInputType, seen: Set<string>): JsonSchema {
  if (type instanceof GraphQLNonNull) return typeSchema(type.ofType, seen);
  if (type instanceof GraphQLList) return { type: 'array', items: typeSchema(type.ofType, seen) };
  if (type instanceof GraphQLEnumType) return { type: 'string', enum: type.getValues().map((value) => value.name) };
  if (type instanceof GraphQLInputObjectType) {
    if (seen.has(type.name)) return { type: 'object' };
    const inner = new Set(seen).add(type.name);
    return objectSchema(
      Object.values(type.getFields()).map((field) => ({
        ...field,
        required: field.type instanceof GraphQLNonNull && field.defaultValue === undefined,
      })),
      inner,
    );
  }
  return scalarSchema(getNamedType(type) as GraphQLScalarType);
}

function scalarSchema(scalar: GraphQLScalarType): JsonSchema {
  switch (scalar.name) {
    case 'Int':
      return { type: 'integer' };
    case 'Float':
      return { type: 'number' };
    case 'Boolean':
      return { type: 'boolean' };
    case 'String':
    case 'ID':
      return { type: 'string' };
    case 'DateTimeISO':
      return { type: 'string', format: 'date-time' };
    case 'JSONObject':
      return { type: 'object' };
    default:
      // JSON: any value.
      return {};
  }
}
