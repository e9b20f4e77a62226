import { MongoServerError, type Collection, type Db, type Document, type Filter } from 'mongodb';
import { aggregateDocuments, findDocuments } from '../../db/bson-reader';
import { ConflictError, ValidationError, isDuplicateKeyError } from '../../errors';
import type { SortKey } from '../shared/connection';
import { MAX_APPLIED_WRITES } from '../shared/idempotency';
import { storedDamage } from '../shared/stored-damage';
import { withUnexpired } from '../shared/expiry';
import {
  MAX_DOCUMENT_BYTES,
  SESSIONS_COLLECTION,
  type FeedbackDocument,
  type EventLoopMetricsDocument,
  type MessageDocument,
  type SdkMessage,
  type AppliedAppend,
  type SessionDocument,
} from './session.document';
import type { ChangeFeed, ChangeFollower } from '../../db/change-follower';
import type { MemoryScope } from '../shared/memory-scope';

/** A session's messages as the message index reads them (`SessionRepository.messagesForIndex`). */
export interface SessionMessages {
  userId: string | null;
  agents: Array<{ agentId: string; messages: MessageDocument[] }>;
}

/** A session as the message index compares it (`SessionRepository.messageSignaturesAfter`). */
export interface SessionMessageSignature {
  _id: string;
  userId: string | null;
  agents: Array<{ agentId: string; count: number; lastUpdated: unknown }>;
}

/** The sessions a forget scope touches: a user's, the one session, or those holding the agent (any stored key). */
function scopeQuery({ kind, value }: MemoryScope): Document {
  if (kind === 'userId') return { user_id: value };
  if (kind === 'sessionId') return { _id: value };
  return { $expr: { $eq: [{ $type: agentField(value) }, 'object'] } };
}

/** What forgetting a scope takes from the sessions: whole sessions, or one agent's part of each. */
export interface SessionsInScope {
  /** The sessions deleted whole (a user's, or the one session). */
  sessionIds: string[];
  /** Sessions losing the agent (agent scope). */
  changed: number;
  messages: number;
  /** The keyed appends whose messages go (their idempotency records go too). */
  writeIds: string[];
}

/**
 * An agent without its messages: counts, token sums, the last message and pages of messages, computed in the
 * database. The optional parts are there when the read's `SummaryShape` asked for them.
 */
export interface AgentSummary {
  agent_id: string;
  agent_data?: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
  message_count?: number;
  last_message?: MessageDocument;
  input_tokens?: number;
  output_tokens?: number;
  total_tokens?: number;
  /** One page per window of the shape, in its order; null when the agent is not an object (no page can be read). */
  pages?: MessagePage[] | null;
}

/** A session as read for the API: never the message arrays; metadata and feedbacks when the shape asked for them. */
export interface SessionSummary
  extends
    Omit<SessionDocument, 'agents' | 'metadata' | 'feedbacks'>,
    Partial<Pick<SessionDocument, 'metadata' | 'feedbacks'>> {
  agents: AgentSummary[];
}

/**
 * What a session read computes besides the session's own fields; derived from what a GraphQL operation selects
 * (session.selection.ts), so that a read returning only ids does not sum every message's tokens.
 */
export interface SummaryShape {
  /** The session's metadata and feedbacks (without them: absent). */
  metadata: boolean;
  feedbacks: boolean;
  /** The session's created_at (updated_at always comes: pages are ordered and resumed by it). */
  createdAt: boolean;
  /** The agents (ids); without it `agents` is empty. */
  agents: boolean;
  /** Per agent: created_at and updated_at. */
  agentTimes: boolean;
  /** Per agent: its agent_data (without it: absent). */
  agentData: boolean;
  /** Per agent: message_count. */
  messageCount: boolean;
  /** Per agent: last_message, only when selected. */
  lastMessage: boolean;
  /** The stored fields of last_message to read (null: the whole message). */
  lastMessageFields: string[] | null;
  /** Per agent: the token sums of its messages. */
  tokens: boolean;
  /** Per agent: one page of messages per window, read with the session (they prime the `messagePage` loader). */
  windows: MessageWindow[];
  /** Identifies the shape in loader cache keys. */
  key: string;
}

/** Builds a shape and its key. */
export function summaryShape(parts: Omit<SummaryShape, 'key'>): SummaryShape {
  return { ...parts, key: JSON.stringify(parts) };
}

/** Everything (the shape of reads that do not know what will be selected, e.g. after a write). */
export const FULL_SUMMARY: SummaryShape = summaryShape({
  metadata: true,
  feedbacks: true,
  createdAt: true,
  agents: true,
  agentTimes: true,
  agentData: true,
  messageCount: true,
  lastMessage: true,
  lastMessageFields: null,
  tokens: true,
  windows: [],
});

/** A message to append, without its id (the database allocates it). */
export interface NewMessage {
  role: string;
  content: unknown;
  event_loop_metrics?: EventLoopMetricsDocument;
}

/** Which part of the message list a page takes (ids are `message_id`s; bounds are exclusive). */
export interface MessageWindow {
  role: string | null;
  afterId: number | null;
  beforeId: number | null;
  /** Positive: the first n of the window; negative: the last n. */
  take: number;
  /** The stored message fields the page returns (`message_id` among them); null: whole messages. */
  fields: string[] | null;
}

export interface MessagePage {
  /** The role-filtered list size. */
  total: number;
  /** Up to |take| + 1 messages: the extra one tells that the window holds more. */
  page: MessageDocument[];
  /** Role-filtered messages at or before `afterId` (0 without it). */
  atOrBeforeAfter: number;
  /** Role-filtered messages at or after `beforeId` (0 without it). */
  atOrAfterBefore: number;
}

