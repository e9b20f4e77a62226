import { Arg, Authorized, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { Context } from '../../context';
import { ApiKey, ApiKeyRole, CreatedApiKey } from './api-key.type';

@Resolver()
export class ApiKeyResolver {
  @Authorized('admin')
  @Query(() => [ApiKey], { description: 'Admin: the API keys this admin manages, newest first (never the keys).' })
  apiKeys(@Ctx() ctx: Context): Promise<ApiKey[]> {
    return ctx.services.apiKeys.list();
  }

  @Authorized('admin')
  @Mutation(() => CreatedApiKey, { description: 'Admin: creates an API key; the key is in this answer only.' })
  createApiKey(
    @Arg('role', () => ApiKeyRole) role: ApiKeyRole,
    @Arg('tenant', { defaultValue: 'default' }) tenant: string,
    @Ctx() ctx: Context,
  ): Promise<CreatedApiKey> {
    return ctx.services.apiKeys.create(role, tenant);
  }

  @Authorized('admin')
  @Mutation(() => ApiKey, { description: 'Admin: revokes an API key at once; NOT_FOUND when unknown.' })
  revokeApiKey(@Arg('id', () => ID) id: string, @Ctx() ctx: Context): Promise<ApiKey> {
    return ctx.services.apiKeys.revoke(id);
  }
}
