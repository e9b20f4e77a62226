import { Arg, Authorized, Ctx, ID, Mutation, Resolver } from 'type-graphql';
import type { Context } from '../../context';
import { EndedMemory } from './validity.result';
import { MemoryKind } from '../shared/validity.type';

@Resolver()
export class ValidityResolver {
  @Authorized('writer')
  @Mutation(() => EndedMemory, {
    description:
      'Supersedes an experience or insight (kind) by another of the same kind: supersedeExperience or supersedeInsight.',
  })
  supersedeMemory(
    @Arg('kind', () => MemoryKind) kind: MemoryKind,
    @Arg('id', () => ID, { description: 'The memory that turned out wrong or outdated.' }) id: string,
    @Arg('by', () => ID, { description: 'The current memory that replaces it.' }) by: string,
    @Arg('reason', () => String, { nullable: true }) reason: string | null,
    @Ctx() ctx: Context,
  ): Promise<EndedMemory> {
    return ctx.services.validity.supersedeMemory(kind, id, by, reason);
  }

  @Authorized('writer')
  @Mutation(() => EndedMemory, {
    description:
      'Retires an experience or insight (kind) with nothing replacing it: retireExperience or retireInsight.',
  })
  retireMemory(
    @Arg('kind', () => MemoryKind) kind: MemoryKind,
    @Arg('id', () => ID) id: string,
    @Arg('reason', { description: 'Why it is no longer true.' }) reason: string,
    @Ctx() ctx: Context,
  ): Promise<EndedMemory> {
    return ctx.services.validity.retireMemory(kind, id, reason);
  }
}
