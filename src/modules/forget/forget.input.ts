import { Field, ID, InputType } from 'type-graphql';

@InputType({
  description:
    'Whose memories `forget` erases: set exactly one of userId (the end user a memory is about), sessionId or agentId.',
})
export class ForgetScope {
  @Field(() => ID, {
    nullable: true,
    description: "An end user's memories: their sessions, experiences, tasks and insights.",
  })
  userId?: string | null;

  @Field(() => ID, {
    nullable: true,
    description: 'One session (its agents and messages) and the experiences recorded in it.',
  })
  sessionId?: string | null;

  @Field(() => ID, {
    nullable: true,
    description:
      'One agent: its part of every session (with its messages), the experiences it initiated, its insights.',
  })
  agentId?: string | null;
}
