import { Field, Float, Int, ObjectType, registerEnumType } from 'type-graphql';
import { GraphQLJSON, GraphQLJSONObject } from 'graphql-scalars';
import type { Document } from 'mongodb';
import { ConnectionType } from '../shared/connection';
import { finiteFigure } from '../shared/json-input';
import {
  storedDate,
  storedDateOrNull,
  storedEnum,
  storedEnumOrNull,
  storedFloat,
  storedFloatOrNull,
  storedInt,
  storedObject,
  storedObjectEntries,
  storedText,
  storedTextOrNull,
  StoredReader,
  wasSubstituted,
} from '../shared/stored-values';
import { EXPIRY_DESCRIPTIONS } from '../shared/expiry';
import { SESSIONS_COLLECTION, type FeedbackDocument, type MessageDocument } from './session.document';
import type { AgentRef, AgentSummary, SessionSummary } from './session.repository';
import { Node } from '../shared/node';

/** Stored as the seed's lower-case strings; GraphQL shows the upper-case names. */
export enum MessageRole {
  USER = 'user',
  ASSISTANT = 'assistant',
  SYSTEM = 'system',
}
registerEnumType(MessageRole, {
  name: 'MessageRole',
  description: 'Author of a message (stored as user, assistant, system).',
});

export enum FeedbackRating {
  UP = 'up',
  DOWN = 'down',
}
registerEnumType(FeedbackRating, {
  name: 'FeedbackRating',
  description: 'Thumbs up or down (stored as up, down); null is neutral.',
});

// simpleResolvers: fields read without type-graphql's per-field middleware wrapper (see shared/connection.ts).
@ObjectType({ simpleResolvers: true, description: 'Token counts (Float: totals over many sessions can pass 2^31).' })
export class TokenUsage {
  @Field(() => Float)
  input!: number;

  @Field(() => Float)
  output!: number;

  @Field(() => Float)
  total!: number;
}

@ObjectType({
  simpleResolvers: true,
  description: "A message's `event_loop_metrics` (accumulated_metrics and accumulated_usage), flattened.",
})
export class EventLoopMetrics {
  @Field(() => Float, { nullable: true })
  latencyMs!: number | null;

  @Field(() => Float, { nullable: true, description: 'Float: an int64 count can pass 2^31.' })
  inputTokens!: number | null;

  @Field(() => Float, { nullable: true })
  outputTokens!: number | null;

  @Field(() => Float, { nullable: true })
  totalTokens!: number | null;
}

const ROLES = Object.values(MessageRole);
const RATINGS = Object.values(FeedbackRating);

function intOrNull(value: unknown): number | null {
  return typeof value === 'number' ? storedInt(value) : null;
}

/** A token count: Float in the schema, since an int64 count can pass 2^31 (finite numbers only). */
function countOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

/** The text of a message: a string content as it is, else the `text` of its text blocks joined by new lines. */
export function messageText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter(
      (block) =>
        block &&
        typeof block === 'object' &&
        typeof block.text === 'string' &&
        (block.type === undefined || block.type === 'text'),
    )
    .map((block) => block.text as string)
    .join('\n');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

@ObjectType({
  simpleResolvers: true,
  implements: Node,
  description:
    "One message of an agent, as stored in `agents.<agentId>.messages`: seed 001's flattened shape or the Strands SDK's `SessionMessage`.",
})
export class Message {
  @Field(() => Int, { description: 'Increases by one per agent: from 1 (seed 001 shape) or from 0 (SDK shape).' })
  messageId!: number;

  @Field(() => MessageRole)
  role!: MessageRole;

  @Field(() => GraphQLJSON, {
    description: 'A string or an array of content blocks, as stored; the redaction when the message is redacted.',
  })
  content!: unknown;

  @Field({ description: 'The text parts of the content, joined by new lines.' })
  text!: string;

  @Field({ description: 'True when the SDK redacted it (`redact_message`): content shows the redaction only.' })
  redacted!: boolean;