/** An agent of a session. */
export interface AgentRef {
  sessionId: string;
  agentId: string;
}

/** A message of an agent. */
export interface MessageRef extends AgentRef {
  messageId: number;
}

/** Map key of an agent in `messagePages` results. */
export function messagePageKey(agent: AgentRef): string {
  return JSON.stringify([agent.sessionId, agent.agentId]);
}

/** Why a conditional write matched nothing. */
export interface WriteDiagnosis {
  sessionExists: boolean;
  agentExists: boolean;
  messageExists: boolean;
  documentBytes: number;
}

export interface AnalyticsTotals {
  sessionCount: number;
  messageCount: number;
  input: number;
  output: number;
  total: number;
  latencySum: number;
  latencyCount: number;
  up: number;
  down: number;
  neutral: number;
}

/** Filter condition: the document stays within 16 MiB after growing by `addedBytes` (checked atomically by the write). */
function fitsAfterGrowth(addedBytes: number): Document {
  return { $lte: [{ $bsonSize: '$$ROOT' }, MAX_DOCUMENT_BYTES - addedBytes] };
}

/** An agent's sub-document read by key: works for any stored key (dots, dollars), unlike a field path. */
function agentField(agentId: string): Document {
  return { $getField: { field: { $literal: agentId }, input: '$agents' } };
}

const ZERO_IF_MISSING = (expression: unknown) => ({ $ifNull: [expression, 0] });

// Reads take stored shapes as they come (a document another tool wrote may hold `agents`, `messages` or `feedbacks`
// of another type): what is not an object or an array reads as an empty one instead of failing the whole aggregate.
const ARRAY_OR_EMPTY = (path: string) => ({ $cond: [{ $isArray: path }, path, []] });
const OBJECT_OR_EMPTY = (path: string) => ({ $cond: [{ $eq: [{ $type: path }, 'object'] }, path, {}] });

/**
 * An expression evaluating to the `MessagePage` of `window` over `messages` (an expression of a message array):
 * filtered by role, sliced and cut to the window's fields inside the database, so the arrays never leave it.
 */
function messagePageExpression(messages: unknown, window: MessageWindow): Document {
  const id = '$$m.message_id';
  const inWindow: Document[] = [];
  if (window.afterId !== null) inWindow.push({ $gt: [id, window.afterId] });
  if (window.beforeId !== null) inWindow.push({ $lt: [id, window.beforeId] });
  const countWhere = (condition: Document | null) =>
    condition ? { $size: { $filter: { input: '$$list', as: 'm', cond: condition } } } : { $literal: 0 };
  const sliced = {
    $slice: [
      inWindow.length ? { $filter: { input: '$$list', as: 'm', cond: { $and: inWindow } } } : '$$list',
      window.take > 0 ? window.take + 1 : window.take - 1,
    ],
  };
  return {
    $let: {
      vars: {
        list:
          window.role === null
            ? messages
            : {
                $filter: {
                  input: messages,
                  as: 'm',
                  cond: { $eq: [{ $ifNull: ['$$m.role', '$$m.message.role'] }, { $literal: window.role }] },
                },
              },
      },
      in: {
        total: { $size: '$$list' },
        page: window.fields
          ? {
              $map: {
                input: sliced,
                as: 'kept',
                in: Object.fromEntries(window.fields.map((field) => [field, `$$kept.${field}`])),
              },
            }
          : sliced,
        atOrBeforeAfter: countWhere(window.afterId === null ? null : { $lte: [id, window.afterId] }),
        atOrAfterBefore: countWhere(window.beforeId === null ? null : { $gte: [id, window.beforeId] }),
      },
    },
  };
}

/** `$project` turning a stored session into a `SessionSummary` of `shape`, keeping the fields `sortedBy` too. */
function summaryProjection(shape: SummaryShape, sortedBy: readonly SortKey[] = []): Document {
  const messages = ARRAY_OR_EMPTY('$$a.v.messages');
  const agent: Document = { agent_id: '$$a.k' };
  if (shape.agentTimes) Object.assign(agent, { created_at: '$$a.v.created_at', updated_at: '$$a.v.updated_at' });
  if (shape.agentData) agent.agent_data = '$$a.v.agent_data';
  if (shape.messageCount) agent.message_count = { $size: messages };
  if (shape.lastMessage) {
    const fields = shape.lastMessageFields;
    agent.last_message = {
      $arrayElemAt: [
        fields
          ? {
              $map: {
                input: { $slice: [messages, -1] },
                as: 'kept',
                in: Object.fromEntries(fields.map((field) => [field, `$$kept.${field}`])),
              },
            }
          : messages,
        -1,
      ],
    };
  }
  if (shape.tokens) {
    const usage = (field: string) =>
      ZERO_IF_MISSING({
        $sum: { $map: { input: messages, as: 'm', in: `$$m.event_loop_metrics.accumulated_usage.${field}` } },
      });
    agent.input_tokens = usage('inputTokens');
    agent.output_tokens = usage('outputTokens');
    agent.total_tokens = usage('totalTokens');
  }
  if (shape.windows.length) {
    agent.pages = {
      $cond: [
        { $eq: [{ $type: '$$a.v' }, 'object'] },
        shape.windows.map((window) => messagePageExpression(messages, window)),
        null,
      ],
    };
  }
  return {
    $project: {
      session_id: 1,
      application_name: 1,
      user_id: 1,
      session_type: 1,
      ...(shape.createdAt ? { created_at: 1 } : {}),
      updated_at: 1,
      expires_at: 1,
      ...Object.fromEntries(sortedBy.map((key) => [key.field, 1])),
      ...(shape.metadata ? { metadata: 1 } : {}),
      ...(shape.feedbacks ? { feedbacks: 1 } : {}),
      agents: shape.agents
        ? { $map: { input: { $objectToArray: OBJECT_OR_EMPTY('$agents') }, as: 'a', in: agent } }
        : { $literal: [] },
    },
  };
}

