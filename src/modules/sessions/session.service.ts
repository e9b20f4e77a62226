import { Idempotency, deletedSince } from '../shared/idempotency';
import { checkScopeId } from '../shared/user-scope';
import { checkJsonInput, checkKeyCount, finiteFigure } from '../shared/json-input';
import { expiryOf } from '../shared/expiry';
import { randomUUID } from 'node:crypto';
import type { Db, Document } from 'mongodb';
import { NotFoundError, ValidationError } from '../../errors';
import { LazyEdge, forwardPage, pageInfoOf, type Connection, type SortKey } from '../shared/connection';
import {
  MAX_DOCUMENT_BYTES,
  type FeedbackDocument,
  type MessageDocument,
  type SessionDocument,
} from './session.document';
import {
  SessionFeedbackFilter,
  SessionGroupBy,
  SessionOrderDirection,
  SessionOrderField,
  type AddFeedbackInput,
  type AppendMessageInput,
  type CreateSessionInput,
  type MessagesArgs,
  type SessionFilter,
  type SessionsArgs,
  type UpdateMessageInput,
  type UpsertAgentInput,
} from './session.input';
import { sessionFromSummary, type SessionLoaders } from './session.loaders';
import { FULL_SUMMARY, SessionRepository, type NewMessage, type SummaryShape } from './session.repository';
import { Agent, Feedback, Message, Session, SessionAnalytics, ValueCount } from './session.type';
import {
  LIMITS,
  bsonBytes,
  checkAgentId,
  checkAppendBatch,
  checkComment,
  checkContent,
  checkMetadataPath,
  checkMetadataSize,
  checkMetadataUpdate,
  checkNewSession,
  isoTimestamp,
  messageWindow,
  metricsDocument,
} from './session.validation';

/**
 * What this process's writes to sessions tell the message index (src/modules/messages/message.indexer.ts), which
 * indexes the messages off the request: `expect` before each write (its change event is then known as this process's
 * own), `cancel` when it wrote nothing, and what changed once it did.
 */
export interface MessageWriteListener {
  expect(sessionId: string): void;
  cancel(sessionId: string): void;
  appended(sessionId: string, agentId: string, messages: readonly MessageDocument[]): void;
  redacted(sessionId: string, agentId: string, message: MessageDocument): void;
  deleted(sessionId: string): void;
}

/**
 * The sessions feature: seed 001's rules (session.validation.ts), coordination of the repository and the
 * per-request loaders (cleared or primed after every write).
 */
export class SessionService {
  private repositoryInstance?: SessionRepository;

  private readonly idempotency: Idempotency;

  constructor(
    private readonly db: Db,
    private readonly loaders: { sessions: SessionLoaders },
    idempotencyTtlHours: number,
    private readonly listener?: MessageWriteListener,
  ) {
    this.idempotency = new Idempotency(db, idempotencyTtlHours);
  }

  /**
   * Built on first use: reads by id go through the loaders (which have their own), and a repository costs ~1.5-3 µs
   * (the driver's Collection), which a `session(id)` read would otherwise pay twice.
   */
  private get repository(): SessionRepository {
    return (this.repositoryInstance ??= new SessionRepository(this.db));
  }

