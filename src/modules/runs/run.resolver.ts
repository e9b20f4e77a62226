import type { GraphQLResolveInfo } from 'graphql';
import { Authorized, Arg, Args, Ctx, FieldResolver, ID, Info, Mutation, Query, Resolver, Root } from 'type-graphql';
import { MAX_ACTIONS_LIMIT, MAX_STUCK_LIMIT } from './run.service';
import { Cost } from '../../graphql/query-limits';
import type { Context } from '../../context';
import { IDEMPOTENCY_KEY } from '../shared/idempotency';
import { reportStoredField } from '../shared/stored-values';
import { Task } from '../tasks/task.type';
import { ActionsArgs, AttemptsArgs, RecordActionInput, StuckTasksArgs } from './run.input';
import { Action, RecordActionResult, StuckTask } from './run.type';

@Resolver()
export class RunResolver {
  @Authorized('writer')
  @Mutation(() => RecordActionResult, {
    description:
      "Appends one iteration to a recorded task's run (seed 004 action), atomically; its tool calls also count in tool performance.",
  })
  recordAction(
    @Arg('taskId', () => ID) taskId: string,
    @Arg('input', () => RecordActionInput) input: RecordActionInput,
    @Arg('idempotencyKey', () => String, { nullable: true, description: IDEMPOTENCY_KEY })
    idempotencyKey: string | null,
    @Ctx() ctx: Context,
  ): Promise<RecordActionResult> {
    return ctx.services.runs.recordAction(taskId, input, idempotencyKey);
  }

  @Cost({ maxSize: MAX_STUCK_LIMIT })
  @Authorized('reader')
  @Query(() => [StuckTask], {
    description:
      'Tasks whose latest iterations all report progress STUCK or all repeat the same failing tool call; most stuck first.',
  })
  stuckTasks(@Args() { minIterations, status, limit }: StuckTasksArgs, @Ctx() ctx: Context): Promise<StuckTask[]> {
    return ctx.services.runs.stuckTasks(minIterations, status, limit);
  }
}

/** Seed 004's fields of a task: its actions, and the attempts derived from them. */
@Resolver(() => Task)
export class TaskRunResolver {
  @Cost({ maxSize: MAX_ACTIONS_LIMIT })
  @FieldResolver(() => [Action], {
    description: "The run's iterations from fromIteration on, ordered by iteration (seed 004 actions).",
  })
  async actions(
    @Root() task: Task,
    @Args() { fromIteration, limit }: ActionsArgs,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Action[]> {
    const { actions, damage } = await ctx.services.runs.actions(task.taskId, fromIteration, limit);
    reportStoredField(ctx.storedValues, info.path, damage);
    return actions;
  }

  @FieldResolver(() => [String], {
    description:
      'Seed 004 compress_actions, derived on read: per tool call, its insights when rated at least minRelevance, else (no insights) `name(args_summary) → outcome`.',
  })
  async attempts(
    @Root() task: Task,
    @Args() { minRelevance }: AttemptsArgs,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ): Promise<string[]> {
    const { actions, damage } = await ctx.services.runs.attempts(task.taskId, minRelevance);
    reportStoredField(ctx.storedValues, info.path, damage);
    return actions;
  }
}
