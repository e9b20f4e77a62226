import { ArgsType, Field, Float, InputType, Int } from 'type-graphql';
import { ForwardPageArgs } from '../shared/connection';
import { RankingInput } from '../shared/ranking.input';

@ArgsType()
export class SuccessfulPlansArgs {
  @Field({ description: 'The goal to find plans for, e.g. "Create shipment for facility".' })
  goal!: string;

  @Field(() => Int, { defaultValue: 5, description: 'At most this many plans (1–100).' })
  limit!: number;

  @Field(() => Float, { defaultValue: 0.8, description: 'Only plans whose success rate is at least this (0–1).' })
  minSuccessRate!: number;

  @Field(() => String, {
    nullable: true,
    description:
      "Only plans learned from this end user's tasks, with the figures of their runs alone (success rate, usage, duration, last use, failed steps) and the goal of their latest run.",
  })
  userId?: string | null;

  @Field(() => RankingInput, {
    nullable: true,
    description:
      'How the success rate weighs on the score (outcomeWeight, as for searches: docs/search.md#ranking); usage and recency are parts of the plan score itself, and feedback and use do not apply to plans.',
  })
  ranking?: RankingInput | null;
}

@InputType({ description: 'Conditions on plan patterns; all given ones must hold.' })
export class PlanPatternFilter {
  @Field(() => String, { nullable: true, description: 'Exactly this goal template.' })
  goalPattern?: string | null;

  @Field(() => String, { nullable: true, description: 'Plans with a step running this action.' })
  action?: string | null;

  @Field(() => Float, { nullable: true })
  minSuccessRate?: number | null;

  @Field(() => Int, { nullable: true })
  minUsageCount?: number | null;
}

@ArgsType()
export class PlanPatternsArgs extends ForwardPageArgs {
  @Field(() => PlanPatternFilter, { nullable: true })
  filter?: PlanPatternFilter | null;
}
