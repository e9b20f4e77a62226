import { Args, Authorized, Ctx, FieldResolver, Info, Query, Resolver, Root } from 'type-graphql';
import type { GraphQLResolveInfo } from 'graphql';
import type { Context } from '../../context';
import { sessionShape } from '../sessions/session.selection';
import { Session } from '../sessions/session.type';
import { SearchMessagesArgs } from './message.input';
import { MessageHit } from './message.type';

@Resolver(() => MessageHit)
export class MessageSearchResolver {
  @Authorized('reader')
  @Query(() => [MessageHit], {
    description:
      'Messages whose text parts match the query (HYBRID by default: vector similarity and BM25 fused), best first; ' +
      'current on append, redaction (the redaction is searched, not the old text) and deletion. docs/search.md.',
  })
  searchMessages(@Args() args: SearchMessagesArgs, @Ctx() { services }: Context): Promise<MessageHit[]> {
    return services.messages.search(args);
  }

  @FieldResolver(() => Session, { nullable: true })
  session(
    @Root() hit: MessageHit,
    @Ctx() { loaders }: Context,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Session | null> {
    return loaders.sessions.sessionById.load({ sessionId: hit.sessionId, shape: sessionShape(info) });
  }
}
