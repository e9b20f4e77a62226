import { Authorized, Arg, Args, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { MAX_SIMILAR_LIMIT } from './task.service';
import { Cost } from '../../graphql/query-limits';
import type { Context } from '../../context';
import { InsightEvidence } from '../insights/insight.type';
import { PlanPattern, toPlanPattern } from '../plans/plan.type';
import type { Connection } from '../shared/connection';
import { LearnFromTaskInput, RecordTaskInput, SimilarTasksArgs, TasksArgs } from './task.input';
import { LearnResult, SimilarTasksResult, Task, TaskConnection, toTask } from './task.type';
import { IDEMPOTENCY_KEY } from '../shared/idempotency';

@Resolver(() => Task)
export class TaskResolver {
  @Authorized('reader')
  @Query(() => Task, { nullable: true, description: 'One task by taskId; null when unknown.' })
  task(@Arg('id', () => ID) id: string, @Ctx() ctx: Context): Promise<Task | null> {
    return ctx.services.tasks.get(id);
  }

  @Authorized('reader')
  @Query(() => TaskConnection, { description: 'Tasks matching the filter, newest first.' })
  tasks(@Args() args: TasksArgs, @Ctx() ctx: Context): Promise<Connection<Task>> {
    return ctx.services.tasks.list(args);
  }

  @Cost({ search: true, maxSize: MAX_SIMILAR_LIMIT })
  @Authorized('reader')
  @Query(() => SimilarTasksResult, {
    description:
      'Past tasks like a query and/or goal (seed 002 get_similar_tasks): vector, keyword and goal-pattern scores fused.',
  })
  similarTasks(@Args() args: SimilarTasksArgs, @Ctx() ctx: Context): Promise<SimilarTasksResult> {
    return ctx.services.tasks.similar(args);
  }

  @Authorized('writer')
  @Mutation(() => Task, {
    description: 'Records a task (seed 002 TaskSimilarity); its query and goal are embedded for similarTasks.',
  })
  recordTask(
    @Arg('input', () => RecordTaskInput) input: RecordTaskInput,
    @Arg('idempotencyKey', () => String, { nullable: true, description: IDEMPOTENCY_KEY })
    idempotencyKey: string | null,
    @Ctx() ctx: Context,
  ): Promise<Task> {
    return ctx.services.tasks.record(input, idempotencyKey);
  }

  @Authorized('writer')
  @Mutation(() => LearnResult, {
    description:
      'Learns from a finished, recorded task (seed 002 learn_from_task): plan pattern, tool performance, insights. Counts once per task.',
  })
  learnFromTask(
    @Arg('input', () => LearnFromTaskInput) input: LearnFromTaskInput,
    @Ctx() ctx: Context,
  ): Promise<LearnResult> {
    return ctx.services.learning.learn(input);
  }

  @FieldResolver(() => PlanPattern, {
    nullable: true,
    description: 'The plan pattern the task was learned into, or the one its planId names; null when neither exists.',
  })
  async plan(@Root() task: Task, @Ctx() ctx: Context): Promise<PlanPattern | null> {
    const id = task.patternId ?? task.planId;
    const document = id ? await ctx.loaders.plans.planPatternById.load(id) : null;
    return document && toPlanPattern(document);
  }
}

/** The task an insight's evidence names: here, since insights know nothing of tasks (tasks record insights). */
@Resolver(() => InsightEvidence)
export class InsightEvidenceResolver {
  @FieldResolver(() => Task, {
    nullable: true,
    description: 'The task (batched per request); null when it was not recorded.',
  })
  async task(@Root() evidence: InsightEvidence, @Ctx() ctx: Context): Promise<Task | null> {
    const document = await ctx.loaders.tasks.taskById.load(evidence.taskId);
    return document && toTask(document);
  }
}
