import {
  Authorized,
  Arg,
  Args,
  Ctx,
  FieldResolver,
  ID,
  Float,
  Info,
  Int,
  Mutation,
  Query,
  Resolver,
  Root,
} from 'type-graphql';
import { DIVERSITY, RankingInput } from '../shared/ranking.input';
import { MAX_SEARCH_LIMIT } from './experience.input';
import { Cost } from '../../graphql/query-limits';
import type { GraphQLResolveInfo } from 'graphql';
import type { Context } from '../../context';
import type { Connection } from '../shared/connection';
import { IDEMPOTENCY_KEY } from '../shared/idempotency';
import { experienceFields, searchedExperienceFields } from './experience.selection';
import { sessionShape } from '../sessions/session.selection';
import { Session } from '../sessions/session.type';
import {
  ExperiencesArgs,
  FeedbackSignalsInput,
  RecordExperienceInput,
  SearchExperiencesArgs,
  UpdateExperienceInput,
} from './experience.input';
import {
  Experience,
  ExperienceConnection,
  ExperienceEmbeddings,
  ExperienceSearchHit,
  experienceStatus,
  recordedOf,
} from './experience.type';
import { MemoryEvent, toHistory } from '../history/memory-event.type';
import { AS_OF, INCLUDE_SUPERSEDED, MemoryStatus } from '../shared/validity.type';

@Resolver(() => Experience)
export class ExperienceResolver {
  @Authorized('reader')
  @Query(() => Experience, {
    nullable: true,
    description: 'One experience by experienceId; null when unknown, or not current unless includeSuperseded.',
  })
  experience(
    @Arg('id', () => ID) id: string,
    @Arg('includeSuperseded', { defaultValue: false, description: INCLUDE_SUPERSEDED }) includeSuperseded: boolean,
    @Ctx() ctx: Context,
  ): Promise<Experience | null> {
    return ctx.services.experiences.get(id, includeSuperseded);
  }

