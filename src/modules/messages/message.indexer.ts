import { Binary, type Db } from 'mongodb';
import { ServiceUnavailableError } from '../../coded-error';
import type { ChangeEvent, ChangeFeed, ChangeFollower } from '../../db/change-follower';
import { unboundDb } from '../../db/request-bound';
import type { EmbeddingService } from '../../embeddings/embedding.service';
import { sameEmbeddingModel } from '../../embeddings/model-check';
import type { Logger } from '../../logger';
import type { SearchIndexes } from '../../search/search-index';
import type { MessageDocument } from '../sessions/session.document';
import { SessionRepository, type SessionMessageSignature } from '../sessions/session.repository';
import type { MessageWriteListener } from '../sessions/session.service';
import { Message } from '../sessions/session.type';
import { messageKey, type MessageIndexDocument } from './message.document';
import { MessageIndexRepository, type IndexedEntry } from './message.repository';
import { MESSAGE_SPACE } from './message.spaces';

/** What the message indexes need from the app (its deps). */
export interface MessageIndexOptions {
  /** MESSAGE_INDEX: false leaves `message_index` as it is (searchMessages then answers SERVICE_UNAVAILABLE). */
  enabled: boolean;
  embedder: EmbeddingService;
  search: SearchIndexes;
  logger: Logger;
  /** The sessions' change streams: messages written by other processes (or the Strands SDK) are indexed as they come. */
  changes?: ChangeFollower;
  /** Without change streams: how often (ms) the sessions are compared with the index; 0: only at startup. */
  pollMs: number;
}

/** Sessions compared per round of a catch-up. */
const CATCH_UP_SESSIONS = 200;
/** This process's record of a write it makes is trusted this long: the write's change event comes well before. */
const OWN_WRITE_MS = 60_000;
/** Messages embedded and written per batch. */
const BATCH_MESSAGES = 512;
/** Sessions whose user id is remembered (an append names the session, not its user). */
const USERS_REMEMBERED = 10_000;

type Job =
  | { kind: 'messages'; sessionId: string; agentId: string; messages: readonly MessageDocument[] }
  | { kind: 'drop'; sessionId: string }
  | { kind: 'sync'; sessionId: string };

/**
 * The message index of every database (`deps.messageIndex`): one {@link MessageIndexer} per database, as
 * `deps.search` has one search index per database.
 */
export class MessageIndexes {
  private readonly indexers = new Map<string, MessageIndexer>();

  constructor(readonly options: MessageIndexOptions) {}

  /** This process's writes to sessions are reported to the indexer of their database (none when MESSAGE_INDEX=false). */
  listenerFor(db: Db): MessageIndexer | undefined {
    return this.options.enabled ? this.forDb(db) : undefined;
  }

  /** The indexer of a database (created on first use; `start` begins following and catching up). */
  forDb(db: Db): MessageIndexer {
    let indexer = this.indexers.get(db.databaseName);
    if (!indexer) this.indexers.set(db.databaseName, (indexer = new MessageIndexer(unboundDb(db), this.options)));
    return indexer;
  }

  /** Stops following (shutdown). */
  async close(): Promise<void> {
    await Promise.all([...this.indexers.values()].map((indexer) => indexer.close()));
  }
}

/**
 * Keeps `message_index` (message.document.ts) equal to the messages of the `sessions` of one database:
 * - this process's writes are reported by SessionService (`appended`, `redacted`, `deleted`, `wrote`) and indexed in
 *   batches off the request (an append does not wait for its embedding); `settled()` waits for what was reported, so
 *   a search after a write finds it;
 * - other writers' (other processes, the Strands SDK writing MongoDB directly) come from the sessions' change stream:
 *   each event not matched by one of this process's reports rebuilds its session's entries (a delete drops them);
 * - at start (`start`) every session is compared with its entries (per agent: message count and latest `updated_at`),
 *   and those that differ are rebuilt; without change streams the comparison repeats every `pollMs`.
 * The entries are an ordinary search space (MESSAGE_SPACE): the search index follows `message_index` like any other.
 */
export class MessageIndexer implements MessageWriteListener {
  private readonly sessions: SessionRepository;
  private readonly entries: MessageIndexRepository;
  private readonly queue: Job[] = [];
  private working: Promise<void> | null = null;
  /** Jobs reported, and jobs done: `settled` waits for the count at its call. */
  private reported = 0;
  private done = 0;
  private readonly waiters: Array<{ upTo: number; resolve: () => void }> = [];
  /** When this process wrote each session (one entry per write not yet matched by its change event). */
  private readonly ownWrites = new Map<string, number[]>();
  private readonly users = new Map<string, string | null>();
  private feed: ChangeFeed | null = null;
  private started: Promise<void> | null = null;
  private poll: NodeJS.Timeout | null = null;
  /** Catch-ups started by a lost change stream or the poll, which `close` waits for. */
  private readonly catchingUp = new Set<Promise<void>>();
  private closed = false;

