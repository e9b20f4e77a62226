import { Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { EmbeddingsInfo } from '../shared/embeddings-info.type';

/**
 * The collections `reembed` serves. A feature that stores vectors adds its value here and declares a `ReembedTarget`
 * with that name (the app lists the targets).
 */
export enum ReembedCollection {
  EXPERIENCES = 'EXPERIENCES',
  TASKS = 'TASKS',
  PLAN_PATTERNS = 'PLAN_PATTERNS',
}
registerEnumType(ReembedCollection, {
  name: 'ReembedCollection',
  description: 'A collection whose stored vectors `reembed` can rewrite with the current embedder.',
});

export enum ReembedState {
  RUNNING = 'running',
  DONE = 'done',
  FAILED = 'failed',
  INTERRUPTED = 'interrupted',
}
registerEnumType(ReembedState, {
  name: 'ReembedState',
  description: 'INTERRUPTED: the server running the job stopped before the end; `reembed` resumes it.',
});

@ObjectType({
  simpleResolvers: true,
  description: "A background run rewriting a collection's vectors with the current embedder.",
})
export class ReembedJob {
  @Field(() => ID, { description: 'Id of this run.' })
  id!: string;

  @Field(() => ReembedCollection)
  collection!: ReembedCollection;

  @Field(() => ReembedState)
  state!: ReembedState;

  @Field(() => Int, { description: 'Documents re-embedded so far (including earlier runs of a resumed job).' })
  processed!: number;

  @Field(() => Int, { description: 'Documents to re-embed in all.' })
  total!: number;

  @Field()
  startedAt!: Date;

  @Field(() => Date, { nullable: true })
  finishedAt!: Date | null;

  @Field(() => String, { nullable: true, description: 'Why the run failed.' })
  error!: string | null;

  @Field(() => EmbeddingsInfo, { description: 'The embedder the vectors are rewritten with.' })
  model!: EmbeddingsInfo;
}
