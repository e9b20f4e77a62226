import { Args, Authorized, Ctx, Query, Resolver } from 'type-graphql';
import type { Context } from '../../context';
import { RecallArgs } from './recall.input';
import { RecallResult } from './recall.type';

@Resolver()
export class RecallResolver {
  @Authorized('reader')
  @Query(() => RecallResult, {
    description:
      'What an agent should know before a task, in one call and within a token budget: relevant current experiences (outcome and lessons), insights, plans that worked, tools that fail on tasks like this one, and past messages. Answers prompt-ready Markdown and the items chosen, with why. See docs/recall.md.',
  })
  recall(@Args() args: RecallArgs, @Ctx() ctx: Context): Promise<RecallResult> {
    return ctx.services.recall.recall(args);
  }
}