  constructor(
    private readonly db: Db,
    private readonly options: MessageIndexOptions,
  ) {
    this.sessions = new SessionRepository(db);
    this.entries = new MessageIndexRepository(db);
  }

  /**
   * Follows the sessions' changes, then compares every session with the index (in the background: `ready` waits for
   * it). Idempotent.
   */
  start(): Promise<void> {
    if (!this.options.enabled)
      return Promise.reject(
        new ServiceUnavailableError('The message index is off on this server (MESSAGE_INDEX=false).', {
          setting: 'MESSAGE_INDEX',
        }),
      );
    this.started ??= this.begin().catch((error: unknown) => {
      this.options.logger.error('message index catch-up failed', {
        db: this.db.databaseName,
        error: error instanceof Error ? error.message : String(error),
      });
    });
    return this.started;
  }

  /** Resolves once the start's catch-up and every write reported before the call are indexed. */
  async ready(): Promise<void> {
    await this.start();
    await this.settled();
  }

  /** Resolves once every job reported before the call is done (done or failed: a failure is logged and retried). */
  settled(): Promise<void> {
    if (this.done >= this.reported) return Promise.resolve();
    const upTo = this.reported;
    return new Promise((resolve) => this.waiters.push({ upTo, resolve }));
  }

  expect(sessionId: string): void {
    const list = this.ownWrites.get(sessionId);
    if (list) list.push(Date.now());
    else this.ownWrites.set(sessionId, [Date.now()]);
  }

  cancel(sessionId: string): void {
    const list = this.ownWrites.get(sessionId);
    list?.pop();
    if (list && !list.length) this.ownWrites.delete(sessionId);
  }

  appended(sessionId: string, agentId: string, messages: readonly MessageDocument[]): void {
    this.enqueue({ kind: 'messages', sessionId, agentId, messages });
  }

  redacted(sessionId: string, agentId: string, message: MessageDocument): void {
    this.enqueue({ kind: 'messages', sessionId, agentId, messages: [message] });
  }

  deleted(sessionId: string): void {
    this.users.delete(sessionId);
    this.enqueue({ kind: 'drop', sessionId });
  }

