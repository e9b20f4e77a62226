import { ArgsType, Field, Float, InputType, Int, registerEnumType } from 'type-graphql';
import { GraphQLJSON, GraphQLJSONObject } from 'graphql-scalars';
import { ForwardPageArgs, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../shared/connection';
import { EXPIRY_DESCRIPTIONS } from '../shared/expiry';
import { FeedbackRating, MessageRole } from './session.type';

// Field shapes only: the limits of seed 001 are checked in SessionService, which names the rejected field.

@InputType()
export class CreateSessionInput {
  @Field(() => String, { nullable: true, description: 'At most 255 ASCII characters; generated (a UUID) when absent.' })
  sessionId?: string | null;

  @Field({ description: 'At most 50 characters.' })
  sessionType: string = 'default';

  @Field(() => String, {
    nullable: true,
    description: "Stored as application_name (the Strands MongoDB session manager's); at most 255 characters.",
  })
  applicationName?: string | null;

  @Field(() => String, {
    nullable: true,
    description: 'The end user the session is about; stored as user_id (the SDKs ignore it); at most 200 characters.',
  })
  userId?: string | null;

  @Field(() => GraphQLJSONObject, {
    nullable: true,
    description: 'At most 1 MB; keys must not start with $ or contain a dot.',
  })
  metadata?: Record<string, unknown> | null;

  @Field(() => Date, {
    nullable: true,
    description: `${EXPIRY_DESCRIPTIONS.expiresAt} The whole session goes, its messages with it.`,
  })
  expiresAt?: Date | null;

  @Field(() => Int, { nullable: true, description: EXPIRY_DESCRIPTIONS.ttlSeconds })
  ttlSeconds?: number | null;
}

@InputType()
export class UpsertAgentInput {
  @Field({ description: 'Becomes a field name: no dot, no leading $, at most 255 characters.' })
  agentId!: string;

  @Field(() => GraphQLJSONObject, {
    description:
      'Stored in agent_data (Strands SDK SessionAgent) one field per path, like its MongoDB session manager: other stored fields stay; agent_id is agentId; created_at/updated_at (ISO strings) are stored as dates (defaults: kept or now).',
  })
  agentData!: Record<string, unknown>;
}

@InputType({
  description:
    'Stored as event_loop_metrics {accumulated_metrics {latencyMs}, accumulated_usage {inputTokens outputTokens totalTokens}}.',
})
export class EventLoopMetricsInput {
  @Field(() => Float, { nullable: true })
  latencyMs?: number | null;

  @Field(() => Float, { nullable: true, description: 'A whole number (Float: counts can pass 2^31).' })
  inputTokens?: number | null;

  @Field(() => Float, { nullable: true })
  outputTokens?: number | null;

  @Field(() => Float, { nullable: true, description: 'Defaults to inputTokens + outputTokens when both are given.' })
  totalTokens?: number | null;
}

@InputType()
export class AppendMessageInput {
  @Field(() => MessageRole)
  role!: MessageRole;

  @Field(() => GraphQLJSON, { description: 'A string or an array of content blocks (objects); at most 100 KB.' })
  content!: unknown;

  @Field(() => EventLoopMetricsInput, { nullable: true })
  eventLoopMetrics?: EventLoopMetricsInput | null;
}

@InputType({
  description: 'Redaction: replaces the content (and metrics when given); created_at is kept, updated_at refreshed.',
})
export class UpdateMessageInput {
  @Field(() => GraphQLJSON, { description: 'A string or an array of content blocks (objects); at most 100 KB.' })
  content!: unknown;

  @Field(() => EventLoopMetricsInput, { nullable: true })
  eventLoopMetrics?: EventLoopMetricsInput | null;
}

@InputType()
export class AddFeedbackInput {
  @Field(() => FeedbackRating, { nullable: true, description: 'null: neutral.' })
  rating?: FeedbackRating | null;

  @Field({ description: 'At most 10 KB.' })
  comment: string = '';
}

@InputType({ description: 'Sessions whose metadata value at `path` (dot path) equals `value`.' })
export class MetadataCondition {
  @Field()
  path!: string;

  @Field(() => GraphQLJSON, { nullable: true, description: 'null matches a missing or null value.' })
  value?: unknown;
}

export enum SessionFeedbackFilter {
  UP = 'UP',
  DOWN = 'DOWN',
  ANY = 'ANY',
  NONE = 'NONE',
}
registerEnumType(SessionFeedbackFilter, {
  name: 'SessionFeedbackFilter',
  description: 'UP/DOWN: at least one feedback with that rating; ANY: at least one feedback; NONE: no feedback.',
});

@InputType({ description: 'All conditions given must hold. Time bounds: after is inclusive, before exclusive.' })
export class SessionFilter {
  @Field(() => String, { nullable: true })
  sessionType?: string | null;

  @Field(() => String, { nullable: true, description: 'Only sessions about this end user.' })
  userId?: string | null;

  @Field(() => [MetadataCondition], { nullable: true })
  metadata?: MetadataCondition[] | null;

  @Field(() => Date, { nullable: true })
  createdAfter?: Date | null;

  @Field(() => Date, { nullable: true })
  createdBefore?: Date | null;

  @Field(() => Date, { nullable: true })
  updatedAfter?: Date | null;

  @Field(() => Date, { nullable: true })
  updatedBefore?: Date | null;

  @Field(() => SessionFeedbackFilter, { nullable: true })
  feedback?: SessionFeedbackFilter | null;
}

export enum SessionOrderField {
  CREATED_AT = 'created_at',
  UPDATED_AT = 'updated_at',
}
registerEnumType(SessionOrderField, { name: 'SessionOrderField' });

export enum SessionOrderDirection {
  ASC = 1,
  DESC = -1,
}
registerEnumType(SessionOrderDirection, { name: 'SessionOrderDirection' });

@InputType()
export class SessionOrder {
  @Field(() => SessionOrderField)
  field: SessionOrderField = SessionOrderField.UPDATED_AT;

  @Field(() => SessionOrderDirection)
  direction: SessionOrderDirection = SessionOrderDirection.DESC;
}

@ArgsType()
export class SessionsArgs extends ForwardPageArgs {
  @Field(() => SessionFilter, { nullable: true })
  filter?: SessionFilter | null;

  @Field(() => SessionOrder, { nullable: true, description: 'Default: updatedAt, newest first.' })
  orderBy?: SessionOrder | null;
}

@ArgsType()
export class MessagesArgs {
  @Field(() => Int, {
    nullable: true,
    description: `First messages of the window, 1 to ${MAX_PAGE_SIZE} (default ${DEFAULT_PAGE_SIZE}).`,
  })
  first?: number | null;

  @Field(() => String, { nullable: true })
  after?: string | null;

  @Field(() => Int, {
    nullable: true,
    description: `Last messages of the window, 1 to ${MAX_PAGE_SIZE}; not with first.`,
  })
  last?: number | null;

  @Field(() => String, { nullable: true })
  before?: string | null;

  @Field(() => MessageRole, { nullable: true, description: 'Only messages of this role (totalCount too).' })
  role?: MessageRole | null;
}

export enum SessionGroupBy {
  SESSION_TYPE = 'SESSION_TYPE',
  METADATA = 'METADATA',
}
registerEnumType(SessionGroupBy, { name: 'SessionGroupBy', description: 'METADATA needs metadataPath.' });
