import { Field, Float, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { AgentType } from '../insights/insight.type';
import { goalPattern } from '../plans/plan.goal-pattern';
import { PlanStep, toPlanSteps } from '../plans/plan.type';
import { ConnectionType } from '../shared/connection';
import { EXPIRY_DESCRIPTIONS } from '../shared/expiry';
import {
  storedDate,
  storedDateOrNull,
  storedEnum,
  storedEnumOrNull,
  storedFloat,
  storedInt,
  storedObject,
  storedText,
  storedTextOrNull,
  StoredReader,
} from '../shared/stored-values';
import { TASKS_COLLECTION, TaskStatus, type TaskDocument } from './task.document';
import { Node } from '../shared/node';

export { TaskStatus };

registerEnumType(TaskStatus, { name: 'TaskStatus', description: "Stored as 'completed', 'failed' or 'paused'." });

/** The final outcome learnFromTask accepts. */
export enum TaskOutcome {
  COMPLETED = 'completed',
  FAILED = 'failed',
}
registerEnumType(TaskOutcome, {
  name: 'TaskOutcome',
  description: "How a finished task ended; stored as 'completed' or 'failed'.",
});

@ObjectType({ simpleResolvers: true, description: 'How a run went (seed 002 successMetrics).' })
export class SuccessMetrics {
  @Field(() => Float, { description: 'Milliseconds.' })
  executionTime!: number;

  @Field(() => Int)
  stepsCompleted!: number;

  @Field(() => Int)
  retries!: number;

  @Field(() => Int)
  userInputsRequired!: number;
}

@ObjectType({
  simpleResolvers: true,
  implements: Node,
  description: 'A past task: what was asked, the goal, the plan, how it went (collection tasks).',
})
export class Task {
  @Field(() => ID)
  taskId!: string;

  @Field({ description: "The user's query." })
  originalQuery!: string;

  @Field()
  goal!: string;

  @Field({ description: 'The goal template, e.g. create_*_for_facility_*.' })
  goalPattern!: string;

  @Field(() => String, {
    nullable: true,
    description: "The plan's id as the agent gave it (a plan pattern's id when a known plan was reused).",
  })
  planId!: string | null;

  @Field(() => [PlanStep], { description: 'The steps of the plan, in order.' })
  steps!: PlanStep[];

  @Field(() => TaskStatus)
  status!: TaskStatus;

  @Field(() => SuccessMetrics)
  successMetrics!: SuccessMetrics;

  @Field(() => Float, { description: 'successMetrics.executionTime (milliseconds).' })
  executionTime!: number;

  @Field(() => AgentType, { nullable: true })
  agentType!: AgentType | null;

  @Field(() => String, {
    nullable: true,
    description: 'Where it ran, e.g. "facility_management" (the context of its tool runs).',
  })
  context!: string | null;

  @Field(() => String, { nullable: true, description: 'The end user the task is about (`user_id`).' })
  userId!: string | null;

  @Field(() => String, {
    nullable: true,
    description: 'The plan pattern learnFromTask added it to; null before learning.',
  })
  patternId!: string | null;

  @Field()
  createdAt!: Date;

  @Field(() => Date, { nullable: true, description: 'When learnFromTask learned from it; null if not yet.' })
  learnedAt!: Date | null;

  @Field(() => Date, { nullable: true, description: EXPIRY_DESCRIPTIONS.stored })
  expiresAt!: Date | null;
}

export const TaskConnection = ConnectionType('Task', Task);

@ObjectType({
  simpleResolvers: true,
  description: 'How a similar task scored; each part is 0–1 (the formula is in the README).',
})
export class SimilarityParts {
  @Field(() => Float, {
    description:
      'Cosine similarity of query and goal with the task’s (negative counts as 0; the mean when both are given).',
  })
  vector!: number;

  @Field(() => Float, {
    description: 'BM25 keyword relevance, divided by the best keyword score among the candidates.',
  })
  keyword!: number;

  @Field(() => Float, { description: 'Goal-pattern match of the asked goal (or query) and the task’s goal template.' })
  goalPattern!: number;
}

@ObjectType({
  simpleResolvers: true,
  description: 'A past task like the one asked about (seed 002 get_similar_tasks).',
})
export class SimilarTask {
  @Field(() => ID)
  taskId!: string;

  @Field({ description: "The task's original query." })
  query!: string;

  @Field()
  goal!: string;

  @Field(() => TaskStatus)
  status!: TaskStatus;

  @Field(() => String, { nullable: true, description: 'The end user the task is about.' })
  userId!: string | null;

  @Field(() => Float, { description: 'The fused similarity, 0–1 (minSimilarity applies to it): the relevance.' })
  similarity!: number;

  @Field(() => Float, {
    description: 'The ranking score: similarity × recency × outcome (docs/search.md#ranking); the order of the list.',
  })
  score!: number;

  @Field(() => Float, { description: 'Recency factor in [1 − recencyWeight, 1], of createdAt.' })
  recency!: number;

  @Field(() => Float, {
    description: 'Outcome factor in [1 − outcomeWeight, 1]: 1 for COMPLETED, 1 − w/2 for PAUSED, 1 − w for FAILED.',
  })
  outcome!: number;

  @Field(() => SimilarityParts)
  scores!: SimilarityParts;

  @Field(() => Float, { description: 'Milliseconds.' })
  executionTime!: number;

  @Field(() => SuccessMetrics)
  successMetrics!: SuccessMetrics;

  @Field()
  createdAt!: Date;

  @Field(() => Task, { description: 'The whole record (steps, plan, agent).' })
  task!: Task;
}

@ObjectType({ simpleResolvers: true })
export class SimilarTasksResult {
  @Field(() => [SimilarTask])
  tasks!: SimilarTask[];

  @Field(() => Int)
  count!: number;
}

@ObjectType({ simpleResolvers: true, description: 'What learnFromTask stored (seed 002 learn_from_task).' })
export class LearnResult {
  @Field()
  success!: boolean;

  @Field(() => Int, { description: 'Plan patterns updated (1 when the task has steps, else 0).' })
  patternsLearned!: number;

  @Field(() => Int, { description: 'Distinct insights stored with the task as evidence.' })
  insightsStored!: number;

  @Field(() => String, { nullable: true, description: 'The plan pattern the run was added to.' })
  patternId!: string | null;

  @Field({
    description:
      'True when this task had been learned before: nothing was counted again; the first answer is returned.',
  })
  alreadyLearned!: boolean;

  /** The task learned from (the `task` back-reference reads it). */
  taskId!: string;
}

/** The goal template of a task; derived for documents stored without one (imported in the seed's shape). */
export function taskGoalPattern(document: Pick<TaskDocument, 'goal' | 'goalPattern'>): string {
  return document.goalPattern ?? goalPattern(document.goal);
}

/** Maps a stored task to the GraphQL shape, each field read through stored-values.ts (an unknown status reads as PAUSED). */
export function toTask(document: TaskDocument): Task {
  const read = new StoredReader(TASKS_COLLECTION, document.taskId);
  const stored = read.field('successMetrics', 'successMetrics', storedObject(document.successMetrics));
  const readMetrics = new StoredReader(TASKS_COLLECTION, document.taskId);
  const metric = <T>(field: keyof SuccessMetrics, value: T) =>
    readMetrics.field(field, `successMetrics.${field}`, value);
  const metrics = readMetrics.attach({
    executionTime: metric('executionTime', storedFloat(stored.executionTime)),
    stepsCompleted: metric('stepsCompleted', storedInt(stored.stepsCompleted)),
    retries: metric('retries', storedInt(stored.retries)),
    userInputsRequired: metric('userInputsRequired', storedInt(stored.userInputsRequired)),
  });
  return read.attach({
    taskId: read.field('taskId', 'taskId', storedText(document.taskId)),
    originalQuery: read.field('originalQuery', 'originalQuery', storedText(document.originalQuery)),
    goal: read.field('goal', 'goal', storedText(document.goal)),
    goalPattern: read.field(
      'goalPattern',
      'goalPattern',
      typeof document.goal === 'string' ? taskGoalPattern(document) : storedText(document.goalPattern),
    ),
    planId: read.field('planId', 'planId', storedTextOrNull(document.planId)),
    steps: toPlanSteps(read, document.steps),
    status: read.field('status', 'status', storedEnum(document.status, TASK_STATUSES, TaskStatus.PAUSED)),
    successMetrics: metrics,
    executionTime: read.field('executionTime', 'successMetrics.executionTime', storedFloat(stored.executionTime)),
    agentType: read.field('agentType', 'agentType', storedEnumOrNull(document.agentType, AGENT_TYPES)),
    context: read.field('context', 'context', storedTextOrNull(document.context)),
    userId: read.field('userId', 'user_id', storedTextOrNull(document.user_id)),
    patternId: read.field('patternId', 'patternId', storedTextOrNull(document.patternId)),
    createdAt: read.field('createdAt', 'createdAt', storedDate(document.createdAt)),
    learnedAt: read.field('learnedAt', 'learning.learnedAt', storedDateOrNull(document.learning?.learnedAt)),
    expiresAt: read.field('expiresAt', 'expires_at', storedDateOrNull(document.expires_at)),
  });
}

const TASK_STATUSES = Object.values(TaskStatus);
const AGENT_TYPES = Object.values(AgentType);
