import { randomUUID } from 'node:crypto';
import { Double, Int32, calculateObjectSize } from 'bson';
import type { Document } from 'mongodb';
import { NotFoundError, ValidationError } from '../../errors';
import { LazyEdge, decodeCursor, forwardPage, pageInfoOf, pageSize, type Connection, type SortKey } from '../shared/connection';
import {
  SessionFeedbackFilter,
  SessionGroupBy,
  SessionOrderDirection,
  SessionOrderField,
  type AddFeedbackInput,
  type AppendMessageInput,
  type CreateSessionInput,
  type EventLoopMetricsInput,
  type MessagesArgs,
  type SessionFilter,
  type SessionsArgs,
  type UpdateMessageInput,
  type UpsertAgentInput,
} from './session.input';
import { sessionFromSummary, type SessionLoaders } from './session.loaders';
import {
  FULL_SUMMARY,
  MAX_DOCUMENT_BYTES,
  type MessageWindow,
  type SummaryShape,
  type EventLoopMetricsDocument,
  type FeedbackDocument,
  type NewMessage,
  type SessionDocument,
  type SessionRepository,
} from './session.repository';
import { Agent, Feedback, Message, Session, SessionAnalytics, ValueCount } from './session.type';

/** Limits of seed 001 ("Field Length Constraints" and "Data Validation"). */
export const LIMITS = {
  sessionIdLength: 255,
  sessionTypeLength: 50,
  agentIdLength: 255,
  contentBytes: 100 * 1024,
  commentBytes: 10 * 1024,
  metadataBytes: 1024 * 1024,
  /** Messages per appendMessages call. */
  appendBatch: 500,
} as const;

