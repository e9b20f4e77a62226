import { Field, Float, Int, ObjectType } from 'type-graphql';
import { Node } from '../shared/node';

// simpleResolvers: fields read without type-graphql's per-field middleware wrapper (see shared/connection.ts).
@ObjectType({ simpleResolvers: true, description: 'An error of a tool in one context, with how often it occurred.' })
export class ToolError {
  @Field({ description: 'The error message (whitespace collapsed).' })
  error!: string;

  @Field(() => Int, { description: 'How many failed runs ended with it.' })
  frequency!: number;

  @Field(() => Float, { description: 'Its share of the failures in scope, 0–100 (100 × frequency / failureCount).' })
  percentage!: number;

  @Field(() => String, { nullable: true, description: 'The context the runs had; null for none.' })
  context!: string | null;

  @Field(() => String, { nullable: true, description: 'The task of the latest run that hit it, when reported.' })
  lastTaskId!: string | null;
}

@ObjectType({
  simpleResolvers: true,
  implements: Node,
  description: 'How a tool performs (seed 002 get_tool_performance), from aggregates kept current on every write.',
})
export class ToolPerformance {
  @Field()
  toolName!: string;

  @Field(() => String, {
    nullable: true,
    description: 'The context the figures are for; null for all runs of the tool.',
  })
  context!: string | null;

  @Field(() => Int)
  totalExecutions!: number;

  @Field(() => Int)
  successCount!: number;

  @Field(() => Int)
  failureCount!: number;

  @Field(() => Float, { description: 'successCount / totalExecutions, 0–1 (0 without runs).' })
  successRate!: number;

  @Field(() => Float, { description: 'Average duration in milliseconds over the runs that reported one (0 without).' })
  avgDuration!: number;

  @Field(() => Int, { description: 'Runs that reported a duration (the denominator of avgDuration).' })
  timedExecutions!: number;

  @Field(() => [ToolError], { description: 'Most frequent first.' })
  commonErrors!: ToolError[];

  @Field(() => [String], { description: 'Contexts where the tool works best (≥ 5 runs, ≥ 80% success), best first.' })
  optimalContext!: string[];

  @Field(() => [String], {
    description: 'Advice from the documented rules: failing contexts, a dominant error, slow runs.',
  })
  recommendations!: string[];

  @Field(() => Date, { nullable: true, description: 'When a run was last recorded; null when none was.' })
  lastUpdated!: Date | null;
}