/** The Strands SDK's message (`{role, content: [blocks]}`): a string content becomes one text block. */
export function sdkMessage(role: string, content: unknown): SdkMessage {
  return { role, content: typeof content === 'string' ? [{ text: content }] : content };
}

/** Server codes for a document that would pass the size limit. */
const TOO_LARGE_CODES = new Set([10334, 17419, 17420]);
/** Server codes for an update path that cannot be applied (e.g. a dot path through a string, or overlapping paths). */
const BAD_PATH_CODES = new Set([28, 40]);

/** Turns server rejections of a write into client errors naming `field`; anything else is rethrown. */
function translateWriteError(error: unknown, field: string): never {
  if (error instanceof MongoServerError) {
    if (TOO_LARGE_CODES.has(Number(error.code)) || /too large/i.test(error.message)) {
      throw new ValidationError(`The session document would exceed MongoDB's 16 MB limit.`, field);
    }
    if (BAD_PATH_CODES.has(Number(error.code))) throw new ValidationError(error.message, field);
  }
  throw error;
}

/** The only code touching the `sessions` collection (documents in seed 001's shape: session.document.ts). */
/**
 * The first stages of a read of several agents: their sessions, then one document per agent asked for that exists
 * (`_id` its session, `agent: {k: agentId, v: agent}`). Agents of other sessions with an asked-for id may come along:
 * the stages after pick by `sessionId` and `agentId`.
 */
function agentsStages(agents: readonly AgentRef[]): Document[] {
  return [
    { $match: live({ _id: { $in: [...new Set(agents.map((agent) => agent.sessionId))] } }) },
    {
      $project: {
        agent: {
          $filter: {
            input: { $objectToArray: OBJECT_OR_EMPTY('$agents') },
            as: 'a',
            cond: {
              $and: [
                { $in: ['$$a.k', { $literal: [...new Set(agents.map((agent) => agent.agentId))] }] },
                { $eq: [{ $type: '$$a.v' }, 'object'] },
              ],
            },
          },
        },
      },
    },
    { $unwind: '$agent' },
  ];
}

/**
 * `filter` restricted to sessions not expired now: every read and write of this repository goes through it, so an
 * expired session is gone (reads miss it, writes answer NOT_FOUND) before the TTL monitor deletes it.
 */
function live(filter: Document): Filter<SessionDocument> {
  return withUnexpired(filter, 'expires_at', new Date());
}

export class SessionRepository {
  private readonly collection: Collection<SessionDocument>;

  constructor(private readonly db: Db) {
    this.collection = db.collection<SessionDocument>(SESSIONS_COLLECTION);
  }

  /**
   * Inserts a new session; an existing id is a ConflictError, unless that session has expired (gone for readers, not
   * yet deleted by the TTL monitor): it is deleted now and the new one takes its id.
   */
  async insert(session: SessionDocument): Promise<void> {
    try {
      await this.collection.insertOne(session);
    } catch (error) {
      if (isDuplicateKeyError(error)) {
        const expired = await this.collection.deleteOne({ _id: session._id, expires_at: { $lte: new Date() } });
        if (expired.deletedCount === 1) return this.insert(session);
        throw new ConflictError(`Session ${session._id} already exists.`, { sessionId: session._id });
      }
      translateWriteError(error, 'input');
    }
  }

  /** True when a session was deleted. */
  async delete(sessionId: string): Promise<boolean> {
    const result = await this.collection.deleteOne(live({ _id: sessionId }));
    return result.deletedCount === 1;
  }

  /** Summaries of `shape` of the sessions with these ids (one aggregate, any order, misses left out). */
  async findSummaries(ids: string[], shape: SummaryShape = FULL_SUMMARY): Promise<SessionSummary[]> {
    if (!shape.agents) {
      // Without agents a plain projection does: an aggregate would hand whole sessions (every message) to the
      // pipeline (measured: a page of 50 experiences with their sessions at 0.21× the plain driver's req/s).
      const { $project: fields } = summaryProjection(shape) as { $project: Document };
      const projection = Object.fromEntries(Object.entries(fields).filter(([field]) => field !== 'agents'));
      const summaries = await findDocuments<SessionSummary>(this.db, SESSIONS_COLLECTION, live({ _id: { $in: ids } }), {
        projection,
      });
      // Each decoded document is completed in place, not copied.
      for (const summary of summaries) summary.agents = [];
      return summaries;
    }
    return aggregateDocuments<SessionSummary>(this.db, SESSIONS_COLLECTION, [
      { $match: live({ _id: { $in: ids } }) },
      summaryProjection(shape),
    ]);
  }

  /** One keyset page of summaries of `shape`: `filter` and `after` both apply, sorted along `sort`. */
  findSummaryPage(
    filter: Document,
    after: Document | null,
    sort: SortKey[],
    limit: number,
    shape: SummaryShape = FULL_SUMMARY,
  ): Promise<SessionSummary[]> {
    const match = after ? { $and: [filter, after] } : filter;
    const order = Object.fromEntries(sort.map((key) => [key.field, key.direction]));
    return aggregateDocuments<SessionSummary>(this.db, SESSIONS_COLLECTION, [
      { $match: live(match) },
      { $sort: order },
      { $limit: limit },
      summaryProjection(shape, sort),
    ]);
  }