  @Field()
  createdAt!: Date;

  @Field({ description: 'Changes when the message is redacted (updateMessage).' })
  updatedAt!: Date;

  @Field(() => EventLoopMetrics, { nullable: true })
  eventLoopMetrics!: EventLoopMetrics | null;

  /** The agent holding the message: its global id and back-references read them. */
  sessionId!: string;
  agentId!: string;

  // The fromDocument/fromSummary builders set fields one by one rather than Object.assign an object literal: a page of
  // 20 sessions builds about 500 objects, and these builders led the server's own code in a heap allocation profile
  // of the benchmark's sessionsPage; without the literals and closures it allocates 359 KB per request, not 380. For
  // the same reason a message's StoredReader is created only when one of its fields needs a substitute.
  static fromDocument(doc: MessageDocument, source: AgentRef): Message {
    const metrics = doc.event_loop_metrics;
    const message = new Message();
    message.sessionId = source.sessionId;
    message.agentId = source.agentId;
    // The SDK shape nests role and content in `message`; a redaction (`redact_message`) replaces what is shown.
    const body = doc.message === undefined ? doc : isObject(doc.message) ? doc.message : EMPTY_BODY;
    const redaction = doc.redact_message;
    message.redacted = redaction !== undefined && redaction !== null;
    const shown = message.redacted ? (isObject(redaction) ? redaction : EMPTY_BODY) : body;
    let read: StoredReader | undefined;
    message.messageId = storedInt(doc.message_id);
    if (wasSubstituted()) read = noteMessageField(read, source, 'messageId', 'message_id');
    message.role = storedEnum(body.role, ROLES, MessageRole.USER);
    if (wasSubstituted()) read = noteMessageField(read, source, 'role', body === doc ? 'role' : 'message.role');
    message.content = shown.content ?? '';
    message.text = messageText(shown.content);
    message.createdAt = storedDate(doc.created_at);
    if (wasSubstituted()) read = noteMessageField(read, source, 'createdAt', 'created_at');
    message.updatedAt = storedDate(doc.updated_at, message.createdAt);
    if (wasSubstituted()) read = noteMessageField(read, source, 'updatedAt', 'updated_at');
    message.eventLoopMetrics = metrics
      ? {
          latencyMs: storedFloatOrNull(metrics.accumulated_metrics?.latencyMs),
          inputTokens: countOrNull(metrics.accumulated_usage?.inputTokens),
          outputTokens: countOrNull(metrics.accumulated_usage?.outputTokens),
          totalTokens: countOrNull(metrics.accumulated_usage?.totalTokens),
        }
      : null;
    return read ? read.attach(message) : message;
  }
}

const EMPTY_BODY: { role?: unknown; content?: unknown } = {};

/** Records the substitution just made for a message field, creating the message's reader on the first one. */
function noteMessageField(
  read: StoredReader | undefined,
  source: AgentRef | undefined,
  field: string,
  storedField: string,
): StoredReader {
  const reader = read ?? new StoredReader(SESSIONS_COLLECTION, source?.sessionId ?? '');
  return (reader.field(field, `agents.${source?.agentId ?? '?'}.messages.${storedField}`, null), reader);
}

@ObjectType({
  simpleResolvers: true,
  description: "An agent's `agent_data` (Strands SDK state): the usual fields typed, and the whole object as stored.",
})
export class AgentData {
  @Field(() => String, { nullable: true })
  model!: string | null;

  @Field(() => String, { nullable: true })
  systemPrompt!: string | null;

  @Field(() => Float, { nullable: true })
  temperature!: number | null;

  @Field(() => Int, { nullable: true })
  maxTokens!: number | null;

  @Field(() => GraphQLJSON, { nullable: true, description: "SessionAgent's state." })
  state!: unknown;

  @Field(() => GraphQLJSON, { nullable: true, description: "SessionAgent's conversation_manager_state." })
  conversationManagerState!: unknown;

