import { ArgsType, Field, Float, ID, InputType, Int, registerEnumType } from 'type-graphql';
import { GraphQLJSON, GraphQLJSONObject } from 'graphql-scalars';
import { ForwardPageArgs } from '../shared/connection';
import { EXPIRY_DESCRIPTIONS } from '../shared/expiry';
import { ExperienceField, ExperienceOutcome } from './experience.type';
import { AS_OF, INCLUDE_SUPERSEDED } from '../shared/validity.type';
import { DIVERSITY, RankingInput } from '../shared/ranking.input';

@InputType({
  description: 'Feedback on an experience. Typed keys are stored snake_case (user_rating, ...); `extra` keys as given.',
})
export class FeedbackSignalsInput {
  @Field(() => Float, { nullable: true })
  userRating?: number | null;

  @Field(() => Boolean, { nullable: true })
  correctionNeeded?: boolean | null;

  @Field(() => Boolean, {
    nullable: true,
    description:
      'Whether the experience helped (e.g. after recall found it): true counts one use, which ranks it higher (docs/search.md#ranking).',
  })
  helpful?: boolean | null;

  @Field(() => String, { nullable: true })
  errorType?: string | null;

  @Field(() => String, { nullable: true })
  comment?: string | null;

  @Field(() => GraphQLJSONObject, { nullable: true, description: 'Any other keys (no `.` or leading `$`).' })
  extra?: Record<string, unknown> | null;
}

@InputType({ description: 'A new experience (seed 000). Required: the goal, the sub-task, the agent and the outcome.' })
export class RecordExperienceInput {
  @Field(() => ID, {
    nullable: true,
    description: 'Unique id (at most 200 characters); a UUID is generated when absent.',
  })
  experienceId?: string | null;

  @Field()
  primaryGoalDescription!: string;

  @Field()
  subTaskDescription!: string;

  @Field({ description: 'At most 200 characters.' })
  initiatingAgentId!: string;

  @Field(() => [String], { nullable: true })
  involvedComponents?: string[] | null;

  @Field(() => String, { nullable: true })
  inputContextSummary?: string | null;

  @Field(() => GraphQLJSON, { nullable: true, description: 'A list of strings, or a structured object.' })
  keyDecisionsMade?: unknown;

  @Field(() => ExperienceOutcome)
  finalOutcome!: ExperienceOutcome;

  @Field(() => String, { nullable: true })
  outputSummary?: string | null;

  @Field(() => FeedbackSignalsInput, { nullable: true })
  feedbackSignals?: FeedbackSignalsInput | null;

  @Field(() => Date, { nullable: true, description: 'When it happened; default now.' })
  timestamp?: Date | null;

  @Field(() => Int, { nullable: true, description: 'Record schema version; default 1.' })
  version?: number | null;

  @Field(() => String, { nullable: true, description: 'At most 200 characters.' })
  workflowId?: string | null;

  @Field(() => String, { nullable: true, description: 'At most 200 characters.' })
  sessionId?: string | null;

  @Field(() => String, { nullable: true, description: 'The end user the experience is about; at most 200 characters.' })
  userId?: string | null;

  @Field(() => [String], { nullable: true })
  tags?: string[] | null;

  @Field(() => Date, { nullable: true, description: EXPIRY_DESCRIPTIONS.expiresAt })
  expiresAt?: Date | null;

  @Field(() => Int, { nullable: true, description: EXPIRY_DESCRIPTIONS.ttlSeconds })
  ttlSeconds?: number | null;
  @Field(() => Date, { nullable: true, description: 'Valid from; default: now (when it is recorded).' })
  validFrom?: Date | null;

  @Field(() => Date, { nullable: true, description: 'Valid until (after validFrom); default: open.' })
  validUntil?: Date | null;

  @Field(() => Boolean, {
    nullable: true,
    description:
      'true (the default without an experienceId): when a current experience of the same agent, user and outcome has the same goal and sub-task (after normalisation, or nearly: see docs/lifecycle.md), count one more occurrence of it (tags merged) and return it instead of storing a copy. false (the default with an experienceId, which the caller will look for): store a copy anyway.',
  })
  dedupe?: boolean | null;
}

@InputType({
  description:
    'A partial update: absent fields are kept, null clears an optional field. Changed embeddable fields are re-embedded.',
})
export class UpdateExperienceInput {
  @Field(() => String, { nullable: true })
  primaryGoalDescription?: string | null;

  @Field(() => String, { nullable: true })
  subTaskDescription?: string | null;

  @Field(() => String, { nullable: true, description: 'At most 200 characters.' })
  initiatingAgentId?: string | null;

  @Field(() => [String], { nullable: true })
  involvedComponents?: string[] | null;

  @Field(() => String, { nullable: true })
  inputContextSummary?: string | null;

  @Field(() => GraphQLJSON, { nullable: true })
  keyDecisionsMade?: unknown;

  @Field(() => ExperienceOutcome, { nullable: true })
  finalOutcome?: ExperienceOutcome | null;

  @Field(() => String, { nullable: true })
  outputSummary?: string | null;