  count(filter: Document): Promise<number> {
    return this.collection.countDocuments(live(filter));
  }

  /**
   * The same page of several agents' messages in one aggregate, filtered and sliced inside the database
   * (the arrays never leave it). Keyed by `messagePageKey`; agents that do not exist are left out.
   */
  async messagePages(agents: AgentRef[], window: MessageWindow): Promise<Map<string, MessagePage>> {
    const rows = await this.collection
      .aggregate<AgentRef & { page: MessagePage }>([
        ...agentsStages(agents),
        {
          $project: {
            _id: 0,
            sessionId: '$_id',
            agentId: '$agent.k',
            page: messagePageExpression(ARRAY_OR_EMPTY('$agent.v.messages'), window),
          },
        },
      ])
      .toArray();
    return new Map(rows.map(({ sessionId, agentId, page }) => [messagePageKey({ sessionId, agentId }), page]));
  }

  /** One message, or null when the session, agent or message does not exist. */
  async findMessage(sessionId: string, agentId: string, messageId: number): Promise<MessageDocument | null> {
    const [result] = await this.collection
      .aggregate<{ message: MessageDocument[] }>([
        { $match: live({ _id: sessionId }) },
        { $project: { _id: 0, agent: agentField(agentId) } },
        {
          $project: {
            message: {
              $filter: {
                input: { $ifNull: ['$agent.messages', []] },
                as: 'm',
                cond: { $eq: ['$$m.message_id', messageId] },
              },
            },
          },
        },
      ])
      .toArray();
    return result?.message[0] ?? null;
  }

  /**
   * The messages the keyed append `writeId` wrote to the agent (see `appendMessages`), in order: all `count` of them,
   * fewer when some were deleted since, null when that append did not happen.
   */
  async appendedMessages(
    sessionId: string,
    agentId: string,
    writeId: string,
    count: number,
  ): Promise<MessageDocument[] | null> {
    const [result] = await this.collection
      .aggregate<{ applied: AppliedAppend[]; messages: MessageDocument[] }>([
        { $match: live({ _id: sessionId, 'applied_writes.write_id': writeId }) },
        { $project: { _id: 0, agent: agentField(agentId), applied: '$applied_writes' } },
        { $project: { messages: { $ifNull: ['$agent.messages', []] }, applied: 1 } },
      ])
      .toArray();
    const entry = result?.applied.find((applied) => applied.write_id === writeId);
    if (!entry) return null;
    const last = entry.first_message_id + count;
    return result.messages.filter(
      (message) => message.message_id >= entry.first_message_id && message.message_id < last,
    );
  }

  /** When the session was created, or null when there is none. */
  async createdAt(sessionId: string): Promise<Date | null> {
    const found = await this.collection.findOne(live({ _id: sessionId }), { projection: { _id: 0, created_at: 1 } });
    return found?.created_at ?? null;
  }

  /** Where in `feedbacks` the entry created at `at` (the one an `addFeedback` wrote) is; null when it is not. */
  async feedbackIndexAt(sessionId: string, at: Date): Promise<number | null> {
    const [found] = await this.collection
      .aggregate<{ index: number }>([
        { $match: live({ _id: sessionId }) },
        { $project: { _id: 0, index: { $indexOfArray: [{ $ifNull: ['$feedbacks.created_at', []] }, at] } } },
      ])
      .toArray();
    return found && found.index >= 0 ? found.index : null;
  }

  /** Explains why a conditional write on this session matched nothing. */
  async diagnose(sessionId: string, agentId?: string, messageId?: number): Promise<WriteDiagnosis> {
    const [result] = await this.collection
      .aggregate<Omit<WriteDiagnosis, 'sessionExists'>>([
        { $match: live({ _id: sessionId }) },
        {
          $project: {
            _id: 0,
            documentBytes: { $bsonSize: '$$ROOT' },
            agent: agentId === undefined ? { $literal: null } : agentField(agentId),
          },
        },
        {
          $project: {
            documentBytes: 1,
            agentExists: { $eq: [{ $type: '$agent' }, 'object'] },
            messageExists: { $in: [messageId ?? null, { $ifNull: ['$agent.messages.message_id', []] }] },
          },
        },
      ])
      .toArray();
    return result
      ? { sessionExists: true, ...result }
      : { sessionExists: false, agentExists: false, messageExists: false, documentBytes: 0 };
  }

