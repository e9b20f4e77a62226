import { createHash } from 'node:crypto';
import { Field, Float, ID, Int, ObjectType } from 'type-graphql';
import { ConnectionType } from '../shared/connection';
import {
  storedDate,
  storedFloat,
  storedInt,
  storedObjects,
  storedText,
  storedTextList,
  StoredReader,
} from '../shared/stored-values';
import { PLAN_PATTERNS_COLLECTION, type PlanPatternDocument } from './plan.document';
import { Node } from '../shared/node';

@ObjectType({ simpleResolvers: true, description: 'One step of a plan.' })
export class PlanStep {
  // Not `id`: a step's id is unique only within its plan, and a client cache normalises every object by its `id`.
  @Field({ description: "The step's id within its plan (stored as `id`), e.g. step-1." })
  stepId!: string;

  @Field({ description: 'The tool or action the step runs, e.g. list_facilities.' })
  action!: string;

  @Field(() => Int, { description: 'Position in the plan, from 1.' })
  order!: number;
}

@ObjectType({
  simpleResolvers: true,
  implements: Node,
  description: 'A plan that runs of one kind of goal used (collection plan_patterns), with how it fared.',
})
export class PlanPattern {
  @Field(() => ID, { description: 'patternId: derived from (goalPattern, stepSequence).' })
  patternId!: string;

  @Field({ description: 'The goal template, e.g. create_*_for_facility_*.' })
  goalPattern!: string;

  @Field(() => [String], { description: 'The actions of the steps, in order.' })
  stepSequence!: string[];

  @Field(() => [PlanStep])
  steps!: PlanStep[];

  @Field({ description: 'The goal of the first run learned into this pattern.' })
  exampleGoal!: string;

  @Field(() => Float, { description: 'Completed runs / runs, 0–1.' })
  successRate!: number;

  @Field(() => Float, { description: 'Average execution time of its runs, in milliseconds.' })
  avgExecutionTime!: number;

  @Field(() => [String], { description: 'Issues of failed runs, most frequent first.' })
  commonIssues!: string[];

  @Field(() => Int, { description: 'Runs learned into it.' })
  usageCount!: number;

  @Field(() => Int)
  successCount!: number;

  @Field(() => Int)
  failureCount!: number;

  @Field()
  createdAt!: Date;

  @Field({ description: 'Start time of the latest run learned into it.' })
  lastUsed!: Date;
}

export const PlanPatternConnection = ConnectionType('PlanPattern', PlanPattern);

@ObjectType({
  simpleResolvers: true,
  description: 'How a plan was ranked by successfulPlans (the formula is in the README).',
})
export class PlanScores {
  @Field(() => Float, { description: 'Goal-pattern match of the asked goal and the plan’s template, 0–1.' })
  goalPattern!: number;

  @Field(() => Float, {
    description: 'Cosine similarity of the asked goal and the plan’s example goal (negative counts as 0).',
  })
  vector!: number;

  @Field(() => Float, {
    description: 'Keyword relevance (normalised BM25, stems and synonyms) of the asked goal to the example goal, 0–1.',
  })
  keyword!: number;

  @Field(() => Float, { description: 'Text similarity: vector and keyword fused as hybrid search fuses them, 0–1.' })
  semantic!: number;

  @Field(() => Float, { description: '(goalPattern + semantic) / 2: a plan is a candidate from 0.4.' })
  match!: number;

  @Field(() => Float, { description: 'usageCount / (usageCount + 5).' })
  usage!: number;

  @Field(() => Float, { description: '0.5 ^ (days since lastUsed / 30).' })
  recency!: number;

  @Field(() => Float, {
    description:
      "1 − outcomeWeight × (1 − successRate): the success rate's factor on the score (ranking.outcomeWeight).",
  })
  outcome!: number;
}

@ObjectType({
  simpleResolvers: true,
  description: 'A plan that worked for goals like the one asked about (seed 002 get_successful_plans).',
})
export class SuccessfulPlan {
  @Field(() => ID, {
    description: 'The plan pattern’s id (pass it as planId to learnFromTask when the plan is reused).',
  })
  planId!: string;

  @Field({ description: 'The example goal of the plan.' })
  goal!: string;

  @Field()
  goalPattern!: string;

  @Field(() => [PlanStep])
  steps!: PlanStep[];

  @Field(() => Float)
  successRate!: number;

  @Field(() => Float)
  avgExecutionTime!: number;

  @Field(() => Int)
  usageCount!: number;

  @Field()
  lastUsed!: Date;

  @Field(() => [String])
  commonIssues!: string[];

  @Field(() => Float, { description: 'match × (usage + recency) / 2 × outcome: the rank, best first.' })
  score!: number;

  @Field(() => PlanScores)
  scores!: PlanScores;
}

@ObjectType({ simpleResolvers: true })
export class SuccessfulPlansResult {
  @Field(() => [SuccessfulPlan])
  plans!: SuccessfulPlan[];

  @Field(() => Int)
  count!: number;
}

/** The id of the plan pattern of (goal pattern, step sequence): deterministic, so concurrent first runs upsert one document. */
export function planPatternId(goalPattern: string, stepSequence: readonly string[]): string {
  return `pp_${createHash('sha256')
    .update([goalPattern, ...stepSequence].join('\0'))
    .digest('hex')
    .slice(0, 24)}`;
}

/**
 * The stored `steps` of a plan pattern or task, each step read through stored-values.ts; `read` is the document's
 * reader (for the list itself), and each step reports its own substituted fields as `steps.<index>.<field>`.
 */
export function toPlanSteps(read: StoredReader, stored: unknown): PlanStep[] {
  return read.field('steps', 'steps', storedObjects<Record<string, unknown>>(stored)).map((step, index) => {
    const readStep = read.part();
    const field = <T>(name: keyof PlanStep, stored: string, value: T) =>
      readStep.field(name, `steps.${index}.${stored}`, value);
    return readStep.attach({
      stepId: field('stepId', 'id', storedText(step.id, `step-${index + 1}`)),
      action: field('action', 'action', storedText(step.action)),
      order: field('order', 'order', storedInt(step.order, index + 1)),
    });
  });
}

/** Maps a stored plan pattern to the GraphQL shape, each field read through stored-values.ts. */
export function toPlanPattern(document: PlanPatternDocument): PlanPattern {
  const read = new StoredReader(PLAN_PATTERNS_COLLECTION, document.patternId);
  return read.attach({
    patternId: read.field('patternId', 'patternId', storedText(document.patternId)),
    goalPattern: read.field('goalPattern', 'goalPattern', storedText(document.goalPattern)),
    stepSequence: read.field('stepSequence', 'stepSequence', storedTextList(document.stepSequence)),
    steps: toPlanSteps(read, document.steps),
    exampleGoal: read.field('exampleGoal', 'exampleGoal', storedText(document.exampleGoal, '')),
    successRate: read.field('successRate', 'successRate', storedFloat(document.successRate)),
    avgExecutionTime: read.field('avgExecutionTime', 'avgExecutionTime', storedFloat(document.avgExecutionTime)),
    commonIssues: read.field('commonIssues', 'commonIssues', storedTextList(document.commonIssues)),
    usageCount: read.field('usageCount', 'usageCount', storedInt(document.usageCount)),
    successCount: read.field('successCount', 'successCount', storedInt(document.successCount, 0)),
    failureCount: read.field('failureCount', 'failureCount', storedInt(document.failureCount, 0)),
    createdAt: read.field('createdAt', 'createdAt', storedDate(document.createdAt)),
    lastUsed: read.field('lastUsed', 'lastUsed', storedDate(document.lastUsed)),
  });
}
