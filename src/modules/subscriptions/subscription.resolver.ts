import { Arg, Authorized, Ctx, ID, Resolver, Root, Subscription } from 'type-graphql';
import type { Context } from '../../context';
import { Experience } from '../experiences/experience.type';
import { ExperienceFilter } from '../experiences/experience.input';
import { Action } from '../runs/run.type';
import { Message, Session } from '../sessions/session.type';
import { Task } from '../tasks/task.type';
import { ToolPerformance } from '../tools/tool.type';

interface SubscribeData<Args> {
  args: Args;
  context: Context;
}

/**
 * Live events over WebSocket (graphql-ws, src/http/subscriptions.ts), fed by the collections' change streams: a write
 * by any process on the database reaches the subscriber. Each event is resolved in a context of its own (fresh
 * loaders), so the entity is selectable as in a query.
 */
@Resolver()
export class SubscriptionResolver {
  @Authorized('reader')
  @Subscription(() => Message, {
    description: 'Each message appended to the agent of the session from now on.',
    subscribe: ({ args, context }: SubscribeData<{ sessionId: string; agentId: string }>) =>
      context.services.subscriptions.messagesAppended(args.sessionId, args.agentId),
  })
  messageAppended(
    @Root() message: Message,
    @Arg('sessionId', () => ID) _sessionId: string,
    @Arg('agentId') _agentId: string,
  ): Message {
    return message;
  }

  @Authorized('reader')
  @Subscription(() => Session, {
    description: 'The session each time it is written (agents, messages, metadata, feedback).',
    subscribe: ({ args, context }: SubscribeData<{ id: string }>) =>
      context.services.subscriptions.sessionUpdated(args.id),
  })
  sessionUpdated(@Root() sessionId: string, @Arg('id', () => ID) _id: string, @Ctx() ctx: Context): Promise<Session> {
    return ctx.services.sessions.session(sessionId);
  }

  @Authorized('reader')
  @Subscription(() => Action, {
    description: "Each iteration recorded on the task's run from now on.",
    subscribe: ({ args, context }: SubscribeData<{ taskId: string }>) =>
      context.services.subscriptions.actionsRecorded(args.taskId),
  })
  actionRecorded(@Root() action: Action, @Arg('taskId', () => ID) _taskId: string): Action {
    return action;
  }

  @Authorized('reader')
  @Subscription(() => Task, {
    nullable: true,
    description: 'The task each time it is written (its run, learning or metrics); null if it was deleted meanwhile.',
    subscribe: ({ args, context }: SubscribeData<{ id: string }>) =>
      context.services.subscriptions.taskUpdated(args.id),
  })
  taskUpdated(@Root() taskId: string, @Arg('id', () => ID) _id: string, @Ctx() ctx: Context): Promise<Task | null> {
    return ctx.services.tasks.get(taskId);
  }

  @Authorized('reader')
  @Subscription(() => Experience, {
    nullable: true,
    description:
      'Each current experience recorded from now on that matches the filter (as `experiences(filter)` reads it).',
    subscribe: ({ args, context }: SubscribeData<{ filter?: ExperienceFilter | null }>) =>
      context.services.subscriptions.experiencesRecorded(args.filter ?? null),
  })
  experienceRecorded(
    @Root() experienceId: string,
    @Arg('filter', () => ExperienceFilter, { nullable: true }) _filter: ExperienceFilter | null,
    @Ctx() ctx: Context,
  ): Promise<Experience | null> {
    return ctx.services.experiences.get(experienceId);
  }

  @Authorized('reader')
  @Subscription(() => ToolPerformance, {
    description: "The tool's overall performance each time a call of it is recorded.",
    subscribe: ({ args, context }: SubscribeData<{ toolName: string }>) =>
      context.services.subscriptions.toolPerformanceChanged(args.toolName),
  })
  toolPerformanceChanged(
    @Root() toolName: string,
    @Arg('toolName') _toolName: string,
    @Ctx() ctx: Context,
  ): Promise<ToolPerformance> {
    return ctx.services.tools.performance(toolName);
  }
}