  /**
   * Creates the agent, or updates it like the Strands manager's update_agent: each agent_data field given is set on
   * its own path (so `model`, `system_prompt`, `prompt_metadata` and unknown fields survive), SessionAgent's required
   * fields are kept or start empty, and its messages and created_at stay (one atomic update). Dates are BSON dates:
   * `times.created` null keeps the stored one, else now. False when the session does not match (missing, too large).
   */
  async upsertAgent(
    sessionId: string,
    agentId: string,
    agentData: Record<string, unknown>,
    times: { created: Date | null; updated: Date; now: Date },
    addedBytes: number,
  ): Promise<boolean> {
    const path = `agents.${agentId}`;
    const existing = `$${path}`;
    const keptOr = (stored: string, initial: unknown) => ({
      $ifNull: [`${existing}.${stored}`, { $literal: initial }],
    });
    const fields: Document = {};
    for (const name of ['state', 'conversation_manager_state', '_internal_state']) {
      fields[`${path}.agent_data.${name}`] = keptOr(`agent_data.${name}`, {});
    }
    for (const [name, value] of Object.entries(agentData)) fields[`${path}.agent_data.${name}`] = { $literal: value };
    try {
      const result = await this.collection.updateOne(live({ _id: sessionId, $expr: fitsAfterGrowth(addedBytes) }), [
        {
          $set: {
            ...fields,
            [`${path}.agent_data.created_at`]:
              times.created !== null ? { $literal: times.created } : keptOr('agent_data.created_at', times.now),
            [`${path}.agent_data.updated_at`]: { $literal: times.updated },
            [`${path}.created_at`]: keptOr('created_at', times.now),
            [`${path}.updated_at`]: { $literal: times.now },
            [`${path}.messages`]: keptOr('messages', []),
            updated_at: { $literal: times.now },
          },
        },
      ]);
      return result.matchedCount === 1;
    } catch (error) {
      translateWriteError(error, 'input.agentData');
    }
  }

  /**
   * Appends messages in one atomic update, in the shape the agent's last message has (seed 001's flattened one, ids
   * continuing from the highest) or, for an agent without messages, the Strands SDK's `SessionMessage` with ids from 0
   * (session.document.ts). The ids and the shape are computed by the database inside the update (no counter field,
   * so SDK-written sessions work too); concurrent appends therefore never share an id. Returns the appended messages
   * as stored, or null when the session does not match (missing, agent missing, or too large).
   */
  async appendMessages(
    sessionId: string,
    agentId: string,
    messages: NewMessage[],
    now: Date,
    addedBytes: number,
    field: string,
    writeId: string | null = null,
  ): Promise<MessageDocument[] | null> {
    const path = `agents.${agentId}`;
    const list = `$${path}.messages`;
    // The keyed append's record (below) takes about 128 bytes more.
    const growth = addedBytes + (writeId === null ? 0 : 128);
    const filter = live({ _id: sessionId, [path]: { $type: 'object' }, $expr: fitsAfterGrowth(growth) });
    // The stored messages that are documents: an item that is not one (damage another tool left) stays where it is,
    // but neither the ids nor the shape follow it. Filtering them costs a pass over the whole list, so it is only
    // the fallback of the checks below, which read the ids' plain maximum and the last item.
    const documents = {
      $filter: { input: { $ifNull: [list, []] }, as: 'm', cond: { $eq: [{ $type: '$$m' }, 'object'] } },
    };
    const numeric = (value: unknown) => ({ $in: [{ $type: value }, ['int', 'long', 'double', 'decimal']] });
    // The first id this append takes: one past the highest, or 0 for the first message (the SDK's index). The plain
    // $max of the ids is that highest whenever it is a number (numbers sort above null and below every other type);
    // otherwise (ids of other types, damage) the numeric ones are picked out.
    const first = {
      $let: {
        vars: { highest: { $max: { $ifNull: [`${list}.message_id`, []] } } },
        in: {
          $cond: [
            numeric('$$highest'),
            { $add: ['$$highest', 1] },
            {
              $ifNull: [
                {
                  $add: [
                    {
                      $max: {
                        $filter: {
                          input: { $map: { input: documents, as: 'd', in: '$$d.message_id' } },
                          as: 'id',
                          cond: numeric('$$id'),
                        },
                      },
                    },
                    1,
                  ],
                },
                0,
              ],
            },
          ],
        },
      },
    };
    // Seed 001's shape when the last stored document has a top-level role: the last item, unless it is not one.
    const roleIsString = (message: unknown) => ({
      $eq: [{ $type: { $getField: { field: 'role', input: message } } }, 'string'],
    });
    const flat = {
      $let: {
        vars: { last: { $arrayElemAt: [{ $ifNull: [list, []] }, -1] } },
        in: {
          $cond: [
            { $eq: [{ $type: '$$last' }, 'object'] },
            roleIsString('$$last'),
            roleIsString({ $arrayElemAt: [documents, -1] }),
          ],
        },
      },
    };
    // A keyed append records itself (the first id it takes) beside the seed's fields, in the same update, and
    // matches only while not recorded: `appendedMessages` finds exactly its messages, and it never applies twice.
    const applied: Document = {};
    if (writeId !== null) {
      filter['applied_writes.write_id'] = { $ne: writeId };
      const entry = { write_id: { $literal: writeId }, agent_id: { $literal: agentId }, first_message_id: first };
      applied.applied_writes = {
        $slice: [{ $concatArrays: [{ $ifNull: ['$applied_writes', []] }, [entry]] }, -MAX_APPLIED_WRITES],
      };
    }
    const stored = (message: NewMessage, index: number) => {
      const id = { $add: ['$$first', index] };
      const times = { created_at: { $literal: now }, updated_at: { $literal: now } };
      const metrics = message.event_loop_metrics
        ? { event_loop_metrics: { $literal: message.event_loop_metrics } }
        : {};
      const flat = { message_id: id, role: { $literal: message.role }, content: { $literal: message.content } };
      const sdk = {
        message: { $literal: sdkMessage(message.role, message.content) },
        message_id: id,
        redact_message: null,
      };
      return { $cond: ['$$flat', { ...flat, ...times, ...metrics }, { ...sdk, ...times, ...metrics }] };
    };
    try {
      const updated = await this.collection.findOneAndUpdate(
        filter,
        [
          {
            $set: {
              ...applied,
              [`${path}.messages`]: {
                $let: {
                  vars: { first, flat },
                  // The stored messages are kept as they are, shared with the previous version of the session.
                  in: { $concatArrays: [{ $ifNull: [list, []] }, messages.map(stored)] },
                },
              },
              [`${path}.updated_at`]: { $literal: now },
              updated_at: { $literal: now },
            },
          },
        ],
        {
          // The post-image of this very update: its last n messages are the ones it appended.
          projection: { [`${path}.updated_at`]: 1, [`${path}.messages`]: { $slice: -messages.length } },
          returnDocument: 'after',
        },
      );
      return updated ? updated.agents[agentId].messages : null;
    } catch (error) {
      const damage = await storedDamage(
        this.collection,
        { _id: sessionId },
        { [`${path}.messages`]: 'list', applied_writes: 'list' },
        `session ${JSON.stringify(sessionId)}`,
      );
      if (damage) throw damage;
      translateWriteError(error, field);
    }
  }