  /** Rebuilds a session's entries from its messages (a write this process made without a precise report). */
  resync(sessionId: string): void {
    this.enqueue({ kind: 'sync', sessionId });
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.poll) clearInterval(this.poll);
    await this.feed?.return();
    await Promise.all(this.catchingUp);
    await this.working;
  }

  /** A catch-up nobody awaits: its failure is logged (and left for the next one), never an unhandled rejection. */
  private catchUpLater(): void {
    if (this.closed) return;
    const run = this.catchUp()
      .catch((error: unknown) => {
        if (!this.closed)
          this.options.logger.error('message index could not catch up with the sessions', {
            db: this.db.databaseName,
            error: error instanceof Error ? error.message : String(error),
          });
      })
      .finally(() => this.catchingUp.delete(run));
    this.catchingUp.add(run);
  }

  /** Whether a change event of the session is one of this process's reported writes (each matches one event). */
  private takeOwn(sessionId: string): boolean {
    const list = this.ownWrites.get(sessionId);
    if (!list) return false;
    const now = Date.now();
    while (list.length && now - list[0] > OWN_WRITE_MS) list.shift();
    const own = list.length > 0;
    list.shift();
    if (!list.length) this.ownWrites.delete(sessionId);
    return own;
  }

  private enqueue(job: Job): void {
    this.queue.push(job);
    this.reported++;
    this.working ??= this.work();
  }

  private async work(): Promise<void> {
    try {
      while (this.queue.length) {
        const jobs = this.takeBatch();
        try {
          await this.apply(jobs);
        } catch (error) {
          this.options.logger.error('message index write failed: its sessions are rebuilt', {
            db: this.db.databaseName,
            error: error instanceof Error ? error.message : String(error),
          });
          this.retryLater([...new Set(jobs.map((job) => job.sessionId))]);
        }
        this.done += jobs.length;
        for (let i = this.waiters.length - 1; i >= 0; i--) {
          if (this.waiters[i].upTo <= this.done) this.waiters.splice(i, 1)[0].resolve();
        }
      }
    } finally {
      this.working = null;
      if (this.queue.length) this.working = this.work();
    }
  }

  /** The next jobs: up to BATCH_MESSAGES messages' worth, in the order reported. */
  private takeBatch(): Job[] {
    let messages = 0;
    let count = 0;
    while (count < this.queue.length) {
      const job = this.queue[count];
      const size = job.kind === 'messages' ? job.messages.length : 1;
      if (count > 0 && messages + size > BATCH_MESSAGES) break;
      messages += size;
      count++;
    }
    return this.queue.splice(0, count);
  }

  private retryLater(sessionIds: string[]): void {
    if (this.closed) return;
    setTimeout(() => sessionIds.forEach((id) => this.resync(id)), 1000).unref();
  }

  /** Applies jobs in order: runs of reported messages as one batch, drops and rebuilds one by one. */
  private async apply(jobs: Job[]): Promise<void> {
    let run: Array<Extract<Job, { kind: 'messages' }>> = [];
    for (const job of jobs) {
      if (job.kind === 'messages') {
        run.push(job);
        continue;
      }
      await this.indexMessages(run);
      run = [];
      if (job.kind === 'drop') await this.drop([job.sessionId]);
      else await this.sync(job.sessionId);
    }
    await this.indexMessages(run);
  }

  private async userIds(sessionIds: string[]): Promise<Map<string, string | null>> {
    const missing = sessionIds.filter((id) => !this.users.has(id));
    if (missing.length) {
      const found = await this.sessions.userIdsOf(missing);
      for (const id of missing) {
        if (!found.has(id)) continue;
        if (this.users.size >= USERS_REMEMBERED) this.users.delete(this.users.keys().next().value!);
        this.users.set(id, found.get(id)!);
      }
    }
    return new Map(sessionIds.map((id) => [id, this.users.get(id) ?? null]));
  }

  /** Indexes reported messages (the latest report of a message wins). */
  private async indexMessages(jobs: Array<Extract<Job, { kind: 'messages' }>>): Promise<void> {
    if (!jobs.length) return;
    const users = await this.userIds([...new Set(jobs.map((job) => job.sessionId))]);
    const entries = new Map<string, MessageIndexDocument>();
    for (const job of jobs) {
      for (const message of job.messages) {
        const entry = entryOf(job.sessionId, job.agentId, users.get(job.sessionId) ?? null, message);
        if (entry) entries.set(entry._id, entry);
      }
    }
    await this.write([...entries.values()]);
  }

  /** Embeds the entries with text, writes them, and sets them in the search space. */
  private async write(entries: MessageIndexDocument[], vectors = new Map<string, Float32Array>()): Promise<void> {
    if (!entries.length) return;
    const embedder = this.options.embedder;
    const texts = entries.filter((entry) => /\S/.test(entry.text) && !vectors.has(entry._id));
    if (texts.length) {
      const embedded = await embedder.embed(texts.map((entry) => entry.text));
      texts.forEach((entry, i) => vectors.set(entry._id, embedded[i]));
    }
    for (const entry of entries) {
      const vector = vectors.get(entry._id);
      if (vector) {
        entry.embedding = Binary.fromFloat32Array(vector);
        entry.embedding_model = embedder.signature;
      }
    }
    await this.entries.put(entries);
    const index = this.options.search.forDb(this.db);
    for (const entry of entries)
      index.upsert(MESSAGE_SPACE.name, entry._id, vectors.get(entry._id) ?? null, entry.text);
  }

  private async drop(sessionIds: string[]): Promise<void> {
    const keys = await this.entries.removeSessions(sessionIds);
    const index = this.options.search.forDb(this.db);
    for (const key of keys) index.remove(MESSAGE_SPACE.name, key);
  }

  /** Rebuilds a session's entries from its messages: writes what differs, removes what no message has. */
  private async sync(sessionId: string): Promise<void> {
    const [session, indexed] = await Promise.all([
      this.sessions.messagesForIndex(sessionId),
      this.entries.entriesOf(sessionId),
    ]);
    if (!session) {
      this.users.delete(sessionId);
      if (indexed.length) await this.drop([sessionId]);
      return;
    }
    if (this.users.has(sessionId)) this.users.set(sessionId, session.userId);
    const signature = this.options.embedder.signature;
    const known = new Map<string, IndexedEntry>(indexed.map((entry) => [entry._id, entry]));
    const changed: MessageIndexDocument[] = [];
    const present = new Set<string>();
    for (const agent of session.agents) {
      for (const message of agent.messages) {
        const entry = entryOf(sessionId, agent.agentId, session.userId, message);
        if (!entry) continue;
        present.add(entry._id);
        const old = known.get(entry._id);
        const same =
          old &&
          old.text === entry.text &&
          old.role === entry.role &&
          old.user_id === entry.user_id &&
          sameValue(old.source_updated_at, entry.source_updated_at) &&
          old.embedded === /\S/.test(entry.text) &&
          (!old.embedded || (old.embedding_model != null && sameEmbeddingModel(old.embedding_model, signature)));
        if (!same) changed.push(entry);
      }
    }
    const gone = indexed.filter((entry) => !present.has(entry._id)).map((entry) => entry._id);
    for (let from = 0; from < changed.length; from += BATCH_MESSAGES)
      await this.write(changed.slice(from, from + BATCH_MESSAGES));
    if (gone.length) {
      await this.entries.remove(gone);
      const index = this.options.search.forDb(this.db);
      for (const key of gone) index.remove(MESSAGE_SPACE.name, key);
    }
  }

  private async begin(): Promise<void> {
    const { changes, pollMs } = this.options;
    if (changes && !changes.closed) {
      this.feed = await changes.follow(this.db, 'sessions', { internal: true, onLost: () => this.catchUpLater() });
      void this.follow(this.feed);
      if (pollMs > 0 && (await changes.source()) === 'LOCAL_WRITES') {
        this.poll = setInterval(() => this.catchUpLater(), pollMs);
        this.poll.unref();
      }
    }
    await this.catchUp();
  }

  private async follow(feed: ChangeFeed): Promise<void> {
    try {
      for await (const event of feed) {
        if (this.closed) return;
        this.onEvent(event);
      }
    } catch (error) {
      if (!this.closed)
        this.options.logger.error('message index stopped following sessions', {
          db: this.db.databaseName,
          error: error instanceof Error ? error.message : String(error),
        });
    }
  }

  private onEvent(event: ChangeEvent): void {
    if (typeof event.id !== 'string' || this.closed) return;
    if (this.takeOwn(event.id)) return;
    if (event.operationType === 'delete') this.enqueue({ kind: 'drop', sessionId: event.id });
    else this.resync(event.id);
  }

  /**
   * Compares every session with its entries (per agent: count and latest `updated_at`) and rebuilds those that
   * differ; drops the entries of sessions that no longer exist.
   */
  async catchUp(): Promise<void> {
    let after: string | null = null;
    let rebuilt = 0;
    // Vectors of another embedding model cannot be compared with this one's: every session is rebuilt then.
    const everySession = await this.entries.hasOtherModel(this.options.embedder.signature);
    for (;;) {
      if (this.closed) return;
      const page: SessionMessageSignature[] = await this.sessions.messageSignaturesAfter(after, CATCH_UP_SESSIONS);
      if (!page.length) break;
      after = page[page.length - 1]._id;
      const indexed = await this.entries.signatures(page.map((session) => session._id));
      for (const session of page) {
        const entries = new Map((indexed.get(session._id) ?? []).map((agent) => [agent.agentId, agent]));
        const differs =
          everySession ||
          session.agents.some((agent) => {
            const entry = entries.get(agent.agentId);
            if (!entry) return agent.count > 0;
            return entry.count !== agent.count || !sameValue(entry.lastUpdated, agent.lastUpdated ?? null);
          }) ||
          [...entries.keys()].some((agentId) => !session.agents.some((agent) => agent.agentId === agentId));
        if (differs) {
          this.resync(session._id);
          rebuilt++;
        }
      }
    }
    let from: string | null = null;
    for (;;) {
      if (this.closed) return;
      const ids = await this.entries.sessionIdsAfter(from, CATCH_UP_SESSIONS);
      if (!ids.length) break;
      from = ids[ids.length - 1];
      const existing = await this.sessions.existing(ids);
      const gone = ids.filter((id) => !existing.has(id));
      if (gone.length) {
        for (const id of gone) this.enqueue({ kind: 'drop', sessionId: id });
        rebuilt += gone.length;
      }
    }
    await this.settled();
    if (rebuilt) this.options.logger.info('message index caught up', { db: this.db.databaseName, sessions: rebuilt });
  }
}

/** A message's index entry; null for an item that is not a message (damage) or has no numeric id. */
export function entryOf(
  sessionId: string,
  agentId: string,
  userId: string | null,
  stored: MessageDocument,
): MessageIndexDocument | null {
  if (!stored || typeof stored !== 'object' || !Number.isInteger(Number(stored.message_id))) return null;
  const message = Message.fromDocument(stored, { sessionId, agentId });
  const key = messageKey(sessionId, agentId, message.messageId);
  return {
    _id: key,
    key,
    session_id: sessionId,
    agent_id: agentId,
    message_id: message.messageId,
    user_id: userId,
    role: message.role,
    text: message.text,
    created_at: stored.created_at instanceof Date ? stored.created_at : message.createdAt,
    source_updated_at: stored.updated_at ?? null,
    stored,
  };
}

/** Equality of stored values as the index compares them (dates by time). */
function sameValue(a: unknown, b: unknown): boolean {
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  return a === b || (a == null && b == null);
}