  @Field(() => FeedbackSignalsInput, {
    nullable: true,
    description: 'Replaces the feedback (use addExperienceFeedback to merge).',
  })
  feedbackSignals?: FeedbackSignalsInput | null;

  @Field(() => Date, { nullable: true })
  timestamp?: Date | null;

  @Field(() => Int, { nullable: true })
  version?: number | null;

  @Field(() => String, { nullable: true, description: 'At most 200 characters.' })
  workflowId?: string | null;

  @Field(() => String, { nullable: true, description: 'At most 200 characters.' })
  sessionId?: string | null;

  @Field(() => String, {
    nullable: true,
    description: 'The end user it is about; at most 200 characters; null clears.',
  })
  userId?: string | null;

  @Field(() => [String], { nullable: true })
  tags?: string[] | null;
}

@InputType({ description: 'Conditions on experiences; all given conditions must hold.' })
export class ExperienceFilter {
  @Field(() => String, { nullable: true })
  initiatingAgentId?: string | null;

  @Field(() => String, { nullable: true })
  workflowId?: string | null;

  @Field(() => String, { nullable: true })
  sessionId?: string | null;

  @Field(() => String, { nullable: true, description: 'Only experiences about this end user.' })
  userId?: string | null;

  @Field(() => [ExperienceOutcome], { nullable: true, description: 'Any of these outcomes.' })
  outcomes?: ExperienceOutcome[] | null;

  @Field(() => [String], { nullable: true, description: 'At least one of these tags.' })
  tagsAny?: string[] | null;

  @Field(() => [String], { nullable: true, description: 'All of these tags.' })
  tagsAll?: string[] | null;

  @Field(() => String, { nullable: true, description: 'This component is among involved_components.' })
  component?: string | null;

  @Field(() => Date, { nullable: true, description: 'timestamp >= since.' })
  since?: Date | null;

  @Field(() => Date, { nullable: true, description: 'timestamp < until.' })
  until?: Date | null;
}

export enum ExperienceOrderField {
  TIMESTAMP = 'timestamp',
}
registerEnumType(ExperienceOrderField, { name: 'ExperienceOrderField' });

export enum ExperienceOrderDirection {
  ASC = 1,
  DESC = -1,
}
registerEnumType(ExperienceOrderDirection, { name: 'ExperienceOrderDirection' });

@InputType({ description: 'Order of an experience list; ties are broken by experienceId in the same direction.' })
export class ExperienceOrder {
  @Field(() => ExperienceOrderField, { defaultValue: ExperienceOrderField.TIMESTAMP })
  field!: ExperienceOrderField;

  @Field(() => ExperienceOrderDirection, { defaultValue: ExperienceOrderDirection.DESC })
  direction!: ExperienceOrderDirection;
}

@ArgsType()
export class ExperiencesArgs extends ForwardPageArgs {
  @Field(() => ExperienceFilter, { nullable: true })
  filter?: ExperienceFilter | null;

  @Field(() => ExperienceOrder, { nullable: true, description: 'Default: newest first (timestamp DESC).' })
  orderBy?: ExperienceOrder | null;

  @Field({ defaultValue: false, description: INCLUDE_SUPERSEDED })
  includeSuperseded!: boolean;

  @Field(() => Date, { nullable: true, description: AS_OF })
  asOf?: Date | null;
}

export enum SearchMode {
  VECTOR = 'VECTOR',
  KEYWORD = 'KEYWORD',
  HYBRID = 'HYBRID',
}
registerEnumType(SearchMode, {
  name: 'SearchMode',
  description: 'VECTOR: semantic similarity; KEYWORD: BM25 word relevance; HYBRID: both, fused into one score.',
});

export const MAX_SEARCH_LIMIT = 100;

@ArgsType()
export class SearchExperiencesArgs {
  @Field({ description: 'Natural-language query.' })
  query!: string;

  @Field(() => [ExperienceField], { nullable: true, description: 'Fields to match against (default: all four).' })
  fields?: ExperienceField[] | null;

  @Field(() => ExperienceFilter, { nullable: true, description: 'Applied before the limit.' })
  filter?: ExperienceFilter | null;

  @Field(() => Int, { defaultValue: 10, description: `Results to return, 1 to ${MAX_SEARCH_LIMIT}.` })
  limit!: number;

  @Field(() => Float, { nullable: true, description: 'Drop results whose score is below this.' })
  minScore?: number | null;

  @Field(() => SearchMode, { defaultValue: SearchMode.HYBRID })
  mode!: SearchMode;

  @Field(() => RankingInput, {
    nullable: true,
    description:
      'How outcome, feedback, recency and use weigh on relevance (default: the weights of docs/search.md#ranking); { relevanceOnly: true } ranks by relevance alone.',
  })
  ranking?: RankingInput | null;

  @Field(() => Float, { nullable: true, description: DIVERSITY })
  diversity?: number | null;

  @Field({ defaultValue: false, description: INCLUDE_SUPERSEDED })
  includeSuperseded!: boolean;

  @Field(() => Date, { nullable: true, description: AS_OF })
  asOf?: Date | null;
}