  /**
   * Redacts a message, keeping created_at: a seed-shaped message gets the new content, an SDK-shaped one a
   * `redact_message` (the manager's redaction) while its `message` stays; metrics are replaced when given. One atomic
   * update. False when nothing matched.
   */
  async updateMessage(
    sessionId: string,
    agentId: string,
    messageId: number,
    change: Pick<NewMessage, 'content' | 'event_loop_metrics'>,
    now: Date,
    addedBytes: number,
  ): Promise<boolean> {
    const path = `agents.${agentId}`;
    const metrics = change.event_loop_metrics ? { event_loop_metrics: { $literal: change.event_loop_metrics } } : {};
    const redaction = sdkMessage('', change.content).content;
    const redacted = {
      $cond: [
        { $eq: [{ $type: '$$m.message' }, 'object'] },
        {
          redact_message: { role: '$$m.message.role', content: { $literal: redaction } },
          updated_at: { $literal: now },
          ...metrics,
        },
        { content: { $literal: change.content }, updated_at: { $literal: now }, ...metrics },
      ],
    };
    try {
      const result = await this.collection.updateOne(
        live({ _id: sessionId, [`${path}.messages.message_id`]: messageId, $expr: fitsAfterGrowth(addedBytes) }),
        [
          {
            $set: {
              [`${path}.messages`]: {
                $map: {
                  input: `$${path}.messages`,
                  as: 'm',
                  in: {
                    $cond: [
                      { $eq: ['$$m.message_id', { $literal: messageId }] },
                      { $mergeObjects: ['$$m', redacted] },
                      '$$m',
                    ],
                  },
                },
              },
              [`${path}.updated_at`]: { $literal: now },
              updated_at: { $literal: now },
            },
          },
        ],
      );
      return result.matchedCount === 1;
    } catch (error) {
      translateWriteError(error, 'input.content');
    }
  }

  /**
   * `$set` of `metadata.<path>` per entry. Matches only while the metadata stays within `maxMetadataBytes`
   * (the stored size, minus the values being replaced, plus the new ones, measured by the database in the
   * same atomic update) and the document within 16 MiB. False when nothing matched.
   */
  async setMetadata(
    sessionId: string,
    entries: Array<[path: string, value: unknown, bytes: number]>,
    maxMetadataBytes: number,
    now: Date,
  ): Promise<boolean> {
    const added = entries.reduce((sum, [, , bytes]) => sum + bytes, 0);
    const replaced = entries.map(([path]) => ({ $bsonSize: { v: `$metadata.${path}` } }));
    const metadataSize = {
      $subtract: [
        { $add: [{ $bsonSize: { $ifNull: ['$metadata', {}] } }, added] },
        replaced.length ? { $add: replaced } : 0,
      ],
    };
    try {
      const result = await this.collection.updateOne(
        live({ _id: sessionId, $expr: { $and: [fitsAfterGrowth(added), { $lte: [metadataSize, maxMetadataBytes] }] } }),
        {
          $set: { ...Object.fromEntries(entries.map(([path, value]) => [`metadata.${path}`, value])), updated_at: now },
        },
      );
      return result.matchedCount === 1;
    } catch (error) {
      translateWriteError(error, 'metadata');
    }
  }

  /** `$unset` of `metadata.<path>` per key. False when the session does not exist. */
  async unsetMetadata(sessionId: string, paths: string[], now: Date): Promise<boolean> {
    try {
      const result = await this.collection.updateOne(live({ _id: sessionId }), {
        $unset: Object.fromEntries(paths.map((path) => [`metadata.${path}`, ''])),
        $set: { updated_at: now },
      });
      return result.matchedCount === 1;
    } catch (error) {
      translateWriteError(error, 'keys');
    }
  }

  /**
   * Pushes a feedback entry; its position in `feedbacks`, read in the same atomic update. Null when the session does
   * not match (missing, or too large).
   */
  async addFeedback(sessionId: string, feedback: FeedbackDocument, addedBytes: number): Promise<number | null> {
    try {
      const updated = await this.collection.findOneAndUpdate(
        live({ _id: sessionId, $expr: fitsAfterGrowth(addedBytes) }),
        { $push: { feedbacks: feedback }, $set: { updated_at: feedback.created_at } },
        { returnDocument: 'after', projection: { _id: 0, count: { $size: '$feedbacks' } } },
      );
      return updated && (updated as unknown as { count: number }).count - 1;
    } catch (error) {
      const session = `session ${JSON.stringify(sessionId)}`;
      const damage = await storedDamage(this.collection, { _id: sessionId }, { feedbacks: 'list' }, session);
      if (damage) throw damage;
      translateWriteError(error, 'input');
    }
  }

