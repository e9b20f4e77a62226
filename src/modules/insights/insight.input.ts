import { ArgsType, Field, Float, InputType, Int } from 'type-graphql';
import { EXPIRY_DESCRIPTIONS } from '../shared/expiry';
import { AgentType, InsightType } from './insight.type';
import { AS_OF, INCLUDE_SUPERSEDED } from '../shared/validity.type';

@ArgsType()
export class AgentInsightsArgs {
  @Field(() => AgentType)
  agentType!: AgentType;

  @Field(() => InsightType, { nullable: true, description: 'Only insights of this kind.' })
  insightType?: InsightType | null;

  @Field(() => String, { nullable: true, description: 'Only insights about this end user.' })
  userId?: string | null;

  @Field(() => String, { nullable: true, description: 'Only insights scoped to this agent.' })
  agentId?: string | null;

  @Field(() => Int, { defaultValue: 10, description: 'At most this many (1–100), most confident first.' })
  limit!: number;

  @Field(() => Float, { defaultValue: 0, description: 'Only insights at least this confident (0–1).' })
  minConfidence!: number;

  @Field({ defaultValue: false, description: INCLUDE_SUPERSEDED })
  includeSuperseded!: boolean;

  @Field(() => Date, { nullable: true, description: AS_OF })
  asOf?: Date | null;
}

@InputType({ description: 'A task that supports an insight.' })
export class InsightEvidenceInput {
  @Field()
  taskId!: string;

  @Field()
  description!: string;
}

@InputType({
  description:
    'An insight of an agent. The same text (case and spacing aside) of one agent and type is one insight: recording it again adds evidence.',
})
export class RecordInsightInput {
  @Field(() => AgentType)
  agentType!: AgentType;

  @Field(() => String, {
    nullable: true,
    description: 'The end user the insight is about (at most 200 characters); each user has their own insights.',
  })
  userId?: string | null;

  @Field(() => String, {
    nullable: true,
    description: 'The one agent the insight is scoped to (at most 200 characters), beside its agentType.',
  })
  agentId?: string | null;

  @Field(() => InsightType)
  type!: InsightType;

  @Field()
  insight!: string;

  @Field(() => Float, {
    nullable: true,
    description: 'Starting confidence of a new insight (0–1, default 0.5); ignored for a known one.',
  })
  confidence?: number | null;

  @Field(() => [InsightEvidenceInput], { nullable: true })
  evidence?: InsightEvidenceInput[] | null;

  @Field(() => Date, {
    nullable: true,
    description: `${EXPIRY_DESCRIPTIONS.expiresAt} Recording it again with an expiry replaces it; without, keeps it.`,
  })
  expiresAt?: Date | null;

  @Field(() => Int, { nullable: true, description: EXPIRY_DESCRIPTIONS.ttlSeconds })
  ttlSeconds?: number | null;
  @Field(() => Date, { nullable: true, description: 'Valid from, for a new insight; default: now.' })
  validFrom?: Date | null;

  @Field(() => Date, {
    nullable: true,
    description: 'Valid until (after validFrom), for a new insight; default: open.',
  })
  validUntil?: Date | null;
}
