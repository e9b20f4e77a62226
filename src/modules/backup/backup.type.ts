import { Field, ObjectType } from 'type-graphql';

@ObjectType({ simpleResolvers: true, description: 'A backup of the embedded engine: a data directory to start on.' })
export class DataDirBackup {
  @Field({ description: 'The directory written, as given.' })
  directory!: string;

  @Field(() => [String], { description: 'The files in it (snapshot, journal, engine-id).' })
  files!: string[];
}