  /** Totals over the sessions matching `filter`, in one aggregation. */
  async analytics(filter: Document): Promise<AnalyticsTotals> {
    const messages = '$messages';
    const sizeWhere = (input: string, condition: Document) => ({
      $size: { $filter: { input, as: 'x', cond: condition } },
    });
    const [totals] = await this.collection
      .aggregate<AnalyticsTotals>([
        { $match: live(filter) },
        {
          $project: {
            feedbacks: ARRAY_OR_EMPTY('$feedbacks'),
            messages: {
              $reduce: {
                input: { $objectToArray: OBJECT_OR_EMPTY('$agents') },
                initialValue: [],
                in: { $concatArrays: ['$$value', ARRAY_OR_EMPTY('$$this.v.messages')] },
              },
            },
          },
        },
        {
          $project: {
            messageCount: { $size: messages },
            input: ZERO_IF_MISSING({ $sum: `${messages}.event_loop_metrics.accumulated_usage.inputTokens` }),
            output: ZERO_IF_MISSING({ $sum: `${messages}.event_loop_metrics.accumulated_usage.outputTokens` }),
            total: ZERO_IF_MISSING({ $sum: `${messages}.event_loop_metrics.accumulated_usage.totalTokens` }),
            latencySum: ZERO_IF_MISSING({ $sum: `${messages}.event_loop_metrics.accumulated_metrics.latencyMs` }),
            latencyCount: sizeWhere(messages, { $isNumber: '$$x.event_loop_metrics.accumulated_metrics.latencyMs' }),
            up: sizeWhere('$feedbacks', { $eq: ['$$x.rating', 'up'] }),
            down: sizeWhere('$feedbacks', { $eq: ['$$x.rating', 'down'] }),
            neutral: sizeWhere('$feedbacks', { $eq: [{ $ifNull: ['$$x.rating', null] }, null] }),
          },
        },
        {
          $group: {
            _id: null,
            sessionCount: { $sum: 1 },
            ...Object.fromEntries(
              ['messageCount', 'input', 'output', 'total', 'latencySum', 'latencyCount', 'up', 'down', 'neutral'].map(
                (name) => [name, { $sum: `$${name}` }],
              ),
            ),
          },
        },
      ])
      .toArray();
    return (
      totals ?? {
        sessionCount: 0,
        messageCount: 0,
        input: 0,
        output: 0,
        total: 0,
        latencySum: 0,
        latencyCount: 0,
        up: 0,
        down: 0,
        neutral: 0,
      }
    );
  }

  /** Sessions matching `filter` counted by the value at `field` (a document path), most frequent first. */
  countsBy(filter: Document, field: string): Promise<Array<{ _id: unknown; count: number }>> {
    return this.collection
      .aggregate<{ _id: unknown; count: number }>([
        { $match: live(filter) },
        { $group: { _id: `$${field}`, count: { $sum: 1 } } },
        { $sort: { count: -1, _id: 1 } },
      ])
      .toArray();
  }

  /**
   * The messages of many agents by id, in one aggregate: per agent asked for, its messages whose ids any of `messages`
   * asks for (the caller picks its own from them).
   */
  async findMessages(messages: readonly MessageRef[]): Promise<Array<AgentRef & { messages: MessageDocument[] }>> {
    return this.collection
      .aggregate<AgentRef & { messages: MessageDocument[] }>([
        ...agentsStages(messages),
        {
          $project: {
            _id: 0,
            sessionId: '$_id',
            agentId: '$agent.k',
            messages: {
              $filter: {
                input: ARRAY_OR_EMPTY('$agent.v.messages'),
                as: 'm',
                cond: { $in: ['$$m.message_id', { $literal: [...new Set(messages.map((m) => m.messageId))] }] },
              },
            },
          },
        },
      ])
      .toArray();
  }

  /** This collection's change feed, shared by every subscriber of this database (src/db/change-follower.ts). */
  followChanges(changes: ChangeFollower): Promise<ChangeFeed> {
    return changes.follow(this.db, SESSIONS_COLLECTION);
  }

  /**
   * What a forget scope takes from the sessions (computed in the database, without reading messages): a user's
   * sessions (`user_id`) or the one session whole, or the agent's part of every session.
   */
  async countByScope({ kind, value }: MemoryScope): Promise<SessionsInScope> {
    const agentOnly = kind === 'agentId';
    const agentMessages = { $getField: { field: 'messages', input: agentField(value) } };
    const rows = await this.collection
      .aggregate<{ _id: string; messages: number; writeIds: string[] }>([
        { $match: scopeQuery({ kind, value }) },
        {
          $project: {
            messages: agentOnly
              ? { $size: { $cond: [{ $isArray: agentMessages }, agentMessages, []] } }
              : {
                  $sum: {
                    $map: {
                      input: { $objectToArray: OBJECT_OR_EMPTY('$agents') },
                      in: { $size: ARRAY_OR_EMPTY('$$this.v.messages') },
                    },
                  },
                },
            writeIds: {
              $map: {
                input: {
                  $filter: {
                    input: ARRAY_OR_EMPTY('$applied_writes'),
                    cond: agentOnly ? { $eq: ['$$this.agent_id', { $literal: value }] } : true,
                  },
                },
                in: '$$this.write_id',
              },
            },
          },
        },
      ])
      .toArray();
    return {
      sessionIds: agentOnly ? [] : rows.map((row) => row._id),
      changed: agentOnly ? rows.length : 0,
      messages: rows.reduce((sum, row) => sum + row.messages, 0),
      writeIds: rows.flatMap((row) => row.writeIds),
    };
  }