  @Authorized('reader')
  @Query(() => ExperienceConnection, {
    description: 'Experiences matching the filter, newest first unless orderBy says otherwise.',
  })
  experiences(
    @Args() args: ExperiencesArgs,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Connection<Experience>> {
    return ctx.services.experiences.list(args, experienceFields(info, ['edges', 'node']));
  }

  @Cost({ search: true, maxSize: MAX_SEARCH_LIMIT })
  @Authorized('reader')
  @Query(() => [ExperienceSearchHit], {
    description:
      'Experiences relevant to a natural-language query, best first, each with its score and how it was made.',
  })
  searchExperiences(
    @Args() args: SearchExperiencesArgs,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ): Promise<ExperienceSearchHit[]> {
    return ctx.services.experiences.search(args, searchedExperienceFields(info));
  }

  @Authorized('writer')
  @Mutation(() => Experience, {
    description: 'Records one experience; its embeddable fields are embedded and indexed.',
  })
  recordExperience(
    @Arg('input', () => RecordExperienceInput) input: RecordExperienceInput,
    @Arg('idempotencyKey', () => String, { nullable: true, description: IDEMPOTENCY_KEY })
    idempotencyKey: string | null,
    @Ctx() ctx: Context,
  ): Promise<Experience> {
    return ctx.services.experiences.record(input, idempotencyKey);
  }

  @Authorized('writer')
  @Mutation(() => [Experience], { description: 'Records a batch, all or nothing, embedding all its texts together.' })
  recordExperiences(
    @Arg('inputs', () => [RecordExperienceInput]) inputs: RecordExperienceInput[],
    @Arg('idempotencyKey', () => String, { nullable: true, description: IDEMPOTENCY_KEY })
    idempotencyKey: string | null,
    @Ctx() ctx: Context,
  ): Promise<Experience[]> {
    return ctx.services.experiences.recordMany(inputs, idempotencyKey);
  }

  @Authorized('writer')
  @Mutation(() => Experience, { description: 'Changes the given fields; changed embeddable fields are re-embedded.' })
  updateExperience(
    @Arg('id', () => ID) id: string,
    @Arg('input', () => UpdateExperienceInput) input: UpdateExperienceInput,
    @Ctx() ctx: Context,
  ): Promise<Experience> {
    return ctx.services.experiences.update(id, input);
  }

  @Authorized('writer')
  @Mutation(() => Experience, {
    description: 'Merges signals into the feedback of an experience (other keys are kept).',
  })
  addExperienceFeedback(
    @Arg('id', () => ID) id: string,
    @Arg('signals', () => FeedbackSignalsInput) signals: FeedbackSignalsInput,
    @Arg('idempotencyKey', () => String, { nullable: true, description: IDEMPOTENCY_KEY })
    idempotencyKey: string | null,
    @Ctx() ctx: Context,
  ): Promise<Experience> {
    return ctx.services.experiences.addFeedback(id, signals, idempotencyKey);
  }

  @Authorized('writer')
  @Mutation(() => Experience, {
    description:
      'Ends a current experience that turned out wrong or outdated, replaced by the current experience `by`: it ' +
      'leaves lists and searches (still found with includeSuperseded or asOf), and the chain is followed by ' +
      'supersededBy / supersedes.',
  })
  supersedeExperience(
    @Arg('id', () => ID) id: string,
    @Arg('by', () => ID, { description: 'The experience that replaces it.' }) by: string,
    @Arg('reason', () => String, { nullable: true }) reason: string | null,
    @Ctx() ctx: Context,
  ): Promise<Experience> {
    return ctx.services.validity.supersedeExperience(id, by, reason);
  }

  @Authorized('writer')
  @Mutation(() => Experience, {
    description: 'Ends a current experience that is no longer true, with nothing replacing it; the reason is kept.',
  })
  retireExperience(
    @Arg('id', () => ID) id: string,
    @Arg('reason') reason: string,
    @Ctx() ctx: Context,
  ): Promise<Experience> {
    return ctx.services.validity.retireExperience(id, reason);
  }

  @Authorized('admin')
  @Mutation(() => Experience, { description: 'Deletes an experience; returns it as it was.' })
  deleteExperience(@Arg('id', () => ID) id: string, @Ctx() ctx: Context): Promise<Experience> {
    return ctx.services.experiences.delete(id);
  }

  @FieldResolver(() => MemoryStatus, { description: 'Its standing now.' })
  status(@Root() experience: Experience): MemoryStatus {
    return experienceStatus(experience, new Date());
  }

  @FieldResolver(() => ExperienceEmbeddings, {
    nullable: true,
    description: 'The stored vectors (large: select only when needed).',
  })
  embeddings(@Root() experience: Experience, @Ctx() ctx: Context): Promise<ExperienceEmbeddings | null> {
    return ctx.services.experiences.embeddings(experience.experienceId);
  }

  @FieldResolver(() => Session, {
    nullable: true,
    description: 'The session of sessionId; null when there is none or it is unknown.',
  })
  // Only the root's sessionId: a root typed as Experience is copied into a new Experience by type-graphql on every call
  // (the roots are plain objects), measured at ~2% of the CPU of a page of 50 experiences with their sessions.
  session(
    @Root('sessionId') sessionId: string | null,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Session | null> {
    return sessionId
      ? ctx.loaders.sessions.sessionById.load({ sessionId, shape: sessionShape(info) })
      : Promise.resolve(null);
  }

  @Cost({ search: true, maxSize: MAX_SEARCH_LIMIT })
  @FieldResolver(() => [ExperienceSearchHit], {
    description: 'Other experiences with the closest primary goal, best first.',
  })
  similar(
    @Root() experience: Experience,
    @Arg('limit', () => Int, { defaultValue: 5 }) limit: number,
    @Arg('includeSuperseded', { defaultValue: false, description: INCLUDE_SUPERSEDED }) includeSuperseded: boolean,
    @Arg('asOf', () => Date, { nullable: true, description: AS_OF }) asOf: Date | null,
    @Arg('ranking', () => RankingInput, {
      nullable: true,
      description: 'How outcome, feedback, recency and use weigh on similarity (as in searchExperiences).',
    })
    ranking: RankingInput | null,
    @Arg('diversity', () => Float, { nullable: true, description: DIVERSITY }) diversity: number | null,
    @Ctx() ctx: Context,
  ): Promise<ExperienceSearchHit[]> {
    return ctx.services.experiences.similar(experience, limit, { includeSuperseded, asOf }, { ranking, diversity });
  }

  @FieldResolver(() => Experience, {
    nullable: true,
    description: 'The experience that replaced this one (whatever its own status); null when not superseded.',
  })
  supersededBy(@Root('supersededById') supersededById: string | null, @Ctx() ctx: Context): Promise<Experience | null> {
    return supersededById ? ctx.services.experiences.getAny(supersededById) : Promise.resolve(null);
  }

  @FieldResolver(() => [Experience], { description: 'The experiences this one replaced, the earliest ended first.' })
  supersedes(@Root('experienceId') experienceId: string, @Ctx() ctx: Context): Promise<Experience[]> {
    return ctx.services.experiences.supersedes(experienceId);
  }

  @FieldResolver(() => [MemoryEvent], {
    description:
      'What happened to it, oldest first: created, updated, feedback, deduplicated, superseded, retired, expired.',
  })
  async history(@Root() experience: Experience, @Ctx() ctx: Context): Promise<MemoryEvent[]> {
    const events = await ctx.loaders.history.experienceHistory.load(experience.experienceId);
    return toHistory(events, experience.validUntil, new Date(), recordedOf(experience));
  }
}
