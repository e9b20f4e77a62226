import { Field, ID, ObjectType, registerEnumType } from 'type-graphql';

export enum ApiKeyRole {
  reader = 'reader',
  writer = 'writer',
  admin = 'admin',
}
registerEnumType(ApiKeyRole, {
  name: 'ApiKeyRole',
  description: 'reader: queries; writer: + recording and updating; admin: + deletes, re-embedding, key management.',
});

@ObjectType({ description: 'A stored API key, without the key itself (only its SHA-256 hash is stored).' })
export class ApiKey {
  @Field(() => ID, { description: "Public id: the key's first characters." })
  id!: string;

  @Field(() => ApiKeyRole)
  role!: ApiKeyRole;

  @Field({ description: 'The tenant whose database the key works on.' })
  tenant!: string;

  @Field()
  createdAt!: Date;

  @Field(() => Date, { nullable: true })
  revokedAt!: Date | null;
}

@ObjectType({ description: 'A new key: `key` is shown this once and cannot be retrieved later.' })
export class CreatedApiKey {
  @Field()
  key!: string;

  @Field(() => ApiKey)
  apiKey!: ApiKey;
}