  /** Deletes a forget scope's sessions, or takes the agent out of every session (one bulk write); returns how many. */
  async forgetScope(scope: MemoryScope): Promise<{ deleted: number; changed: number }> {
    if (scope.kind !== 'agentId') {
      return { deleted: (await this.collection.deleteMany(scopeQuery(scope))).deletedCount, changed: 0 };
    }
    const agent = { $literal: scope.value };
    const result = await this.collection.updateMany(scopeQuery(scope), [
      {
        $set: {
          agents: { $unsetField: { field: agent, input: '$agents' } },
          applied_writes: {
            $cond: [
              { $isArray: '$applied_writes' },
              { $filter: { input: '$applied_writes', cond: { $ne: ['$$this.agent_id', agent] } } },
              '$$REMOVE',
            ],
          },
        },
      },
    ]);
    return { deleted: 0, changed: result.modifiedCount };
  }

  /**
   * The agent's messages with an id above `afterId`, read from the end of its list (ids grow along it: appends add
   * one past the highest), a few at a time: the list itself never leaves the database.
   */
  async messagesAfter(sessionId: string, agentId: string, afterId: number): Promise<MessageDocument[]> {
    const path = `agents.${agentId}`;
    for (let count = 8; ; count *= 8) {
      const session = await this.collection.findOne(live({ _id: sessionId }), {
        projection: { [`${path}.updated_at`]: 1, [`${path}.messages`]: { $slice: -count } },
      });
      const stored: unknown = session?.agents?.[agentId]?.messages;
      const messages: MessageDocument[] = Array.isArray(stored) ? stored : [];
      if (messages.length < count || Number(messages[0]?.message_id) <= afterId)
        return messages.filter((message) => Number(message?.message_id) > afterId);
    }
  }

  /**
   * The agent's highest message id; -1 without messages (ids count from 0 in the Strands SDK's shape). A stored item
   * without a numeric id (damage) is not counted, as by `appendMessages`.
   */
  async lastMessageId(sessionId: string, agentId: string): Promise<number> {
    const session = await this.collection.findOne(live({ _id: sessionId }), {
      projection: { [`agents.${agentId}.messages.message_id`]: 1 },
    });
    // An own field only: an agent named `constructor` must not be read from Object.prototype.
    const agent = session?.agents && Object.hasOwn(session.agents, agentId) ? session.agents[agentId] : undefined;
    const messages: unknown[] = Array.isArray(agent?.messages) ? agent.messages : [];
    return messages.reduce<number>((max, message) => {
      const id = Number((message as { message_id?: unknown } | null)?.message_id);
      return Number.isFinite(id) ? Math.max(max, id) : max;
    }, -1);
  }

  /**
   * A session's messages for the message index (its `user_id`, and each agent's stored messages as they are); null when
   * the session is missing or expired.
   */
  async messagesForIndex(sessionId: string): Promise<SessionMessages | null> {
    const session = await this.collection.findOne(live({ _id: sessionId }), {
      projection: { user_id: 1, agents: 1 },
    });
    if (!session) return null;
    const agents = session.agents && typeof session.agents === 'object' ? session.agents : {};
    return {
      userId: typeof session.user_id === 'string' ? session.user_id : null,
      agents: Object.entries(agents).map(([agentId, agent]) => ({
        agentId,
        messages: Array.isArray(agent?.messages) ? agent.messages : [],
      })),
    };
  }

  /**
   * For up to `limit` sessions after `afterId` (id order): their `user_id` and, per agent, how many messages it holds
   * and the latest `updated_at` among them, computed in the database (the message index compares them with its own).
   */
  messageSignaturesAfter(afterId: string | null, limit: number): Promise<SessionMessageSignature[]> {
    return this.collection
      .aggregate<SessionMessageSignature>([
        { $match: live(afterId === null ? {} : { _id: { $gt: afterId } }) },
        { $sort: { _id: 1 } },
        { $limit: limit },
        {
          $project: {
            userId: { $ifNull: ['$user_id', null] },
            agents: {
              $map: {
                input: { $objectToArray: OBJECT_OR_EMPTY('$agents') },
                as: 'a',
                in: {
                  agentId: '$$a.k',
                  count: {
                    $size: {
                      $filter: {
                        input: ARRAY_OR_EMPTY('$$a.v.messages'),
                        as: 'm',
                        cond: { $eq: [{ $type: '$$m' }, 'object'] },
                      },
                    },
                  },
                  lastUpdated: {
                    $max: { $map: { input: ARRAY_OR_EMPTY('$$a.v.messages'), as: 'm', in: '$$m.updated_at' } },
                  },
                },
              },
            },
          },
        },
      ])
      .toArray();
  }

  /** The `user_id` of each listed session that exists (null: none set). */
  async userIdsOf(sessionIds: readonly string[]): Promise<Map<string, string | null>> {
    const found = await this.collection
      .find({ _id: { $in: [...sessionIds] } }, { projection: { user_id: 1 } })
      .toArray();
    return new Map(found.map((session) => [session._id, typeof session.user_id === 'string' ? session.user_id : null]));
  }

  /** Which of the listed sessions exist (live). */
  async existing(sessionIds: readonly string[]): Promise<Set<string>> {
    const found = await this.collection
      .find(live({ _id: { $in: [...sessionIds] } }), { projection: { _id: 1 } })
      .toArray();
    return new Set(found.map((session) => session._id));
  }
}
