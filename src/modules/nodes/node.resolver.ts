import { Arg, Authorized, Ctx, FieldResolver, ID, Query, Resolver, Root } from 'type-graphql';
import type { Context } from '../../context';
import { Experience } from '../experiences/experience.type';
import { PlanPattern } from '../plans/plan.type';
import { Action, RecordActionResult, ToolCall } from '../runs/run.type';
import { Agent, Feedback, Message, Session } from '../sessions/session.type';
import { LearnResult, Task } from '../tasks/task.type';
import { ToolPerformance } from '../tools/tool.type';
import { globalId } from './node.id';
import { MAX_NODES } from './node.service';
import { Node } from '../shared/node';
import { INCLUDE_SUPERSEDED } from '../shared/validity.type';

@Resolver(() => Node)
export class NodeResolver {
  @Authorized('reader')
  @Query(() => Node, {
    nullable: true,
    description:
      'Any entity by its global id; null when it does not exist, or is an experience or insight that is not current ' +
      'unless includeSuperseded (BAD_USER_INPUT: not a node id).',
  })
  node(
    @Arg('id', () => ID) id: string,
    @Arg('includeSuperseded', { defaultValue: false, description: INCLUDE_SUPERSEDED }) includeSuperseded: boolean,
    @Ctx() ctx: Context,
  ): Promise<Node | null> {
    return ctx.services.nodes.node(id, includeSuperseded);
  }

  @Authorized('reader')
  @Query(() => [Node], {
    nullable: 'items',
    description: `Entities by global id, in order, null for each missing one; at most ${MAX_NODES} ids.`,
  })
  nodes(
    @Arg('ids', () => [ID]) ids: string[],
    @Arg('includeSuperseded', { defaultValue: false, description: INCLUDE_SUPERSEDED }) includeSuperseded: boolean,
    @Ctx() ctx: Context,
  ): Promise<Array<Node | null>> {
    return ctx.services.nodes.nodes(ids, includeSuperseded);
  }
}

// The global ids of the entity types, and the parents a write's result refers back to, so that a client's cache
// (normalised by `id`) updates them from the write's answer alone.

@Resolver(() => Session)
export class SessionNodeResolver {
  @FieldResolver(() => ID)
  id(@Root() session: Session): string {
    return globalId('Session', session.sessionId);
  }
}

@Resolver(() => Agent)
export class AgentNodeResolver {
  @FieldResolver(() => ID)
  id(@Root() agent: Agent): string {
    return globalId('Agent', agent.sessionId, agent.agentId);
  }

  @FieldResolver(() => Session, { nullable: true, description: 'The session holding the agent.' })
  session(@Root() agent: Agent, @Ctx() ctx: Context): Promise<Session | null> {
    return ctx.services.nodes.session(agent.sessionId);
  }
}

@Resolver(() => Message)
export class MessageNodeResolver {
  @FieldResolver(() => ID)
  id(@Root() message: Message): string {
    return globalId('Message', message.sessionId, message.agentId, message.messageId);
  }

  @FieldResolver(() => Agent, { nullable: true, description: 'The agent holding the message (null once deleted).' })
  agent(@Root() message: Message, @Ctx() ctx: Context): Promise<Agent | null> {
    return ctx.services.nodes.agent(message);
  }

  @FieldResolver(() => Session, { nullable: true, description: 'The session holding the message (null once deleted).' })
  session(@Root() message: Message, @Ctx() ctx: Context): Promise<Session | null> {
    return ctx.services.nodes.session(message.sessionId);
  }
}

@Resolver(() => Feedback)
export class FeedbackNodeResolver {
  @FieldResolver(() => ID)
  id(@Root() feedback: Feedback): string {
    return globalId('Feedback', feedback.sessionId, feedback.index);
  }

  @FieldResolver(() => Session, { nullable: true, description: 'The session the feedback is in.' })
  session(@Root() feedback: Feedback, @Ctx() ctx: Context): Promise<Session | null> {
    return ctx.services.nodes.session(feedback.sessionId);
  }
}

@Resolver(() => Experience)
export class ExperienceNodeResolver {
  @FieldResolver(() => ID)
  id(@Root() experience: Experience): string {
    return globalId('Experience', experience.experienceId);
  }
}

@Resolver(() => Task)
export class TaskNodeResolver {
  @FieldResolver(() => ID)
  id(@Root() task: Task): string {
    return globalId('Task', task.taskId);
  }
}

@Resolver(() => LearnResult)
export class LearnResultNodeResolver {
  @FieldResolver(() => Task, {
    nullable: true,
    description: 'The task after learning (learnedAt, patternId, plan); null when it no longer exists.',
  })
  task(@Root() result: LearnResult, @Ctx() ctx: Context): Promise<Task | null> {
    return ctx.services.nodes.task(result.taskId);
  }
}

@Resolver(() => PlanPattern)
export class PlanPatternNodeResolver {
  @FieldResolver(() => ID)
  id(@Root() pattern: PlanPattern): string {
    return globalId('PlanPattern', pattern.patternId);
  }
}

@Resolver(() => Action)
export class ActionNodeResolver {
  @FieldResolver(() => ID)
  id(@Root() action: Action): string {
    return globalId('Action', action.taskId, action.iteration);
  }

  @FieldResolver(() => Task, { nullable: true, description: 'The task whose run this iteration is.' })
  task(@Root() action: Action, @Ctx() ctx: Context): Promise<Task | null> {
    return ctx.services.nodes.task(action.taskId);
  }
}

@Resolver(() => ToolCall)
export class ToolCallNodeResolver {
  @FieldResolver(() => ID)
  id(@Root() call: ToolCall): string {
    return globalId('ToolCall', call.taskId, call.iteration, call.index);
  }

  @FieldResolver(() => Action, { nullable: true, description: 'The iteration that made the call.' })
  action(@Root() call: ToolCall, @Ctx() ctx: Context): Promise<Action | null> {
    return ctx.services.nodes.action(call.taskId, call.iteration);
  }
}

@Resolver(() => RecordActionResult)
export class RecordActionResultNodeResolver {
  @FieldResolver(() => [ToolPerformance], {
    description: "The figures over all contexts of each tool the iteration's calls counted in, after the write.",
  })
  toolPerformance(@Root() result: RecordActionResult, @Ctx() ctx: Context): Promise<ToolPerformance[]> {
    return ctx.services.nodes.toolsOverall(result.action.toolCalls.map((call) => call.name));
  }
}

@Resolver(() => ToolPerformance)
export class ToolPerformanceNodeResolver {
  @FieldResolver(() => ID)
  id(@Root() performance: ToolPerformance): string {
    return globalId('ToolPerformance', performance.toolName, performance.context);
  }
}

/** The resolvers of this module, for the schema's list. */
export const NODE_RESOLVERS = [
  NodeResolver,
  SessionNodeResolver,
  AgentNodeResolver,
  MessageNodeResolver,
  FeedbackNodeResolver,
  ExperienceNodeResolver,
  TaskNodeResolver,
  LearnResultNodeResolver,
  PlanPatternNodeResolver,
  ActionNodeResolver,
  ToolCallNodeResolver,
  RecordActionResultNodeResolver,
  ToolPerformanceNodeResolver,
] as const;
