import { Authorized, Ctx, Query, Resolver } from 'type-graphql';
import { unavailableReason, type DatabaseHealthState } from '../../db/health';
import type { Db } from 'mongodb';
import type { ChangeFollower } from '../../db/change-follower';
import type { FollowMode, SearchIndexes } from '../../search/search-index';
import type { EmbeddingProvider } from '../../embeddings/provider';
import type { Config } from '../../config';
import { AGENT_INSIGHTS_COLLECTION } from '../insights/insight.document';
import { EXPERIENCES_COLLECTION } from '../experiences/experience.document';
import { SESSIONS_COLLECTION } from '../sessions/session.document';
import { TASKS_COLLECTION } from '../tasks/task.document';
import {
  CollectionRetention,
  RetentionCollection,
  DatabaseKind,
  SearchBackend,
  SearchFollowing,
  ServerInfo,
  StorageStatus,
  SubscriptionSource,
  type SearchSpaceInfo,
  type StorageInfo,
} from './server-info.type';

/** What `serverInfo` reads: a request's Context, or the degraded server's stand-in when the data dir is damaged. */
export interface ServerInfoContext {
  deps: {
    version: string;
    database: { kind: keyof typeof DatabaseKind; version: string; health: { readonly state: DatabaseHealthState } };
    embeddings: Pick<EmbeddingProvider, 'id' | 'model' | 'dimensions'>;
    /** Absent on the degraded server. */
    changes?: Pick<ChangeFollower, 'source'>;
    /** Absent on the degraded server. */
    search?: Pick<SearchIndexes, 'spaces' | 'forDb' | 'options'>;
    /** Absent on the degraded server. */
    config?: Pick<Config, RetentionKey>;
  };
  /** The caller's database (absent on the degraded server). */
  db?: Db;
}

@Resolver()
export class ServerInfoResolver {
  @Authorized('reader')
  @Query(() => ServerInfo, {
    description: 'Version of the server, its database (and whether it can serve) and its embedding provider.',
  })
  async serverInfo(@Ctx() { deps, db }: ServerInfoContext): Promise<ServerInfo> {
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
      search: deps.search && db ? searchInfo(deps.search, db) : null,
      retention: deps.config ? retentionInfo(deps.config) : null,
    };
  }
}

type RetentionKey = 'retentionMessages' | 'retentionExperiences' | 'retentionTasks' | 'retentionInsights';

/** Each retention, with where it is stored and what it counts from (the TTL indexes of the `*.document.ts` files). */
const RETENTIONS: readonly (Omit<CollectionRetention, 'retention' | 'seconds'> & { key: RetentionKey })[] = [
  {
    collection: RetentionCollection.MESSAGES,
    key: 'retentionMessages',
    variable: 'RETENTION_MESSAGES',
    storedIn: SESSIONS_COLLECTION,
    countsFrom: 'updated_at',
  },
  {
    collection: RetentionCollection.EXPERIENCES,
    key: 'retentionExperiences',
    variable: 'RETENTION_EXPERIENCES',
    storedIn: EXPERIENCES_COLLECTION,
    countsFrom: 'timestamp',
  },
  {
    collection: RetentionCollection.TASKS,
    key: 'retentionTasks',
    variable: 'RETENTION_TASKS',
    storedIn: TASKS_COLLECTION,
    countsFrom: 'createdAt',
  },
  {
    collection: RetentionCollection.INSIGHTS,
    key: 'retentionInsights',
    variable: 'RETENTION_INSIGHTS',
    storedIn: AGENT_INSIGHTS_COLLECTION,
    countsFrom: 'lastValidated',
  },
];

function retentionInfo(config: Pick<Config, RetentionKey>): CollectionRetention[] {
  return RETENTIONS.map(({ key, ...retention }) => ({
    ...retention,
    retention: config[key]?.text ?? null,
    seconds: config[key]?.seconds ?? null,
  }));
}

const FOLLOWING: Record<FollowMode, SearchFollowing> = {
  changeStream: SearchFollowing.CHANGE_STREAM,
  polling: SearchFollowing.POLLING,
  off: SearchFollowing.OFF,
};

/** Each space of the database: its size here, its backend and how it follows other processes' writes. */
function searchInfo(search: Pick<SearchIndexes, 'spaces' | 'forDb' | 'options'>, db: Db): SearchSpaceInfo[] {
  const index = search.forDb(db);
  const backend = search.options.mode === 'atlas' ? SearchBackend.ATLAS : SearchBackend.IN_PROCESS;
  return search.spaces.map(({ name }) => {
    const { vectors, documents } = index.stats(name);
    const { mode, position, lagSeconds } = index.followStatus(name);
    return { name, size: Math.max(vectors, documents), backend, following: FOLLOWING[mode], position, lagSeconds };
  });
}

/** The health GET /ready answers from, as the API reports it (the same reasons). */
function storageInfo(state: DatabaseHealthState): StorageInfo {
  const reason = unavailableReason(state);
  if (state.damaged) return { status: StorageStatus.DAMAGED, reason };
  if (!state.reachable) return { status: StorageStatus.UNREACHABLE, reason };
  if (state.writeFailing) return { status: StorageStatus.WRITES_FAILING, reason };
  return { status: StorageStatus.OK, reason };
}
