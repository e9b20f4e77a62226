import { Authorized, Arg, Args, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { Context } from '../../context';
import { IDEMPOTENCY_KEY } from '../shared/idempotency';
import { RecordToolExecutionInput, ToolPerformanceArgs } from './tool.input';
import { ToolPerformance } from './tool.type';

@Resolver()
export class ToolResolver {
  @Authorized('reader')
  @Query(() => ToolPerformance, {
    description:
      'How a tool performs, overall or in one context, with recommendations (seed 002 get_tool_performance). One indexed read; with userId or similarTo, computed from the tasks in scope.',
  })
  toolPerformance(
    @Args() { toolName, context, userId, similarTo, k }: ToolPerformanceArgs,
    @Ctx() ctx: Context,
  ): Promise<ToolPerformance> {
    return ctx.services.tools.performance(toolName, { context, userId, similarTo, k });
  }

  @Authorized('writer')
  @Mutation(() => ToolPerformance, {
    description: "Records one tool call (the executor's real-time tracking); returns the tool's figures.",
  })
  recordToolExecution(
    @Arg('input') input: RecordToolExecutionInput,
    @Arg('idempotencyKey', () => String, { nullable: true, description: IDEMPOTENCY_KEY })
    idempotencyKey: string | null,
    @Ctx() ctx: Context,
  ): Promise<ToolPerformance> {
    return ctx.services.tools.record(input, idempotencyKey);
  }

  @Authorized('writer')
  @Mutation(() => [ToolPerformance], {
    description: 'Records a batch of tool calls; returns the figures of each tool involved.',
  })
  recordToolExecutions(
    @Arg('inputs', () => [RecordToolExecutionInput]) inputs: RecordToolExecutionInput[],
    @Arg('idempotencyKey', () => String, { nullable: true, description: IDEMPOTENCY_KEY })
    idempotencyKey: string | null,
    @Ctx() ctx: Context,
  ): Promise<ToolPerformance[]> {
    return ctx.services.tools.recordMany(inputs, idempotencyKey);
  }
}
