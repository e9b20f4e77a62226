import type { Db } from 'mongodb';
import { selectFromFeed, type ChangeEvent, type ChangeFollower } from '../../db/change-follower';
import { ExperienceRepository } from '../experiences/experience.repository';
import type { ExperienceFilter } from '../experiences/experience.input';
import { toAction } from '../runs/run.type';
import type { Action } from '../runs/run.type';
import { SessionRepository } from '../sessions/session.repository';
import { Message } from '../sessions/session.type';
import type { TaskDocument } from '../tasks/task.document';
import { TaskRepository } from '../tasks/task.repository';
import type { ToolPerformanceDocument } from '../tools/tool.document';
import type { SessionDocument } from '../sessions/session.document';
import { isExpiredAt } from '../shared/expiry';
import { ToolPerformanceRepository } from '../tools/tool.repository';

/**
 * The events each subscription delivers, read from the collections' change streams (src/db/change-follower.ts) of
 * the subscriber's database. Each returns an async iterator of payloads, which the resolver turns into the entity
 * through the normal loaders of a context made for the event.
 */
export class SubscriptionService {
  private readonly sessions: SessionRepository;
  private readonly tasks: TaskRepository;
  private readonly experiences: ExperienceRepository;
  private readonly tools: ToolPerformanceRepository;

  constructor(
    db: Db,
    private readonly changes: ChangeFollower,
  ) {
    this.sessions = new SessionRepository(db);
    this.tasks = new TaskRepository(db);
    this.experiences = new ExperienceRepository(db);
    this.tools = new ToolPerformanceRepository(db);
  }

  /** Each message appended to the agent from now on, once, in order. */
  async messagesAppended(sessionId: string, agentId: string): Promise<AsyncIterableIterator<Message>> {
    const feed = await this.sessions.followChanges(this.changes);
    // Read after the stream is open, so no message falls between the two.
    let last = await this.sessions.lastMessageId(sessionId, agentId);
    const ofSession = (event: ChangeEvent) => event.id === sessionId && isWrite(event);
    return selectFromFeed(feed, async (event) => {
      // A later write of the session that has already arrived reads this one's messages too: one read for a burst.
      if (!ofSession(event) || feed.queued(ofSession)) return [];
      // Only the new messages, not the session (whose messages grow with every append).
      const appended = await this.sessions.messagesAfter(sessionId, agentId, last);
      last = Math.max(last, ...appended.map((message) => Number(message.message_id)));
      return appended.map((message) => Message.fromDocument(message, { sessionId, agentId }));
    });
  }

  /** The session's id each time it is written (not when it is deleted, nor once it has expired). */
  async sessionUpdated(sessionId: string): Promise<AsyncIterableIterator<string>> {
    const feed = await this.sessions.followChanges(this.changes);
    return selectFromFeed(feed, async (event) =>
      event.id === sessionId && isWrite(event) && isLive(await event.document<SessionDocument>()) ? [sessionId] : [],
    );
  }

  /** The task's id each time its document is written (not once it has expired). */
  async taskUpdated(taskId: string): Promise<AsyncIterableIterator<string>> {
    const feed = await this.tasks.followChanges(this.changes);
    return selectFromFeed(feed, async (event) => {
      const task = isWrite(event) ? await event.document<TaskDocument>() : null;
      return task?.taskId === taskId && isLive(task) ? [taskId] : [];
    });
  }

  /** Each iteration recorded on the task's run from now on, once. */
  async actionsRecorded(taskId: string): Promise<AsyncIterableIterator<Action>> {
    const feed = await this.tasks.followChanges(this.changes);
    const seen = new Set(await this.tasks.actionIterations(taskId));
    return selectFromFeed(feed, async (event) => {
      const task = isWrite(event) ? await event.document<TaskDocument>() : null;
      if (task?.taskId !== taskId || !isLive(task)) return [];
      const recorded = (task.actions ?? []).filter((action) => !seen.has(action.iteration));
      for (const action of recorded) seen.add(action.iteration);
      return recorded.map((action) => toAction(action, taskId));
    });
  }

  /**
   * The id of each experience inserted from now on that matches `filter` and is current (as `experiences(filter)`
   * reads it).
   */
  async experiencesRecorded(filter: ExperienceFilter | null): Promise<AsyncIterableIterator<string>> {
    const feed = await this.experiences.followChanges(this.changes);
    return selectFromFeed(feed, async (event) => {
      if (event.operationType !== 'insert') return [];
      const found = await this.experiences.experienceIdIfMatching(event.id, filter, new Date());
      return found ? [found] : [];
    });
  }

  /** The tool's name each time its performance document is written. */
  async toolPerformanceChanged(toolName: string): Promise<AsyncIterableIterator<string>> {
    const feed = await this.tools.followChanges(this.changes);
    return selectFromFeed(feed, async (event) =>
      isWrite(event) && (await event.document<ToolPerformanceDocument>())?.toolName === toolName ? [toolName] : [],
    );
  }
}

/** Whether a written task or session is there for readers: not expired (the TTL monitor deletes it later). */
function isLive(document: { expires_at?: Date | null } | null): boolean {
  return document !== null && !isExpiredAt(document.expires_at, new Date());
}

function isWrite(event: ChangeEvent): boolean {
  return event.operationType === 'insert' || event.operationType === 'update' || event.operationType === 'replace';
}