  @Field(() => GraphQLJSONObject, { description: 'agent_data exactly as stored (dates as ISO strings).' })
  raw!: Record<string, unknown>;
}

@ObjectType({ simpleResolvers: true, implements: Node, description: 'An agent of a session (`agents.<agentId>`).' })
export class Agent {
  @Field()
  agentId!: string;

  /** Session holding this agent; used to page its messages. */
  sessionId!: string;

  @Field(() => AgentData)
  agentData!: AgentData;

  @Field()
  createdAt!: Date;

  @Field()
  updatedAt!: Date;

  @Field(() => Message, { nullable: true })
  lastMessage!: Message | null;

  @Field(() => Int)
  messageCount!: number;

  static fromSummary(sessionId: string, summary: AgentSummary): Agent {
    const raw = storedObject(summary.agent_data);
    const agent = new Agent();
    agent.agentId = storedText(summary.agent_id);
    agent.sessionId = sessionId;
    agent.agentData = {
      model: stringOrNull(raw.model),
      systemPrompt: stringOrNull(raw.system_prompt),
      temperature: storedFloatOrNull(raw.temperature),
      maxTokens: intOrNull(raw.max_tokens),
      state: raw.state ?? null,
      conversationManagerState: raw.conversation_manager_state ?? null,
      raw,
    };
    const read = new StoredReader(SESSIONS_COLLECTION, sessionId);
    agent.createdAt = read.field('createdAt', `agents.${agent.agentId}.created_at`, storedDate(summary.created_at));
    agent.updatedAt = read.field(
      'updatedAt',
      `agents.${agent.agentId}.updated_at`,
      storedDate(summary.updated_at, agent.createdAt),
    );
    agent.lastMessage = summary.last_message ? Message.fromDocument(summary.last_message, agent) : null;
    agent.messageCount = storedInt(summary.message_count);
    return read.attach(agent);
  }
}

@ObjectType({ simpleResolvers: true, implements: Node, description: 'One entry of `feedbacks`.' })
export class Feedback {
  @Field(() => FeedbackRating, { nullable: true, description: 'null: neutral.' })
  rating!: FeedbackRating | null;

  @Field()
  comment!: string;

  @Field()
  createdAt!: Date;

  /** The session it is in (the `session` back-reference reads it). */
  sessionId!: string;

  /** Its position in the session's `feedbacks` (entries are only ever appended): with sessionId, its global id. */
  index!: number;

  static fromDocument(doc: FeedbackDocument, sessionId: string, index: number): Feedback {
    const read = new StoredReader(SESSIONS_COLLECTION, sessionId);
    const feedback = new Feedback();
    feedback.sessionId = sessionId;
    feedback.index = index;
    feedback.rating = read.field('rating', `feedbacks.${index}.rating`, storedEnumOrNull(doc.rating, RATINGS));
    feedback.comment = read.field('comment', `feedbacks.${index}.comment`, storedText(doc.comment, ''));
    feedback.createdAt = read.field('createdAt', `feedbacks.${index}.created_at`, storedDate(doc.created_at));
    return read.attach(feedback);
  }
}

@ObjectType({
  simpleResolvers: true,
  implements: Node,
  description: 'A session of the agent SDK session store (seed 001): one document of `sessions`.',
})
export class Session {
  @Field({ description: 'Also the document `_id`.' })
  sessionId!: string;

  @Field()
  sessionType!: string;

  @Field(() => String, { nullable: true, description: 'application_name, set by the Strands MongoDB session manager.' })
  applicationName!: string | null;

  @Field(() => String, { nullable: true, description: 'The end user the session is about (`user_id`).' })
  userId!: string | null;

  @Field()
  createdAt!: Date;

  @Field({ description: 'Refreshed by every write to the session.' })
  updatedAt!: Date;

  @Field(() => Date, {
    nullable: true,
    description: `${EXPIRY_DESCRIPTIONS.stored} RETENTION_MESSAGES counts from updatedAt.`,
  })
  expiresAt!: Date | null;

