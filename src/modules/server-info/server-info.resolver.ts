import { Authorized, Ctx, Query, Resolver } from 'type-graphql';
import type { Context } from '../../context';
import { DatabaseKind, ServerInfo } from './server-info.type';

@Resolver()
export class ServerInfoResolver {
  @Authorized('reader')
  @Query(() => ServerInfo, { description: 'Version of the server, its database and its embedding provider.' })
  serverInfo(@Ctx() { deps }: Context): ServerInfo {
    return {
      version: deps.version,
      database: { kind: DatabaseKind[deps.database.kind], version: deps.database.version },
      embeddings: {
        provider: deps.embeddings.id,
        model: deps.embeddings.model,
        dimensions: deps.embeddings.dimensions,
      },
    };
  }
}