/** Bytes a value adds to a BSON document (as the value of a one-letter key), for size checks before writing. */
function bsonBytes(value: unknown): number {
  return calculateObjectSize({ v: value });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/**
 * Rejects keys MongoDB would read as operators (leading `$`) or cannot store (NUL), at any depth; with
 * `dotsAllowed` false also keys with a dot (metadata, where a dot means a nested path).
 */
function checkKeys(value: unknown, field: string, dotsAllowed: boolean, at = ''): void {
  if (Array.isArray(value)) {
    value.forEach((item, index) => checkKeys(item, field, dotsAllowed, `${at}[${index}]`));
    return;
  }
  if (!isPlainObject(value)) return;
  for (const [key, child] of Object.entries(value)) {
    const where = at ? `${at}.${key}` : key;
    if (key.startsWith('$')) throw new ValidationError(`${field}: keys must not start with $ (${where}).`, field);
    if (key.includes('\0')) throw new ValidationError(`${field}: keys must not contain NUL (${where}).`, field);
    if (!dotsAllowed && key.includes('.')) {
      throw new ValidationError(`${field}: keys must not contain a dot; nest objects instead (${where}).`, field);
    }
    checkKeys(child, field, dotsAllowed, where);
  }
}

/** A metadata dot path (`priority`, `custom_data.tier`): non-empty segments, none starting with $. */
function checkMetadataPath(path: string, field: string): void {
  const segments = path.split('.');
  if (segments.some((segment) => segment === '' || segment.startsWith('$') || segment.includes('\0'))) {
    throw new ValidationError(`${field}: "${path}" is not a metadata path (dot-separated keys, none empty or starting with $).`, field);
  }
}

function checkMetadataSize(bytes: number, field: string): void {
  if (bytes > LIMITS.metadataBytes) {
    throw new ValidationError(`${field}: metadata may hold at most ${LIMITS.metadataBytes} bytes (1 MB) in total.`, field);
  }
}

/** Agent ids become field names (`agents.<agentId>`): no dot, no leading $. */
function checkAgentId(agentId: string, field: string): void {
  if (agentId.length === 0 || agentId.length > LIMITS.agentIdLength) {
    throw new ValidationError(`${field} must have 1 to ${LIMITS.agentIdLength} characters.`, field);
  }
  if (agentId.includes('.') || agentId.startsWith('$') || agentId.includes('\0')) {
    throw new ValidationError(`${field} must not contain a dot or NUL, nor start with $.`, field);
  }
}

/** Message content: a string or an array of content blocks (objects), at most 100 KB. */
function checkContent(content: unknown, field: string): void {
  const isBlocks = Array.isArray(content) && content.every(isPlainObject);
  if (typeof content !== 'string' && !isBlocks) {
    throw new ValidationError(`${field} must be a string or an array of content blocks (objects).`, field);
  }
  checkKeys(content, field, true);
  const bytes = typeof content === 'string' ? Buffer.byteLength(content, 'utf8') : bsonBytes(content);
  if (bytes > LIMITS.contentBytes) {
    throw new ValidationError(`${field} may hold at most ${LIMITS.contentBytes} bytes (100 KB); it has ${bytes}.`, field);
  }
}

/** Metrics as the seed stores them; totalTokens defaults to input + output. Undefined when nothing is given. */
function metricsDocument(input: EventLoopMetricsInput | null | undefined, field: string): EventLoopMetricsDocument | undefined {
  if (!input) return undefined;
  for (const [name, value] of Object.entries(input)) {
    if (value !== null && value !== undefined && !(Number.isFinite(value) && value >= 0)) {
      throw new ValidationError(`${field}.${name} must be a non-negative number.`, `${field}.${name}`);
    }
  }
  const { latencyMs, inputTokens, outputTokens } = input;
  const totalTokens = input.totalTokens ?? (inputTokens != null && outputTokens != null ? inputTokens + outputTokens : null);
  const usage = Object.fromEntries(
    Object.entries({ inputTokens, outputTokens, totalTokens }).filter(([, value]) => value !== null && value !== undefined),
  );
  const metrics: EventLoopMetricsDocument = {
    ...(latencyMs != null ? { accumulated_metrics: { latencyMs } } : {}),
    ...(Object.keys(usage).length ? { accumulated_usage: usage } : {}),
  };
  return Object.keys(metrics).length ? metrics : undefined;
}

/** An SDK timestamp: kept as the ISO string it is, when it parses as a date. */
function isoTimestamp(value: unknown, field: string): string {
  if (typeof value !== 'string' || Number.isNaN(Date.parse(value))) {
    throw new ValidationError(`${field} must be an ISO 8601 date string.`, field);
  }
  return value;
}

/** The message id held by a cursor of `Agent.messages`. */
function messageCursor(cursor: string, argument: string): number {
  const [value] = decodeCursor(cursor, argument, 1);
  const id = value instanceof Int32 || value instanceof Double ? value.valueOf() : value;
  if (typeof id !== 'number' || !Number.isInteger(id)) throw new ValidationError(`${argument} is not a cursor of this list.`, argument);
  return id;
}

/**
 * The window and page size that `Agent.messages` arguments ask for, returning the stored message `fields` (null:
 * whole messages); invalid arguments are BAD_USER_INPUT.
 */
export function messageWindow(args: MessagesArgs, fields: string[] | null = null): { window: MessageWindow; size: number; backward: boolean } {
  if (args.first != null && args.last != null) throw new ValidationError('Pass first or last, not both.', 'last');
  const backward = args.last != null;
  const size = backward ? pageSize(args.last, 'last') : pageSize(args.first, 'first');
  const window: MessageWindow = {
    role: args.role ?? null,
    afterId: args.after ? messageCursor(args.after, 'after') : null,
    beforeId: args.before ? messageCursor(args.before, 'before') : null,
    take: backward ? -size : size,
    fields,
  };
  return { window, size, backward };
}

/**
 * The sessions feature: rules and validation of seed 001, coordination of the repository and the
 * per-request loaders (cleared or primed after every write).
 */
export class SessionService {
  constructor(
    private readonly repository: SessionRepository,
    private readonly loaders: SessionLoaders,
  ) {}

  /** The session read with `shape` (default: everything), or NOT_FOUND. */
  async session(sessionId: string, shape: SummaryShape = FULL_SUMMARY): Promise<Session> {
    const session = await this.loaders.sessionById.load({ sessionId, shape });
    if (!session) throw new NotFoundError(`Session ${sessionId} not found.`, { sessionId });
    return session;
  }

  /** A page of sessions read with `shape` (keyset on the order field, then _id); each is primed into `sessionById`. */
  sessions(args: SessionsArgs, shape: SummaryShape = FULL_SUMMARY): Promise<Connection<Session>> {
    const filter = this.filterQuery(args.filter);
    const field = args.orderBy?.field ?? SessionOrderField.UPDATED_AT;
    const direction = (args.orderBy?.direction ?? SessionOrderDirection.DESC) as 1 | -1;
    const sort: SortKey[] = [
      { field, direction },
      { field: '_id', direction },
    ];
    return forwardPage({
      first: args.first,
      after: args.after,
      sort,
      fetch: (after, order, limit) => this.repository.findSummaryPage(filter, after, order, limit, shape),
      count: () => this.repository.count(filter),
      toNode: (summary) => {
        const session = sessionFromSummary(this.loaders, summary, shape);
        const read = { sessionId: summary._id, shape };
        this.loaders.sessionById.clear(read).prime(read, session);
        return session;
      },
    });
  }

  /** The agent of a loaded session, or NOT_FOUND. */
  agent(session: Session, agentId: string): Agent {
    const agent = session.agents.find((candidate) => candidate.agentId === agentId);
    if (!agent) throw new NotFoundError(`Agent ${agentId} not found in session ${session.sessionId}.`, { sessionId: session.sessionId, agentId });
    return agent;
  }

  /**
   * A Relay page of an agent's messages (cursor = message_id), sliced in the database; batched per request. Its
   * messages hold only the stored `fields` (null: all), e.g. those the operation selects (`messageFields`).
   */
  async messages(agent: Agent, args: MessagesArgs, fields: string[] | null = null): Promise<Connection<Message>> {
    const { window, size, backward } = messageWindow(args, fields);
    const page = await this.loaders.messagePage.load({ sessionId: agent.sessionId, agentId: agent.agentId, window });
    if (!page) throw new NotFoundError(`Agent ${agent.agentId} not found in session ${agent.sessionId}.`);
    const more = page.page.length > size;
    const nodes = more ? (backward ? page.page.slice(1) : page.page.slice(0, size)) : page.page;
    const edges = nodes.map((message) => new LazyEdge(Message.fromDocument(message), [message.message_id]));
    return {
      edges,
      totalCount: page.total,
      pageInfo: pageInfoOf(edges, backward ? page.atOrAfterBefore > 0 : more, backward ? more : page.atOrBeforeAfter > 0),
    };
  }

  /** Totals over the matching sessions (one aggregation); `countsBy` is computed on demand. */
  async analytics(filter: SessionFilter | null | undefined): Promise<SessionAnalytics> {
    const query = this.filterQuery(filter);
    const totals = await this.repository.analytics(query);
    return Object.assign(new SessionAnalytics(), {
      sessionCount: totals.sessionCount,
      messageCount: totals.messageCount,
      averageMessagesPerSession: totals.sessionCount ? totals.messageCount / totals.sessionCount : 0,
      feedback: { up: totals.up, down: totals.down, neutral: totals.neutral },
      tokens: { input: totals.input, output: totals.output, total: totals.total },
      averageLatencyMs: totals.latencyCount ? totals.latencySum / totals.latencyCount : null,
      filter: query,
    });
  }

  /** Sessions of an analytics result counted by session type or by a metadata value. */
  async countsBy(analytics: SessionAnalytics, by: SessionGroupBy, metadataPath: string | null | undefined): Promise<ValueCount[]> {
    let field = 'session_type';
    if (by === SessionGroupBy.METADATA) {
      if (!metadataPath) throw new ValidationError('metadataPath is required to count by METADATA.', 'metadataPath');
      checkMetadataPath(metadataPath, 'metadataPath');
      field = `metadata.${metadataPath}`;
    } else if (metadataPath) {
      throw new ValidationError('metadataPath is only used with METADATA.', 'metadataPath');
    }
    const rows = await this.repository.countsBy(analytics.filter, field);
    return rows.map((row) => Object.assign(new ValueCount(), { value: row._id ?? null, count: row.count }));
  }

  async createSession(input: CreateSessionInput): Promise<Session> {
    const sessionId = input.sessionId ?? randomUUID();
    if (sessionId.length === 0 || sessionId.length > LIMITS.sessionIdLength || !/^\p{ASCII}*$/u.test(sessionId)) {
      throw new ValidationError(`input.sessionId must have 1 to ${LIMITS.sessionIdLength} ASCII characters.`, 'input.sessionId');
    }
    if (input.sessionType.length === 0 || input.sessionType.length > LIMITS.sessionTypeLength) {
      throw new ValidationError(`input.sessionType must have 1 to ${LIMITS.sessionTypeLength} characters.`, 'input.sessionType');
    }
    const metadata = input.metadata ?? {};
    checkKeys(metadata, 'input.metadata', false);
    checkMetadataSize(bsonBytes(metadata), 'input.metadata');
    const now = new Date();
    // Field order of the seed's complete example.
    const document: SessionDocument = {
      _id: sessionId,
      session_id: sessionId,
      session_type: input.sessionType,
      created_at: now,
      updated_at: now,
      metadata,
      feedbacks: [],
      agents: {},
    };
    await this.repository.insert(document);
    const session = Session.fromSummary({ ...document, agents: [] });
    this.loaders.sessionById.clearAll().prime({ sessionId, shape: FULL_SUMMARY }, session);
    return session;
  }

  /** Deletes the session, or NOT_FOUND. */
  async deleteSession(sessionId: string): Promise<boolean> {
    if (!(await this.repository.delete(sessionId))) throw new NotFoundError(`Session ${sessionId} not found.`, { sessionId });
    this.forget();
    return true;
  }

  /** Seed 001's create_agent, made an upsert: an existing agent keeps its messages and created_at. */
  async upsertAgent(sessionId: string, input: UpsertAgentInput): Promise<Agent> {
    checkAgentId(input.agentId, 'input.agentId');
    checkKeys(input.agentData, 'input.agentData', true);
    const { agent_id: givenId, created_at: createdAt, updated_at: updatedAt, ...rest } = input.agentData;
    if (givenId !== undefined && givenId !== input.agentId) {
      throw new ValidationError('input.agentData.agent_id must equal input.agentId when given.', 'input.agentData.agent_id');
    }
    const now = new Date();
    const agentData = { agent_id: input.agentId, ...rest };
    const times = {
      createdIso: createdAt == null ? null : isoTimestamp(createdAt, 'input.agentData.created_at'),
      updatedIso: updatedAt == null ? now.toISOString() : isoTimestamp(updatedAt, 'input.agentData.updated_at'),
      now,
    };
    const addedBytes = bsonBytes(agentData) + 256;
    if (!(await this.repository.upsertAgent(sessionId, input.agentId, agentData, times, addedBytes))) {
      await this.explainMiss(sessionId, 'input.agentData');
    }
    this.forget();
    return this.agent(await this.session(sessionId), input.agentId);
  }

  /**
   * Appends messages to an agent in one atomic update; the database allocates their ids. `fieldOf(i)`
   * names the input of message i in errors.
   */
  async appendMessages(sessionId: string, agentId: string, inputs: AppendMessageInput[], fieldOf: (index: number) => string): Promise<Message[]> {
    checkAgentId(agentId, 'agentId');
    if (inputs.length === 0 || inputs.length > LIMITS.appendBatch) {
      throw new ValidationError(`Append 1 to ${LIMITS.appendBatch} messages at a time.`, 'inputs');
    }
    const messages: NewMessage[] = inputs.map((input, index) => {
      const field = fieldOf(index);
      checkContent(input.content, `${field}.content`);
      const metrics = metricsDocument(input.eventLoopMetrics, `${field}.eventLoopMetrics`);
      return { role: input.role, content: input.content, ...(metrics ? { event_loop_metrics: metrics } : {}) };
    });
    const now = new Date();
    // Each stored message also carries its id, two dates and its array index key.
    const addedBytes = messages.reduce((sum, message) => sum + bsonBytes(message) + 64, 0);
    const field = inputs.length === 1 ? fieldOf(0) : 'inputs';
    const stored = await this.repository.appendMessages(sessionId, agentId, messages, now, addedBytes, field);
    if (!stored) return this.explainMiss(sessionId, field, { agentId });
    this.forget();
    return stored.map((message) => Message.fromDocument(message));
  }

  /** Redaction: new content (and metrics when given); created_at kept, updated_at refreshed at every level. */
  async updateMessage(sessionId: string, agentId: string, messageId: number, input: UpdateMessageInput): Promise<Message> {
    checkAgentId(agentId, 'agentId');
    checkContent(input.content, 'input.content');
    const metrics = metricsDocument(input.eventLoopMetrics, 'input.eventLoopMetrics');
    const change = { content: input.content, ...(metrics ? { event_loop_metrics: metrics } : {}) };
    const now = new Date();
    if (!(await this.repository.updateMessage(sessionId, agentId, messageId, change, now, bsonBytes(change)))) {
      await this.explainMiss(sessionId, 'input.content', { agentId, messageId });
    }
    this.forget();
    const stored = await this.repository.findMessage(sessionId, agentId, messageId);
    if (!stored) throw new NotFoundError(`Message ${messageId} not found.`, { sessionId, agentId, messageId });
    return Message.fromDocument(stored);
  }

  /** Partial merge: one `$set` per key (a key with dots sets a nested field); the metadata stays within 1 MB. */
  async updateMetadata(sessionId: string, metadata: Record<string, unknown>): Promise<Session> {
    const paths = Object.keys(metadata);
    paths.forEach((path) => checkMetadataPath(path, 'metadata'));
    checkKeys(Object.values(metadata), 'metadata', false);
    const sorted = [...paths].sort();
    sorted.forEach((path, index) => {
      if (index > 0 && path.startsWith(`${sorted[index - 1]}.`)) {
        throw new ValidationError(`metadata: "${sorted[index - 1]}" and "${path}" overlap.`, 'metadata');
      }
    });
    const entries = paths.map((path): [string, unknown, number] => [path, metadata[path], bsonBytes(metadata[path])]);
    const addedBytes = entries.reduce((sum, [, , bytes]) => sum + bytes, 0);
    checkMetadataSize(addedBytes, 'metadata');
    if (!(await this.repository.setMetadata(sessionId, entries, LIMITS.metadataBytes, new Date()))) {
      await this.explainMiss(sessionId, 'metadata', {
        addedBytes,
        otherLimit: `metadata may hold at most ${LIMITS.metadataBytes} bytes (1 MB) in total.`,
      });
    }
    this.forget();
    return this.session(sessionId);
  }

  /** Removes metadata keys (dot paths for nested ones). */
  async deleteMetadataKeys(sessionId: string, keys: string[]): Promise<Session> {
    if (keys.length === 0) throw new ValidationError('keys must not be empty.', 'keys');
    keys.forEach((key) => checkMetadataPath(key, 'keys'));
    if (!(await this.repository.unsetMetadata(sessionId, keys, new Date()))) await this.explainMiss(sessionId, 'keys');
    this.forget();
    return this.session(sessionId);
  }

  async addFeedback(sessionId: string, input: AddFeedbackInput): Promise<Feedback> {
    const bytes = Buffer.byteLength(input.comment, 'utf8');
    if (bytes > LIMITS.commentBytes) {
      throw new ValidationError(`input.comment may hold at most ${LIMITS.commentBytes} bytes (10 KB); it has ${bytes}.`, 'input.comment');
    }
    const feedback: FeedbackDocument = { rating: input.rating ?? null, comment: input.comment, created_at: new Date() };
    if (!(await this.repository.addFeedback(sessionId, feedback, bsonBytes(feedback) + 16))) {
      await this.explainMiss(sessionId, 'input');
    }
    this.forget();
    return Feedback.fromDocument(feedback);
  }

  /** The validated filter as a MongoDB query (shared by `sessions` and `sessionAnalytics`). */
  private filterQuery(filter: SessionFilter | null | undefined): Document {
    const conditions: Document[] = [];
    if (!filter) return {};
    if (filter.sessionType != null) conditions.push({ session_type: filter.sessionType });
    (filter.metadata ?? []).forEach((condition, index) => {
      const field = `filter.metadata.${index}`;
      checkMetadataPath(condition.path, `${field}.path`);
      checkKeys(condition.value, `${field}.value`, true);
      conditions.push({ [`metadata.${condition.path}`]: { $eq: condition.value ?? null } });
    });
    const range = (after: Date | null | undefined, before: Date | null | undefined) => ({
      ...(after ? { $gte: after } : {}),
      ...(before ? { $lt: before } : {}),
    });
    if (filter.createdAfter || filter.createdBefore) conditions.push({ created_at: range(filter.createdAfter, filter.createdBefore) });
    if (filter.updatedAfter || filter.updatedBefore) conditions.push({ updated_at: range(filter.updatedAfter, filter.updatedBefore) });
    switch (filter.feedback) {
      case SessionFeedbackFilter.UP:
        conditions.push({ feedbacks: { $elemMatch: { rating: 'up' } } });
        break;
      case SessionFeedbackFilter.DOWN:
        conditions.push({ feedbacks: { $elemMatch: { rating: 'down' } } });
        break;
      case SessionFeedbackFilter.ANY:
        conditions.push({ 'feedbacks.0': { $exists: true } });
        break;
      case SessionFeedbackFilter.NONE:
        conditions.push({ 'feedbacks.0': { $exists: false } });
        break;
    }
    return conditions.length === 0 ? {} : conditions.length === 1 ? conditions[0] : { $and: conditions };
  }

  /** Drops what this request's loaders hold about a session after a write to it. */
  private forget(): void {
    // Cached under one key per shape it was read with: clear them all (a request writes to one session or few).
    this.loaders.sessionById.clearAll();
    this.loaders.messagePage.clearAll();
  }

  /**
   * After a conditional write matched nothing: NOT_FOUND for what is missing, else the limit that was hit
   * (16 MB for the document, or `otherLimit` when the document still had room for `addedBytes`).
   */
  private async explainMiss(sessionId: string, field: string, target: MissTarget = {}): Promise<never> {
    const { agentId, messageId } = target;
    const found = await this.repository.diagnose(sessionId, agentId, messageId);
    if (!found.sessionExists) throw new NotFoundError(`Session ${sessionId} not found.`, { sessionId });
    if (agentId !== undefined && !found.agentExists) {
      throw new NotFoundError(`Agent ${agentId} not found in session ${sessionId}.`, { sessionId, agentId });
    }
    if (messageId !== undefined && !found.messageExists) {
      throw new NotFoundError(`Message ${messageId} not found for agent ${agentId} in session ${sessionId}.`, { sessionId, agentId, messageId });
    }
    if (target.otherLimit && found.documentBytes + (target.addedBytes ?? 0) <= MAX_DOCUMENT_BYTES) {
      throw new ValidationError(target.otherLimit, field);
    }
    throw new ValidationError(
      `The session document would exceed MongoDB's ${MAX_DOCUMENT_BYTES}-byte (16 MB) limit; it holds ${found.documentBytes} bytes.`,
      field,
    );
  }
}

interface MissTarget {
  agentId?: string;
  messageId?: number;
  addedBytes?: number;
  otherLimit?: string;
}
