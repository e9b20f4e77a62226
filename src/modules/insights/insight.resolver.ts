import { Authorized, Arg, Args, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import { MAX_INSIGHTS_LIMIT } from './insight.service';
import { Cost } from '../../graphql/query-limits';
import type { Context } from '../../context';
import { IDEMPOTENCY_KEY } from '../shared/idempotency';
import { AgentInsightsArgs, RecordInsightInput } from './insight.input';
import { AgentInsight, AgentInsightsResult } from './insight.type';

@Resolver(() => AgentInsight)
export class InsightResolver {
  @Cost({ maxSize: MAX_INSIGHTS_LIMIT })
  @Authorized('reader')
  @Query(() => AgentInsightsResult, {
    description: "An agent's insights, most confident first (seed 002 get_agent_insights).",
  })
  agentInsights(@Args() args: AgentInsightsArgs, @Ctx() ctx: Context): Promise<AgentInsightsResult> {
    return ctx.services.insights.list(args);
  }

  @Authorized('writer')
  @Mutation(() => AgentInsight, {
    description: 'Records an insight; the same text again adds its new evidence and raises its confidence.',
  })
  recordInsight(
    @Arg('input', () => RecordInsightInput) input: RecordInsightInput,
    @Ctx() ctx: Context,
  ): Promise<AgentInsight> {
    return ctx.services.insights.record(input);
  }

  @Authorized('writer')
  @Mutation(() => AgentInsight, {
    description: 'Judges an insight: valid raises its confidence, not valid halves it; sets lastValidated.',
  })
  validateInsight(
    @Arg('id', () => ID) id: string,
    @Arg('valid') valid: boolean,
    @Arg('idempotencyKey', () => String, { nullable: true, description: IDEMPOTENCY_KEY })
    idempotencyKey: string | null,
    @Ctx() ctx: Context,
  ): Promise<AgentInsight> {
    return ctx.services.insights.validate(id, valid, idempotencyKey);
  }

  @Authorized('admin')
  @Mutation(() => AgentInsight, { description: 'Deletes an insight; returns it.' })
  deleteInsight(@Arg('id', () => ID) id: string, @Ctx() ctx: Context): Promise<AgentInsight> {
    return ctx.services.insights.delete(id);
  }
}
