import { RankingInput } from '../shared/ranking.input';
import { ArgsType, Field, Float, ID, InputType, Int } from 'type-graphql';
import { AgentType } from '../insights/insight.type';
import { ForwardPageArgs } from '../shared/connection';
import { EXPIRY_DESCRIPTIONS } from '../shared/expiry';
import { TaskOutcome, TaskStatus } from './task.type';

@InputType({ description: 'One step of a plan.' })
export class PlanStepInput {
  @Field(() => String, { nullable: true, description: 'Default: step-<position>.' })
  id?: string | null;

  @Field({ description: 'The tool or action the step runs.' })
  action!: string;

  @Field(() => Int, {
    nullable: true,
    description: 'Position; steps are sorted by it (default: their order in the list).',
  })
  order?: number | null;
}

@InputType({ description: 'How a run went.' })
export class SuccessMetricsInput {
  @Field(() => Float, { description: 'Milliseconds (≥ 0).' })
  executionTime!: number;

  @Field(() => Int)
  stepsCompleted!: number;

  @Field(() => Int, { defaultValue: 0 })
  retries!: number;

  @Field(() => Int, { defaultValue: 0 })
  userInputsRequired!: number;
}

@InputType({
  description:
    "A finished (or paused) task: seed 002's TaskSimilarity record. Query and goal are embedded for similarTasks.",
})
export class RecordTaskInput {
  @Field(() => ID, { nullable: true, description: 'Unique id; a new ObjectId string when absent.' })
  taskId?: string | null;

  @Field()
  originalQuery!: string;

  @Field()
  goal!: string;

  @Field(() => String, { nullable: true })
  planId?: string | null;

  @Field(() => [PlanStepInput], {
    nullable: true,
    description: 'The plan that ran; learnFromTask learns its step sequence.',
  })
  steps?: PlanStepInput[] | null;

  @Field(() => TaskStatus)
  status!: TaskStatus;

  @Field(() => SuccessMetricsInput, { nullable: true, description: 'Default: all zero.' })
  successMetrics?: SuccessMetricsInput | null;

  @Field(() => AgentType, {
    nullable: true,
    description: 'The agent whose insights the task supports (learnFromTask: default EXECUTOR).',
  })
  agentType?: AgentType | null;

  @Field(() => String, {
    nullable: true,
    description: 'Where it ran, e.g. "facility_management"; the context of its steps in tool performance.',
  })
  context?: string | null;

  @Field(() => String, { nullable: true, description: 'The end user the task is about; at most 200 characters.' })
  userId?: string | null;

  @Field(() => Date, { nullable: true, description: 'When it started; default now.' })
  createdAt?: Date | null;

  @Field(() => Date, { nullable: true, description: EXPIRY_DESCRIPTIONS.expiresAt })
  expiresAt?: Date | null;

  @Field(() => Int, { nullable: true, description: EXPIRY_DESCRIPTIONS.ttlSeconds })
  ttlSeconds?: number | null;
}

@InputType({
  description:
    'Learning from a finished task (seed 002 learn_from_task). The task must have been recorded with recordTask.',
})
export class LearnFromTaskInput {
  @Field(() => ID)
  taskId!: string;

  @Field(() => String, {
    nullable: true,
    description:
      "The plan that ran: a plan pattern's id (a plan reused from successfulPlans) or the agent's own plan id; stored on the task.",
  })
  planId?: string | null;

  @Field(() => TaskOutcome)
  status!: TaskOutcome;

  @Field(() => SuccessMetricsInput)
  metrics!: SuccessMetricsInput;

  @Field(() => [String], {
    defaultValue: [],
    description: 'Key learnings; each is stored as an insight with the task as evidence.',
  })
  insights!: string[];

  @Field({
    defaultValue: true,
    description:
      "Count the plan's steps into tool performance; false when the executor already reported them with recordToolExecution.",
  })
  countToolExecutions!: boolean;
}

@ArgsType()
export class SimilarTasksArgs {
  @Field(() => String, { nullable: true, description: 'A user query to match (query or goal is required).' })
  query?: string | null;

  @Field(() => String, { nullable: true, description: 'A goal to match.' })
  goal?: string | null;

  @Field(() => Int, { defaultValue: 10, description: 'At most this many (1–100).' })
  limit!: number;

  @Field(() => TaskStatus, { nullable: true })
  status?: TaskStatus | null;

  @Field(() => String, { nullable: true, description: "Only this end user's tasks." })
  userId?: string | null;

  @Field(() => Float, { defaultValue: 0.7, description: 'Only tasks at least this similar (0–1).' })
  minSimilarity!: number;

  @Field(() => RankingInput, {
    nullable: true,
    description:
      'How the status (COMPLETED 1, PAUSED 0.5, FAILED 0: outcomeWeight) and the age (createdAt: recencyWeight, recencyHalfLifeDays) weigh on similarity (docs/search.md#ranking); feedback and use do not apply to tasks.',
  })
  ranking?: RankingInput | null;
}

@InputType({ description: 'Conditions on tasks; all given ones must hold.' })
export class TaskFilter {
  @Field(() => TaskStatus, { nullable: true })
  status?: TaskStatus | null;

  @Field(() => AgentType, { nullable: true })
  agentType?: AgentType | null;

  @Field(() => String, { nullable: true, description: 'Only tasks about this end user.' })
  userId?: string | null;

  @Field(() => String, { nullable: true, description: 'Exactly this goal template.' })
  goalPattern?: string | null;

  @Field(() => String, { nullable: true })
  planId?: string | null;

  @Field(() => String, { nullable: true, description: 'Tasks learned into this plan pattern.' })
  patternId?: string | null;

  @Field(() => Date, { nullable: true, description: 'createdAt ≥ this.' })
  since?: Date | null;

  @Field(() => Date, { nullable: true, description: 'createdAt < this.' })
  until?: Date | null;
}

@ArgsType()
export class TasksArgs extends ForwardPageArgs {
  @Field(() => TaskFilter, { nullable: true })
  filter?: TaskFilter | null;
}
