import { Field, Int, ObjectType } from 'type-graphql';

@ObjectType({
  simpleResolvers: true,
  description: 'The embedding provider that makes the vectors for similarity search.',
})
export class EmbeddingsInfo {
  @Field({ description: 'openai, local or hash.' })
  provider!: string;

  @Field()
  model!: string;

  @Field(() => Int)
  dimensions!: number;
}
