import { ArgsType, Field, Float, InputType, Int } from 'type-graphql';

@InputType({ description: 'One call of a tool, reported by the executor as it happens.' })
export class RecordToolExecutionInput {
  @Field()
  toolName!: string;

  @Field()
  success!: boolean;

  @Field(() => Float, { description: 'Wall time in milliseconds (≥ 0).' })
  durationMs!: number;

  @Field(() => String, { nullable: true, description: 'The error of a failed call.' })
  error?: string | null;

  @Field(() => String, { nullable: true, description: 'Where it ran, e.g. "facility_management".' })
  context?: string | null;

  @Field(() => String, { nullable: true, description: 'The task the call belongs to.' })
  taskId?: string | null;
}

@ArgsType()
export class ToolPerformanceArgs {
  @Field()
  toolName!: string;

  @Field(() => String, { nullable: true, description: 'Only the runs in this context.' })
  context?: string | null;

  @Field(() => String, {
    nullable: true,
    description:
      "Only this end user's runs: the tool calls of their tasks' recorded actions and the plan steps learnFromTask counted from their tasks (executions reported by recordToolExecution carry no user and are left out).",
  })
  userId?: string | null;

  @Field(() => String, {
    nullable: true,
    description:
      "Only the runs in the k past tasks most similar to this text (by similarTasks' ranking): how the tool does on tasks like this one. Counted from those tasks' recorded actions and learned plan steps, as with userId (which then narrows the tasks to that user's).",
  })
  similarTo?: string | null;

  @Field(() => Int, {
    nullable: true,
    description: 'With similarTo: how many similar tasks to count (1–1000, default 50).',
  })
  k?: number | null;
}
