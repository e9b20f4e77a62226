import {
  Authorized,
  Arg,
  Args,
  Ctx,
  FieldResolver,
  ID,
  Info,
  Int,
  Mutation,
  Query,
  Resolver,
  Root,
} from 'type-graphql';
import type { GraphQLResolveInfo } from 'graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import type { Context } from '../../context';
import type { Connection } from '../shared/connection';
import { IDEMPOTENCY_KEY } from '../shared/idempotency';
import {
  AddFeedbackInput,
  AppendMessageInput,
  CreateSessionInput,
  MessagesArgs,
  SessionFilter,
  SessionGroupBy,
  SessionsArgs,
  UpdateMessageInput,
  UpsertAgentInput,
} from './session.input';
import { messageFields, sessionShape } from './session.selection';
import {
  Agent,
  Feedback,
  Message,
  MessageConnection,
  Session,
  SessionAnalytics,
  SessionConnection,
  ValueCount,
} from './session.type';

@Resolver(() => Session)
export class SessionResolver {
  @Authorized('reader')
  @Query(() => Session, { description: 'One session by id; NOT_FOUND when it does not exist.' })
  session(
    @Arg('id', () => ID) id: string,
    @Ctx() { services }: Context,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Session> {
    return services.sessions.session(id, sessionShape(info));
  }

  @Authorized('reader')
  @Query(() => SessionConnection, {
    description: 'Sessions matching a filter, newest update first unless orderBy says otherwise.',
  })
  sessions(
    @Args() args: SessionsArgs,
    @Ctx() { services }: Context,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Connection<Session>> {
    return services.sessions.sessions(args, sessionShape(info, ['edges', 'node']));
  }

  @Authorized('reader')
  @Query(() => SessionAnalytics, {
    description: 'Aggregates over the sessions matching the filter, computed in the database.',
  })
  sessionAnalytics(
    @Arg('filter', () => SessionFilter, { nullable: true }) filter: SessionFilter | null,
    @Ctx() { services }: Context,
  ): Promise<SessionAnalytics> {
    return services.sessions.analytics(filter);
  }

  @FieldResolver(() => Agent, {
    nullable: true,
    description: 'One agent by id; NOT_FOUND when the session has no such agent.',
  })
  agent(@Root() session: Session, @Arg('agentId') agentId: string, @Ctx() { services }: Context): Agent {
    return services.sessions.agent(session, agentId);
  }

  @Authorized('writer')
  @Mutation(() => Session, {
    description: 'Creates a session (id generated when absent); CONFLICT when the id exists.',
  })
  createSession(
    @Arg('input', () => CreateSessionInput) input: CreateSessionInput,
    @Arg('idempotencyKey', () => String, { nullable: true, description: IDEMPOTENCY_KEY })
    idempotencyKey: string | null,
    @Ctx() { services }: Context,
  ): Promise<Session> {
    return services.sessions.createSession(input, idempotencyKey);
  }

  @Authorized('admin')
  @Mutation(() => Boolean, {
    description: 'Deletes a session with its agents and messages; NOT_FOUND when it does not exist.',
  })
  deleteSession(@Arg('id', () => ID) id: string, @Ctx() { services }: Context): Promise<boolean> {
    return services.sessions.deleteSession(id);
  }

  @Authorized('writer')
  @Mutation(() => Agent, { description: 'Creates an agent or replaces its agent_data (its messages are kept).' })
  upsertAgent(
    @Arg('sessionId', () => ID) sessionId: string,
    @Arg('input', () => UpsertAgentInput) input: UpsertAgentInput,
    @Ctx() { services }: Context,
  ): Promise<Agent> {
    return services.sessions.upsertAgent(sessionId, input);
  }

  @Authorized('writer')
  @Mutation(() => Message, {
    description: 'Appends a message; its messageId is the next of this agent, allocated by the database.',
  })
  async appendMessage(
    @Arg('sessionId', () => ID) sessionId: string,
    @Arg('agentId') agentId: string,
    @Arg('input', () => AppendMessageInput) input: AppendMessageInput,
    @Arg('idempotencyKey', () => String, { nullable: true, description: IDEMPOTENCY_KEY })
    idempotencyKey: string | null,
    @Ctx() { services }: Context,
  ): Promise<Message> {
    const [message] = await services.sessions.appendMessages(
      sessionId,
      agentId,
      [input],
      () => 'input',
      idempotencyKey,
    );
    return message;
  }

  @Authorized('writer')
  @Mutation(() => [Message], { description: 'Appends messages in one atomic update, with consecutive messageIds.' })
  appendMessages(
    @Arg('sessionId', () => ID) sessionId: string,
    @Arg('agentId') agentId: string,
    @Arg('inputs', () => [AppendMessageInput]) inputs: AppendMessageInput[],
    @Arg('idempotencyKey', () => String, { nullable: true, description: IDEMPOTENCY_KEY })
    idempotencyKey: string | null,
    @Ctx() { services }: Context,
  ): Promise<Message[]> {
    return services.sessions.appendMessages(sessionId, agentId, inputs, (index) => `inputs.${index}`, idempotencyKey);
  }

  @Authorized('writer')
  @Mutation(() => Message, { description: 'Redacts a message: new content; createdAt kept, updatedAt refreshed.' })
  updateMessage(
    @Arg('sessionId', () => ID) sessionId: string,
    @Arg('agentId') agentId: string,
    @Arg('messageId', () => Int) messageId: number,
    @Arg('input', () => UpdateMessageInput) input: UpdateMessageInput,
    @Ctx() { services }: Context,
  ): Promise<Message> {
    return services.sessions.updateMessage(sessionId, agentId, messageId, input);
  }

  @Authorized('writer')
  @Mutation(() => Session, {
    description: 'Merges keys into metadata (a key with dots sets a nested field); other keys are kept.',
  })
  updateSessionMetadata(
    @Arg('sessionId', () => ID) sessionId: string,
    @Arg('metadata', () => GraphQLJSONObject) metadata: Record<string, unknown>,
    @Ctx() { services }: Context,
  ): Promise<Session> {
    return services.sessions.updateMetadata(sessionId, metadata);
  }

  @Authorized('writer')
  @Mutation(() => Session, { description: 'Removes metadata keys (dot paths for nested ones).' })
  deleteSessionMetadataKeys(
    @Arg('sessionId', () => ID) sessionId: string,
    @Arg('keys', () => [String]) keys: string[],
    @Ctx() { services }: Context,
  ): Promise<Session> {
    return services.sessions.deleteMetadataKeys(sessionId, keys);
  }

  @Authorized('writer')
  @Mutation(() => Feedback, { description: 'Adds a feedback entry to the session.' })
  addFeedback(
    @Arg('sessionId', () => ID) sessionId: string,
    @Arg('input', () => AddFeedbackInput) input: AddFeedbackInput,
    @Arg('idempotencyKey', () => String, { nullable: true, description: IDEMPOTENCY_KEY })
    idempotencyKey: string | null,
    @Ctx() { services }: Context,
  ): Promise<Feedback> {
    return services.sessions.addFeedback(sessionId, input, idempotencyKey);
  }
}

@Resolver(() => Agent)
export class AgentResolver {
  @FieldResolver(() => MessageConnection, {
    description: 'Messages in order, paged inside the database (cursor: messageId).',
  })
  messages(
    @Root() agent: Agent,
    @Args() args: MessagesArgs,
    @Ctx() { services }: Context,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Connection<Message>> {
    return services.sessions.messages(agent, args, messageFields(info.fieldNodes, info.fragments));
  }
}

@Resolver(() => SessionAnalytics)
export class SessionAnalyticsResolver {
  @FieldResolver(() => [ValueCount], {
    description: 'Matching sessions counted by session type or by a metadata value, most frequent first.',
  })
  countsBy(
    @Root() analytics: SessionAnalytics,
    @Arg('by', () => SessionGroupBy) by: SessionGroupBy,
    @Arg('metadataPath', () => String, { nullable: true, description: 'Dot path inside metadata, with by: METADATA.' })
    metadataPath: string | null,
    @Ctx() { services }: Context,
  ): Promise<ValueCount[]> {
    return services.sessions.countsBy(analytics, by, metadataPath);
  }
}
