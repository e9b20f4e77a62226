import { Field, Int, ObjectType, registerEnumType } from 'type-graphql';

export enum ForgetScopeKind {
  USER = 'userId',
  SESSION = 'sessionId',
  AGENT = 'agentId',
}
registerEnumType(ForgetScopeKind, { name: 'ForgetScopeKind', description: 'Which field of ForgetScope was set.' });

@ObjectType({
  simpleResolvers: true,
  description: 'What `forget` erased (or, in a dry run, would erase) in one collection.',
})
export class ForgetCount {
  @Field()
  collection!: string;

  @Field(() => Int, { description: 'Documents deleted.' })
  deleted!: number;

  @Field(() => Int, {
    description: 'Documents kept with the scope taken out (a session losing an agent, an insight losing evidence).',
  })
  changed!: number;

  @Field(() => Int, { description: 'Messages removed with their sessions or agents (sessions only; else 0).' })
  messagesRemoved!: number;
}

@ObjectType({ simpleResolvers: true, description: 'The report of `forget`: what was erased, where.' })
export class ForgetReport {
  @Field(() => ForgetScopeKind)
  scope!: ForgetScopeKind;

  @Field({ description: 'True: nothing was changed; the counts say what forget would erase.' })
  dryRun!: boolean;

  @Field(() => [ForgetCount], { description: 'One entry per collection forget looks at, in a fixed order.' })
  counts!: ForgetCount[];

  @Field(() => Int, { description: 'Entries removed from the search spaces (one per document and space).' })
  searchEntriesRemoved!: number;

  @Field({
    description:
      "True once no file under DATA_DIR holds the erased data (the embedded engine's journal, snapshots and spill " +
      'file, and the search index snapshots, rewritten). False on an external MongoDB (see docs/lifecycle.md) and in ' +
      'a dry run.',
  })
  erasedFromDisk!: boolean;
}
