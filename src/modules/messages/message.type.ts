import { Field, Float, ObjectType } from 'type-graphql';
import { Message, Session } from '../sessions/session.type';

@ObjectType({ description: 'A message found by `searchMessages`, with how it scored and, on request, its neighbours.' })
export class MessageHit {
  @Field(() => Message)
  message!: Message;

  @Field(() => String)
  sessionId!: string;

  @Field(() => String)
  agentId!: string;

  @Field(() => Session, { nullable: true, description: 'The session holding the message.' })
  session?: Session | null;

  @Field(() => Float, { description: 'The fused score in [0, 1] (HYBRID: the mean of the vector and keyword parts).' })
  score!: number;

  @Field(() => Float, {
    nullable: true,
    description: 'Cosine similarity of the text with the query (null: not scored).',
  })
  vectorScore!: number | null;

  @Field(() => Float, {
    nullable: true,
    description: 'Normalised BM25 of the text for the query (null: no query word).',
  })
  keywordScore!: number | null;

  @Field(() => [Message], { description: 'Up to `context` messages of the same agent before the hit, oldest first.' })
  before!: Message[];

  @Field(() => [Message], { description: 'Up to `context` messages of the same agent after the hit, oldest first.' })
  after!: Message[];
}
