import { ArgsType, Field, InputType, Int } from 'type-graphql';
import { RecallPart } from './recall.type';

export const DEFAULT_RECALL_BUDGET = 2000;

@InputType({ description: 'Whose memories recall reads; every given field narrows it.' })
export class RecallScopeInput {
  @Field(() => String, {
    nullable: true,
    description: 'Only memories about this end user (experiences, insights, plans, tool figures, messages).',
  })
  userId?: string | null;

  @Field(() => String, {
    nullable: true,
    description: 'Only memories of this agent: experiences it initiated, insights scoped to it, its messages.',
  })
  agentId?: string | null;

  @Field(() => String, {
    nullable: true,
    description: "Only this session's messages (memories learned in other sessions still count).",
  })
  sessionId?: string | null;
}

@ArgsType()
export class RecallArgs {
  @Field({ description: 'The task at hand, in words.' })
  query!: string;

  @Field(() => RecallScopeInput, { nullable: true })
  scope?: RecallScopeInput | null;

  @Field(() => Int, {
    defaultValue: DEFAULT_RECALL_BUDGET,
    description: 'At most this many tokens of text (cl100k_base), 50–100000.',
  })
  budget!: number;

  @Field(() => [RecallPart], { nullable: true, description: 'The parts to include (default: all).' })
  include?: RecallPart[] | null;
}
