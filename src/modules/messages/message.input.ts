import { ArgsType, Field, InputType, Int } from 'type-graphql';
import { SearchMode } from '../experiences/experience.input';

export const MAX_MESSAGE_SEARCH_LIMIT = 100;
export const DEFAULT_MESSAGE_SEARCH_LIMIT = 10;
/** Neighbouring messages a hit may carry on each side. */
export const MAX_MESSAGE_CONTEXT = 20;

@InputType({
  description: 'Which messages `searchMessages` looks at; every given field must match (applied before the limit).',
})
export class MessageSearchFilter {
  @Field(() => String, { nullable: true })
  sessionId?: string | null;

  @Field(() => String, { nullable: true })
  agentId?: string | null;

  @Field(() => String, { nullable: true, description: "The session's userId." })
  userId?: string | null;

  @Field(() => String, { nullable: true, description: 'user, assistant or system (any case).' })
  role?: string | null;

  @Field(() => Date, { nullable: true, description: 'Messages created at or after this time.' })
  since?: Date | null;

  @Field(() => Date, { nullable: true, description: 'Messages created before this time.' })
  until?: Date | null;
}

@ArgsType()
export class SearchMessagesArgs {
  @Field({ description: 'What to look for in the text parts of the messages.' })
  query!: string;

  @Field(() => MessageSearchFilter, { nullable: true })
  filter?: MessageSearchFilter | null;

  @Field(() => SearchMode, { nullable: true, description: 'Default HYBRID.' })
  mode?: SearchMode | null;

  @Field(() => Int, {
    nullable: true,
    description: `Hits to return, 1 to ${MAX_MESSAGE_SEARCH_LIMIT} (default ${DEFAULT_MESSAGE_SEARCH_LIMIT}).`,
  })
  limit?: number | null;

  @Field(() => Int, {
    nullable: true,
    description: `Neighbouring messages of the same agent to return before and after each hit, 0 to ${MAX_MESSAGE_CONTEXT} (default 0).`,
  })
  context?: number | null;
}
