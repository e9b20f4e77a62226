import { Authorized, Arg, Args, Ctx, ID, Query, Resolver } from 'type-graphql';
import { MAX_PLANS_LIMIT } from './plan.service';
import { Cost } from '../../graphql/query-limits';
import type { Context } from '../../context';
import type { Connection } from '../shared/connection';
import { PlanPatternsArgs, SuccessfulPlansArgs } from './plan.input';
import { PlanPattern, PlanPatternConnection, SuccessfulPlansResult } from './plan.type';

@Resolver(() => PlanPattern)
export class PlanResolver {
  @Authorized('reader')
  @Query(() => PlanPattern, { nullable: true, description: 'One plan pattern by patternId; null when unknown.' })
  planPattern(@Arg('id', () => ID) id: string, @Ctx() ctx: Context): Promise<PlanPattern | null> {
    return ctx.services.plans.get(id);
  }

  @Authorized('reader')
  @Query(() => PlanPatternConnection, { description: 'Plan patterns matching the filter, most recently used first.' })
  planPatterns(@Args() args: PlanPatternsArgs, @Ctx() ctx: Context): Promise<Connection<PlanPattern>> {
    return ctx.services.plans.list(args);
  }

  @Cost({ search: true, maxSize: MAX_PLANS_LIMIT })
  @Authorized('reader')
  @Query(() => SuccessfulPlansResult, {
    description:
      'Plans that worked for goals like this one (seed 002 get_successful_plans), ranked by match, usage and recency.',
  })
  successfulPlans(@Args() args: SuccessfulPlansArgs, @Ctx() ctx: Context): Promise<SuccessfulPlansResult> {
    return ctx.services.plans.successful(args);
  }
}