  /** The session read with `shape` (default: everything), or NOT_FOUND. */
  async session(sessionId: string, shape: SummaryShape = FULL_SUMMARY): Promise<Session> {
    const session = await this.loaders.sessions.sessionById.load({ sessionId, shape });
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
        const session = sessionFromSummary(this.loaders.sessions, summary, shape);
        const read = { sessionId: summary._id, shape };
        this.loaders.sessions.sessionById.clear(read).prime(read, session);
        return session;
      },
    });
  }

  /** The agent of a loaded session, or NOT_FOUND. */
  agent(session: Session, agentId: string): Agent {
    const agent = session.agents.find((candidate) => candidate.agentId === agentId);
    if (!agent)
      throw new NotFoundError(`Agent ${agentId} not found in session ${session.sessionId}.`, {
        sessionId: session.sessionId,
        agentId,
      });
    return agent;
  }

  /**
   * A Relay page of an agent's messages (cursor = message_id), sliced in the database; batched per request. Its
   * messages hold only the stored `fields` (null: all), e.g. those the operation selects (`messageFields`).
   */
  async messages(agent: Agent, args: MessagesArgs, fields: string[] | null = null): Promise<Connection<Message>> {
    const { window, size, backward } = messageWindow(args, fields);
    const page = await this.loaders.sessions.messagePage.load({
      sessionId: agent.sessionId,
      agentId: agent.agentId,
      window,
    });
    if (!page) throw new NotFoundError(`Agent ${agent.agentId} not found in session ${agent.sessionId}.`);
    const more = page.page.length > size;
    const nodes = more ? (backward ? page.page.slice(1) : page.page.slice(0, size)) : page.page;
    const edges = nodes.map((message) => new LazyEdge(Message.fromDocument(message, agent), [message.message_id]));
    return {
      edges,
      totalCount: page.total,
      pageInfo: pageInfoOf(
        edges,
        backward ? page.atOrAfterBefore > 0 : more,
        backward ? more : page.atOrBeforeAfter > 0,
      ),
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
      tokens: {
        input: finiteFigure(totals.input),
        output: finiteFigure(totals.output),
        total: finiteFigure(totals.total),
      },
      averageLatencyMs: totals.latencyCount ? finiteFigure(totals.latencySum / totals.latencyCount) : null,
      filter: query,
    });
  }

  /** Sessions of an analytics result counted by session type or by a metadata value. */
  async countsBy(
    analytics: SessionAnalytics,
    by: SessionGroupBy,
    metadataPath: string | null | undefined,
  ): Promise<ValueCount[]> {
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

  /** Creates the session; with an idempotency key, a retry answers with the session the first call created. */
  async createSession(input: CreateSessionInput, idempotencyKey?: string | null): Promise<Session> {
    const generatedId = randomUUID();
    checkNewSession(input.sessionId ?? generatedId, input.sessionType, input.applicationName);
    const userId = checkScopeId(input.userId, 'input.userId') ?? null;
    const metadata = input.metadata ?? {};
    checkJsonInput(metadata, 'input.metadata', { dotsAllowed: false });
    checkMetadataSize(bsonBytes(metadata), 'input.metadata');
    expiryOf(input, new Date());
    return this.idempotency.run({
      key: idempotencyKey,
      operation: 'createSession',
      input,
      plan: () => ({ sessionId: input.sessionId ?? generatedId, now: new Date() }),
      perform: async ({ sessionId, now }, resumed, done) => {
        // Ours when created at the planned time; otherwise the insert below answers CONFLICT as without a key.
        if (resumed && (await this.repository.createdAt(sessionId))?.getTime() === now.getTime()) {
          this.forget();
          return this.session(sessionId);
        }
        if (done) throw deletedSince();
        const expiresAt = expiryOf(input, now);
        return this.insertSession(
          sessionId,
          input.sessionType,
          input.applicationName ?? null,
          userId,
          metadata,
          now,
          expiresAt,
        );
      },
    });
  }

  private async insertSession(
    sessionId: string,
    sessionType: string,
    applicationName: string | null,
    userId: string | null,
    metadata: Record<string, unknown>,
    now: Date,
    expiresAt: Date | undefined,
  ): Promise<Session> {
    // Field order of the seed's complete example (application_name where the Strands manager puts it).
    const document: SessionDocument = {
      _id: sessionId,
      session_id: sessionId,
      ...(applicationName !== null ? { application_name: applicationName } : {}),
      ...(userId !== null ? { user_id: userId } : {}),
      session_type: sessionType,
      created_at: now,
      updated_at: now,
      metadata,
      feedbacks: [],
      agents: {},
      ...(expiresAt ? { expires_at: expiresAt } : {}),
    };
    await this.reported(sessionId, () => this.repository.insert(document).then(() => true));
    const session = Session.fromSummary({ ...document, agents: [] });
    this.loaders.sessions.sessionById.clearAll().prime({ sessionId, shape: FULL_SUMMARY }, session);
    return session;
  }

  /** Deletes the session, or NOT_FOUND. */
  async deleteSession(sessionId: string): Promise<boolean> {
    if (!(await this.reported(sessionId, () => this.repository.delete(sessionId))))
      throw new NotFoundError(`Session ${sessionId} not found.`, { sessionId });
    this.listener?.deleted(sessionId);
    this.forget();
    return true;
  }

  /** Seed 001's create_agent, made an upsert: an existing agent keeps its messages and created_at. */
  async upsertAgent(sessionId: string, input: UpsertAgentInput): Promise<Agent> {
    checkAgentId(input.agentId, 'input.agentId');
    checkJsonInput(input.agentData, 'input.agentData');
    const { agent_id: givenId, created_at: createdAt, updated_at: updatedAt, ...rest } = input.agentData;
    if (givenId !== undefined && givenId !== input.agentId) {
      throw new ValidationError(
        'input.agentData.agent_id must equal input.agentId when given.',
        'input.agentData.agent_id',
      );
    }
    for (const name of Object.keys(rest)) {
      // Each field is set on its own path (agent_data.<name>), like the Strands manager's update_agent.
      if (name.includes('.') || name.startsWith('$') || name === '__proto__') {
        throw new ValidationError(`input.agentData: the field name "${name}" cannot be stored.`, 'input.agentData');
      }
    }
    const now = new Date();
    const agentData = { agent_id: input.agentId, ...rest };
    const times = {
      created: createdAt == null ? null : new Date(isoTimestamp(createdAt, 'input.agentData.created_at')),
      updated: updatedAt == null ? now : new Date(isoTimestamp(updatedAt, 'input.agentData.updated_at')),
      now,
    };
    const addedBytes = bsonBytes(agentData) + 256;
    if (
      !(await this.reported(sessionId, () =>
        this.repository.upsertAgent(sessionId, input.agentId, agentData, times, addedBytes),
      ))
    ) {
      await this.explainMiss(sessionId, 'input.agentData');
    }
    this.forget();
    return this.agent(await this.session(sessionId), input.agentId);
  }

  /**
   * Appends messages to an agent in one atomic update; the database allocates their ids. `fieldOf(i)`
   * names the input of message i in errors.
   */
  async appendMessages(
    sessionId: string,
    agentId: string,
    inputs: AppendMessageInput[],
    fieldOf: (index: number) => string,
    idempotencyKey?: string | null,
  ): Promise<Message[]> {
    checkAgentId(agentId, 'agentId');
    checkAppendBatch(inputs.length);
    const messages: NewMessage[] = inputs.map((input, index) => {
      const field = fieldOf(index);
      checkContent(input.content, `${field}.content`);
      const metrics = metricsDocument(input.eventLoopMetrics, `${field}.eventLoopMetrics`);
      return { role: input.role, content: input.content, ...(metrics ? { event_loop_metrics: metrics } : {}) };
    });
    // Each stored message also carries its id, two dates and its array index key.
    const addedBytes = messages.reduce((sum, message) => sum + bsonBytes(message) + 64, 0);
    const field = inputs.length === 1 ? fieldOf(0) : 'inputs';
    return this.idempotency.run({
      key: idempotencyKey,
      operation: 'appendMessages',
      input: { sessionId, agentId, inputs },
      plan: () => ({ now: new Date(), writeId: randomUUID() }),
      perform: async ({ now, writeId }, resumed, done) => {
        const keyedId = idempotencyKey == null ? null : writeId;
        const written =
          keyedId !== null && resumed
            ? await this.repository.appendedMessages(sessionId, agentId, keyedId, messages.length)
            : null;
        if (done && (written?.length ?? 0) < messages.length) throw deletedSince();
        const appended = written
          ? null
          : await this.reported(sessionId, () =>
              this.repository.appendMessages(sessionId, agentId, messages, now, addedBytes, field, keyedId),
            );
        if (appended) this.listener?.appended(sessionId, agentId, appended);
        const stored =
          written ??
          appended ??
          // A concurrent attempt of this keyed call appended them meanwhile.
          (keyedId !== null
            ? await this.repository.appendedMessages(sessionId, agentId, keyedId, messages.length)
            : null);
        if (!stored) return this.explainMiss(sessionId, field, { agentId });
        this.forget();
        return stored.map((message) => Message.fromDocument(message, { sessionId, agentId }));
      },
    });
  }

  /** Redaction: new content (and metrics when given); created_at kept, updated_at refreshed at every level. */
  async updateMessage(
    sessionId: string,
    agentId: string,
    messageId: number,
    input: UpdateMessageInput,
  ): Promise<Message> {
    checkAgentId(agentId, 'agentId');
    checkContent(input.content, 'input.content');
    const metrics = metricsDocument(input.eventLoopMetrics, 'input.eventLoopMetrics');
    const change = { content: input.content, ...(metrics ? { event_loop_metrics: metrics } : {}) };
    const now = new Date();
    const updated = await this.reported(sessionId, () =>
      this.repository.updateMessage(sessionId, agentId, messageId, change, now, bsonBytes(change)),
    );
    if (!updated) await this.explainMiss(sessionId, 'input.content', { agentId, messageId });
    this.forget();
    const stored = await this.repository.findMessage(sessionId, agentId, messageId);
    if (!stored) throw new NotFoundError(`Message ${messageId} not found.`, { sessionId, agentId, messageId });
    this.listener?.redacted(sessionId, agentId, stored);
    return Message.fromDocument(stored, { sessionId, agentId });
  }

  /** Partial merge: one `$set` per key (a key with dots sets a nested field); the metadata stays within 1 MB. */
  async updateMetadata(sessionId: string, metadata: Record<string, unknown>): Promise<Session> {
    checkMetadataUpdate(metadata);
    const paths = Object.keys(metadata);
    const entries = paths.map((path): [string, unknown, number] => [path, metadata[path], bsonBytes(metadata[path])]);
    const addedBytes = entries.reduce((sum, [, , bytes]) => sum + bytes, 0);
    checkMetadataSize(addedBytes, 'metadata');
    if (
      !(await this.reported(sessionId, () =>
        this.repository.setMetadata(sessionId, entries, LIMITS.metadataBytes, new Date()),
      ))
    ) {
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
    checkKeyCount(keys.length, 'keys');
    keys.forEach((key) => checkMetadataPath(key, 'keys'));
    if (!(await this.reported(sessionId, () => this.repository.unsetMetadata(sessionId, keys, new Date()))))
      await this.explainMiss(sessionId, 'keys');
    this.forget();
    return this.session(sessionId);
  }

  async addFeedback(sessionId: string, input: AddFeedbackInput, idempotencyKey?: string | null): Promise<Feedback> {
    checkComment(input.comment);
    return this.idempotency.run({
      key: idempotencyKey,
      operation: 'addFeedback',
      input: { sessionId, input },
      plan: () => ({ now: new Date() }),
      perform: async ({ now }, resumed, done) => {
        const feedback: FeedbackDocument = { rating: input.rating ?? null, comment: input.comment, created_at: now };
        const written = resumed ? await this.repository.feedbackIndexAt(sessionId, now) : null;
        if (done && written === null) throw deletedSince();
        const index =
          written ??
          (await this.reported(sessionId, () =>
            this.repository.addFeedback(sessionId, feedback, bsonBytes(feedback) + 16),
          )) ??
          (await this.explainMiss(sessionId, 'input'));
        this.forget();
        return Feedback.fromDocument(feedback, sessionId, index);
      },
    });
  }

  /** The validated filter as a MongoDB query (shared by `sessions` and `sessionAnalytics`). */
  private filterQuery(filter: SessionFilter | null | undefined): Document {
    const conditions: Document[] = [];
    if (!filter) return {};
    if (filter.sessionType != null) conditions.push({ session_type: filter.sessionType });
    if (filter.userId != null) conditions.push({ user_id: checkScopeId(filter.userId, 'filter.userId') });
    (filter.metadata ?? []).forEach((condition, index) => {
      const field = `filter.metadata.${index}`;
      checkMetadataPath(condition.path, `${field}.path`);
      checkJsonInput(condition.value, `${field}.value`);
      conditions.push({ [`metadata.${condition.path}`]: { $eq: condition.value ?? null } });
    });
    const range = (after: Date | null | undefined, before: Date | null | undefined) => ({
      ...(after ? { $gte: after } : {}),
      ...(before ? { $lt: before } : {}),
    });
    if (filter.createdAfter || filter.createdBefore)
      conditions.push({ created_at: range(filter.createdAfter, filter.createdBefore) });
    if (filter.updatedAfter || filter.updatedBefore)
      conditions.push({ updated_at: range(filter.updatedAfter, filter.updatedBefore) });
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

  /**
   * Runs one write to a session, telling the message index beforehand (so its change event is known as this
   * process's) and again when it wrote nothing (a null, false or thrown result).
   */
  private async reported<T>(sessionId: string, write: () => Promise<T>): Promise<T> {
    const listener = this.listener;
    if (!listener) return write();
    listener.expect(sessionId);
    let wrote = false;
    try {
      const result = await write();
      wrote = result !== null && result !== false;
      return result;
    } finally {
      if (!wrote) listener.cancel(sessionId);
    }
  }

  /** Drops what this request's loaders hold about a session after a write to it. */
  private forget(): void {
    // Cached under one key per shape it was read with: clear them all (a request writes to one session or few).
    this.loaders.sessions.sessionById.clearAll();
    this.loaders.sessions.messagePage.clearAll();
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
      throw new NotFoundError(`Message ${messageId} not found for agent ${agentId} in session ${sessionId}.`, {
        sessionId,
        agentId,
        messageId,
      });
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
