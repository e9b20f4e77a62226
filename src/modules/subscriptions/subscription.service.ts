import type { Db } from 'mongodb';
import { selectFromFeed, type ChangeEvent, type ChangeFollower } from '../../db/change-follower';
import { experienceFilterQuery } from '../experiences/experience.repository';
import { EXPERIENCES_COLLECTION, type ExperienceDocument } from '../experiences/experience.document';
import type { ExperienceFilter } from '../experiences/experience.input';
import { toAction } from '../runs/run.type';
import type { Action } from '../runs/run.type';
import { SESSIONS_COLLECTION, type SessionDocument } from '../sessions/session.document';
import { Message } from '../sessions/session.type';
import { TASKS_COLLECTION, type TaskDocument } from '../tasks/task.document';
import { TOOL_PERFORMANCE_COLLECTION, type ToolPerformanceDocument } from '../tools/tool.document';

/**
 * The events each subscription delivers, read from the collections' change streams (src/db/change-follower.ts) of
 * the subscriber's database. Each returns an async iterator of payloads, which the resolver turns into the entity
 * through the normal loaders of a context made for the event.
 */
export class SubscriptionService {
  constructor(
    private readonly db: Db,
    private readonly changes: ChangeFollower,
  ) {}

  /** Each message appended to the agent from now on, once, in order. */
  async messagesAppended(sessionId: string, agentId: string): Promise<AsyncIterableIterator<Message>> {
    const feed = await this.changes.follow(this.db, SESSIONS_COLLECTION);
    // Read after the stream is open, so no message falls between the two.
    const current = await this.db.collection<SessionDocument>(SESSIONS_COLLECTION).findOne({ _id: sessionId });
    let last = lastMessageId(current, agentId);
    return selectFromFeed(feed, async (event) => {
      if (event.id !== sessionId) return [];
      const messages = (await event.document<SessionDocument>())?.agents?.[agentId]?.messages ?? [];
      const appended = messages.filter((message) => Number(message.message_id) > last);
      last = Math.max(last, ...appended.map((message) => Number(message.message_id)));
      return appended.map((message) => Message.fromDocument(message, { sessionId, agentId }));
    });
  }

  /** The session's id each time it is written (not when it is deleted). */
  async sessionUpdated(sessionId: string): Promise<AsyncIterableIterator<string>> {
    const feed = await this.changes.follow(this.db, SESSIONS_COLLECTION);
    return selectFromFeed(feed, async (event) => (event.id === sessionId && isWrite(event) ? [sessionId] : []));
  }

  /** The task's id each time its document is written. */
  async taskUpdated(taskId: string): Promise<AsyncIterableIterator<string>> {
    const feed = await this.changes.follow(this.db, TASKS_COLLECTION);
    return selectFromFeed(feed, async (event) =>
      isWrite(event) && (await event.document<TaskDocument>())?.taskId === taskId ? [taskId] : [],
    );
  }

  /** Each iteration recorded on the task's run from now on, once. */
  async actionsRecorded(taskId: string): Promise<AsyncIterableIterator<Action>> {
    const feed = await this.changes.follow(this.db, TASKS_COLLECTION);
    const current = await this.db
      .collection<TaskDocument>(TASKS_COLLECTION)
      .findOne({ taskId }, { projection: { 'actions.iteration': 1 } });
    const seen = new Set((current?.actions ?? []).map((action) => action.iteration));
    return selectFromFeed(feed, async (event) => {
      const task = isWrite(event) ? await event.document<TaskDocument>() : null;
      if (task?.taskId !== taskId) return [];
      const recorded = (task.actions ?? []).filter((action) => !seen.has(action.iteration));
      for (const action of recorded) seen.add(action.iteration);
      return recorded.map((action) => toAction(action, taskId));
    });
  }

  /** The id of each experience inserted from now on that matches `filter` (as `experiences(filter)` reads it). */
  async experiencesRecorded(filter: ExperienceFilter | null): Promise<AsyncIterableIterator<string>> {
    const feed = await this.changes.follow(this.db, EXPERIENCES_COLLECTION);
    const query = experienceFilterQuery(filter);
    const experiences = this.db.collection<ExperienceDocument>(EXPERIENCES_COLLECTION);
    return selectFromFeed(feed, async (event) => {
      if (event.operationType !== 'insert') return [];
      const found = await experiences.findOne(
        { $and: [{ _id: event.id as never }, query] },
        { projection: { experience_id: 1 } },
      );
      return found ? [found.experience_id] : [];
    });
  }

  /** The tool's name each time its performance document is written. */
  async toolPerformanceChanged(toolName: string): Promise<AsyncIterableIterator<string>> {
    const feed = await this.changes.follow(this.db, TOOL_PERFORMANCE_COLLECTION);
    return selectFromFeed(feed, async (event) =>
      isWrite(event) && (await event.document<ToolPerformanceDocument>())?.toolName === toolName ? [toolName] : [],
    );
  }
}

function isWrite(event: ChangeEvent): boolean {
  return event.operationType === 'insert' || event.operationType === 'update' || event.operationType === 'replace';
}

/** The agent's highest message id; -1 without messages (ids count from 0, the Strands SDK's numbering). */
function lastMessageId(session: SessionDocument | null, agentId: string): number {
  const messages = session?.agents?.[agentId]?.messages ?? [];
  return messages.reduce((max, message) => Math.max(max, Number(message.message_id)), -1);
}