  @Field(() => GraphQLJSONObject)
  metadata!: Record<string, unknown>;

  @Field(() => [Feedback])
  feedbacks!: Feedback[];

  @Field(() => [Agent])
  agents!: Agent[];

  @Field(() => Int, { description: 'Messages of all agents.' })
  messageCount!: number;

  @Field(() => TokenUsage, { description: 'Sum of accumulated_usage over all messages.' })
  tokenUsage!: TokenUsage;

  static fromSummary(summary: SessionSummary): Session {
    const agents: Agent[] = [];
    // A part the read's shape left out counts 0: it is not selected, so not returned.
    let messageCount = 0;
    let input = 0;
    let output = 0;
    let total = 0;
    for (const agent of summary.agents) {
      agents.push(Agent.fromSummary(summary._id, agent));
      messageCount += storedInt(agent.message_count);
      input += storedFloat(agent.input_tokens);
      output += storedFloat(agent.output_tokens);
      total += storedFloat(agent.total_tokens);
    }
    const session = new Session();
    const read = new StoredReader(SESSIONS_COLLECTION, summary._id);
    session.sessionId = read.field('sessionId', 'session_id', storedText(summary.session_id ?? summary._id));
    session.sessionType = read.field('sessionType', 'session_type', storedText(summary.session_type, 'default'));
    session.applicationName = read.field(
      'applicationName',
      'application_name',
      storedTextOrNull(summary.application_name),
    );
    session.userId = read.field('userId', 'user_id', storedTextOrNull(summary.user_id));
    session.createdAt = read.field('createdAt', 'created_at', storedDate(summary.created_at));
    session.updatedAt = read.field('updatedAt', 'updated_at', storedDate(summary.updated_at, session.createdAt));
    session.expiresAt = read.field('expiresAt', 'expires_at', storedDateOrNull(summary.expires_at));
    session.metadata = read.field('metadata', 'metadata', storedObject(summary.metadata));
    session.feedbacks = read
      .field('feedbacks', 'feedbacks', storedObjectEntries<FeedbackDocument>(summary.feedbacks))
      .map(([index, feedback]) => Feedback.fromDocument(feedback, summary._id, index));
    session.agents = agents;
    session.messageCount = storedInt(messageCount);
    session.tokenUsage = { input: finiteFigure(input), output: finiteFigure(output), total: finiteFigure(total) };
    return read.attach(session);
  }
}

export const MessageConnection = ConnectionType('Message', Message);
export const SessionConnection = ConnectionType('Session', Session);

@ObjectType({ simpleResolvers: true, description: 'Feedback entries by rating.' })
export class FeedbackCounts {
  @Field(() => Int)
  up!: number;

  @Field(() => Int)
  down!: number;

  @Field(() => Int, { description: 'Entries whose rating is null.' })
  neutral!: number;
}

@ObjectType({ simpleResolvers: true, description: 'How many sessions have one value.' })
export class ValueCount {
  @Field(() => GraphQLJSON, { nullable: true, description: 'The value (null: missing or null).' })
  value!: unknown;

  @Field(() => Int)
  count!: number;
}

@ObjectType({
  simpleResolvers: true,
  description: 'Aggregates over the sessions matching a filter, computed in the database.',
})
export class SessionAnalytics {
  @Field(() => Int)
  sessionCount!: number;

  @Field(() => Int)
  messageCount!: number;

  @Field(() => Float, { description: '0 when no session matches.' })
  averageMessagesPerSession!: number;

  @Field(() => FeedbackCounts)
  feedback!: FeedbackCounts;

  @Field(() => TokenUsage)
  tokens!: TokenUsage;

  @Field(() => Float, {
    nullable: true,
    description: 'Mean latencyMs of the messages that have one; null when none has.',
  })
  averageLatencyMs!: number | null;

  /** The filter these figures were computed for; `countsBy` groups the same sessions. */
  filter!: Document;
}
