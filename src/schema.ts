import 'reflect-metadata';
import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
import { buildSchema, type PubSub } from 'type-graphql';
import { DateTimeISO } from './graphql/date-time';
import { ServerInfoResolver } from './modules/server-info/server-info.resolver';
import { ExperienceResolver } from './modules/experiences/experience.resolver';
import { ReembedResolver } from './modules/reembed/reembed.resolver';
import { AgentResolver, SessionAnalyticsResolver, SessionResolver } from './modules/sessions/session.resolver';
import { InsightEvidenceResolver, TaskResolver } from './modules/tasks/task.resolver';
import { PlanResolver } from './modules/plans/plan.resolver';
import { ToolResolver } from './modules/tools/tool.resolver';
import { RunResolver, TaskRunResolver } from './modules/runs/run.resolver';
import { InsightResolver } from './modules/insights/insight.resolver';
import { ApiKeyResolver } from './modules/api-keys/api-key.resolver';
import { BackupResolver } from './modules/backup/backup.resolver';
import { ForgetResolver } from './modules/forget/forget.resolver';
import { MessageSearchResolver } from './modules/messages/message.resolver';
import { NODE_RESOLVERS } from './modules/nodes/node.resolver';
import { resolveNodeTypes } from './modules/shared/node';
import { SubscriptionResolver } from './modules/subscriptions/subscription.resolver';
import { ValidityResolver } from './modules/validity/validity.resolver';
import { RecallResolver } from './modules/recall/recall.resolver';
import { authChecker, rootFieldRoles } from './auth/auth-checker';
import { reportStoredValues } from './modules/shared/stored-values';
import { renderWideNumbers } from './modules/shared/json-output';

/** The object types mapped from stored documents through a StoredReader, whose substitutes are reported. */
const STORED_TYPES = [
  'Experience',
  'EmbeddingsInfo',
  'Task',
  'SuccessMetrics',
  'PlanStep',
  'Action',
  'ToolCall',
  'Hypothesis',
  'Session',
  'Agent',
  'Message',
  'Feedback',
  'PlanPattern',
  'AgentInsight',
  'ToolPerformance',
];

/** Every resolver class of the API; a feature adds its resolvers here. */
export const resolvers = [
  ServerInfoResolver,
  ExperienceResolver,
  ReembedResolver,
  SessionResolver,
  AgentResolver,
  SessionAnalyticsResolver,
  MessageSearchResolver,
  TaskResolver,
  PlanResolver,
  ToolResolver,
  RunResolver,
  TaskRunResolver,
  InsightResolver,
  InsightEvidenceResolver,
  ApiKeyResolver,
  BackupResolver,
  ForgetResolver,
  ...NODE_RESOLVERS,
  SubscriptionResolver,
  ValidityResolver,
  RecallResolver,
] as const;

const NO_PUBSUB: PubSub = {
  publish: () => {
    throw new Error('Subscriptions read change streams; nothing is published in process.');
  },
  subscribe: () => {
    throw new Error('Subscriptions read change streams; nothing is published in process.');
  },
};

/** Builds the executable schema from the type-graphql classes; refuses one whose root fields lack a role. */
export async function buildAppSchema(): Promise<GraphQLSchema> {
  const schema = await buildSchema({
    resolvers: [...resolvers],
    // No input class carries class-validator decorators (services validate), so validating would only load and walk
    // class-validator's empty metadata for every object argument of every request.
    validate: false,
    scalarsMap: [{ type: Date, scalar: DateTimeISO }],
    authChecker,
    // Every subscription has its own `subscribe` (the change follower's events); type-graphql still wants a PubSub.
    pubSub: NO_PUBSUB,
  });
  rootFieldRoles(schema, resolvers);
  reportStoredValues(schema, STORED_TYPES);
  renderWideNumbers(schema);
  resolveNodeTypes(schema);
  return schema;
}

export const SCHEMA_HEADER = '# Generated from the type-graphql classes by `npm run schema:emit`. Do not edit.\n\n';

/** The SDL committed as schema/schema.graphql: sorted, with a generated-file header. */
export function renderSchema(schema: GraphQLSchema): string {
  return SCHEMA_HEADER + printSchema(lexicographicSortSchema(schema)) + '\n';
}
