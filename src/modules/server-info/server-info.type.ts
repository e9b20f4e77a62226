import { Field, Int, ObjectType, registerEnumType } from 'type-graphql';

export enum DatabaseKind {
  EMBEDDED = 'EMBEDDED',
  EXTERNAL = 'EXTERNAL',
}
registerEnumType(DatabaseKind, {
  name: 'DatabaseKind',
  description: 'EMBEDDED: the in-process engine started under DATA_DIR; EXTERNAL: the MongoDB at MONGODB_URI.',
});

@ObjectType({ simpleResolvers: true, description: 'The database this server stores its records in.' })
export class DatabaseInfo {
  @Field(() => DatabaseKind)
  kind!: DatabaseKind;

  @Field({ description: 'Server version reported by buildInfo.' })
  version!: string;
}

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

@ObjectType({ simpleResolvers: true })
export class ServerInfo {
  @Field({ description: 'Hindsight version.' })
  version!: string;

  @Field(() => DatabaseInfo)
  database!: DatabaseInfo;

  @Field(() => EmbeddingsInfo)
  embeddings!: EmbeddingsInfo;
}
