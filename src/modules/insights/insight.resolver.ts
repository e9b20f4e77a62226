import { Authorized, Arg, Args, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { MemoryEvent, toHistory } from '../history/memory-event.type';
import { MAX_INSIGHTS_LIMIT } from './insight.service';
import { Cost } from '../../graphql/query-limits';
import type { Context } from '../../context';
import { IDEMPOTENCY_KEY } from '../shared/idempotency';
import { AgentInsightsArgs, RecordInsightInput } from './insight.input';
import { AgentInsight, AgentInsightsResult, toAgentInsight } from './insight.type';

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

  @Authorized('writer')
  @Mutation(() => AgentInsight, {
    description:
      'Ends a current insight that turned out wrong or outdated, replaced by the current insight `by`: it leaves ' +
      'agentInsights (still found with includeSuperseded or asOf); supersededBy / supersedes follow the chain.',
  })
  supersedeInsight(
    @Arg('id', () => ID) id: string,
    @Arg('by', () => ID, { description: 'The insight that replaces it.' }) by: string,
    @Arg('reason', () => String, { nullable: true }) reason: string | null,
    @Ctx() ctx: Context,
  ): Promise<AgentInsight> {
    return ctx.services.validity.supersedeInsight(id, by, reason);
  }

  @Authorized('writer')
  @Mutation(() => AgentInsight, {
    description: 'Ends a current insight that is no longer true, with nothing replacing it; the reason is kept.',
  })
  retireInsight(
    @Arg('id', () => ID) id: string,
    @Arg('reason') reason: string,
    @Ctx() ctx: Context,
  ): Promise<AgentInsight> {
    return ctx.services.validity.retireInsight(id, reason);
  }

  @FieldResolver(() => AgentInsight, {
    nullable: true,
    description: 'The insight that replaced this one (whatever its own status); null when not superseded.',
  })
  async supersededBy(
    @Root('supersededById') supersededById: string | null,
    @Ctx() ctx: Context,
  ): Promise<AgentInsight | null> {
    const document = supersededById ? await ctx.loaders.nodes.insightById.load(supersededById) : null;
    return document && toAgentInsight(document);
  }

  @FieldResolver(() => [AgentInsight], { description: 'The insights this one replaced, the earliest ended first.' })
  async supersedes(@Root('id') id: string, @Ctx() ctx: Context): Promise<AgentInsight[]> {
    return (await ctx.loaders.insights.supersededBy.load(id)).map(toAgentInsight);
  }

  @FieldResolver(() => [MemoryEvent], {
    description: 'What happened to it, oldest first: created, updated, feedback, superseded, retired, expired.',
  })
  async history(@Root() insight: AgentInsight, @Ctx() ctx: Context): Promise<MemoryEvent[]> {
    return toHistory(await ctx.loaders.history.insightHistory.load(insight.id), insight.validUntil, new Date());
  }

  @Authorized('admin')
  @Mutation(() => AgentInsight, { description: 'Deletes an insight; returns it.' })
  deleteInsight(@Arg('id', () => ID) id: string, @Ctx() ctx: Context): Promise<AgentInsight> {
    return ctx.services.insights.delete(id);
  }
}
