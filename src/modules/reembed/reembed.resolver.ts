import { Authorized, Arg, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { Context } from '../../context';
import { ReembedCollection, ReembedJob } from './reembed.type';

@Resolver()
export class ReembedResolver {
  @Authorized('admin')
  @Mutation(() => ReembedJob, {
    description:
      "Admin: rewrites the collection's vectors with the current embedder, in the background (poll reembedStatus). " +
      'Returns the running job when one is already running; resumes a failed or interrupted one.',
  })
  reembed(
    @Arg('collection', () => ReembedCollection) collection: ReembedCollection,
    @Ctx() ctx: Context,
  ): Promise<ReembedJob> {
    return ctx.services.reembed.start(collection);
  }

  @Authorized('reader')
  @Query(() => ReembedJob, {
    nullable: true,
    description: 'Progress of the latest re-embedding of the collection; null when never run.',
  })
  reembedStatus(
    @Arg('collection', () => ReembedCollection) collection: ReembedCollection,
    @Ctx() ctx: Context,
  ): Promise<ReembedJob | null> {
    return ctx.services.reembed.status(collection);
  }
}
