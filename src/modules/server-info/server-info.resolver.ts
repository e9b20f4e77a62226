import { Authorized, Ctx, Query, Resolver } from 'type-graphql';
import { unavailableReason, type DatabaseHealthState } from '../../db/health';
import type { ChangeFollower } from '../../db/change-follower';
import type { EmbeddingProvider } from '../../embeddings/provider';
import { DatabaseKind, ServerInfo, StorageStatus, SubscriptionSource, type StorageInfo } from './server-info.type';

/** What `serverInfo` reads: a request's Context, or the degraded server's stand-in when the data dir is damaged. */
export interface ServerInfoContext {
  deps: {
    version: string;
    database: { kind: keyof typeof DatabaseKind; version: string; health: { readonly state: DatabaseHealthState } };
    embeddings: Pick<EmbeddingProvider, 'id' | 'model' | 'dimensions'>;
    /** Absent on the degraded server. */
    changes?: Pick<ChangeFollower, 'source'>;
  };
}

@Resolver()
export class ServerInfoResolver {
  @Authorized('reader')
  @Query(() => ServerInfo, {
    description: 'Version of the server, its database (and whether it can serve) and its embedding provider.',
  })
  async serverInfo(@Ctx() { deps }: ServerInfoContext): Promise<ServerInfo> {
    return {
      version: deps.version,
      database: {
        kind: DatabaseKind[deps.database.kind],
        version: deps.database.version,
        storage: storageInfo(deps.database.health.state),
      },
      embeddings: {
        provider: deps.embeddings.id,
        model: deps.embeddings.model,
        dimensions: deps.embeddings.dimensions,
      },
      subscriptions: deps.changes ? { source: SubscriptionSource[await deps.changes.source()] } : null,
    };
  }
}

/** The health GET /ready answers from, as the API reports it (the same reasons). */
function storageInfo(state: DatabaseHealthState): StorageInfo {
  const reason = unavailableReason(state);
  if (state.damaged) return { status: StorageStatus.DAMAGED, reason };
  if (!state.reachable) return { status: StorageStatus.UNREACHABLE, reason };
  if (state.writeFailing) return { status: StorageStatus.WRITES_FAILING, reason };
  return { status: StorageStatus.OK, reason };
}
