import { Field, Float, Int, ObjectType, registerEnumType } from 'type-graphql';
import { EmbeddingsInfo } from '../shared/embeddings-info.type';

export enum DatabaseKind {
  EMBEDDED = 'EMBEDDED',
  EXTERNAL = 'EXTERNAL',
}
registerEnumType(DatabaseKind, {
  name: 'DatabaseKind',
  description: 'EMBEDDED: the in-process engine started under DATA_DIR; EXTERNAL: the MongoDB at MONGODB_URI.',
});

export enum StorageStatus {
  OK = 'OK',
  UNREACHABLE = 'UNREACHABLE',
  WRITES_FAILING = 'WRITES_FAILING',
  DAMAGED = 'DAMAGED',
}
registerEnumType(StorageStatus, {
  name: 'StorageStatus',
  description:
    'OK: reads and writes are served; UNREACHABLE: the database does not answer; WRITES_FAILING: the last write ' +
    'could not be stored (a full disk) and none has succeeded since; DAMAGED: the embedded data directory failed its ' +
    'checks at start, so no data is served until it is repaired.',
});

@ObjectType({ simpleResolvers: true, description: 'Whether the database can serve, as GET /ready reports it.' })
export class StorageInfo {
  @Field(() => StorageStatus)
  status!: StorageStatus;

  @Field(() => String, { nullable: true, description: 'Why it is not OK, and for DAMAGED what to do.' })
  reason!: string | null;
}

@ObjectType({ simpleResolvers: true, description: 'The database this server stores its records in.' })
export class DatabaseInfo {
  @Field(() => DatabaseKind)
  kind!: DatabaseKind;

  @Field({ description: 'Server version reported by buildInfo; empty when the server could not open it.' })
  version!: string;

  @Field(() => StorageInfo)
  storage!: StorageInfo;
}

export enum SubscriptionSource {
  CHANGE_STREAM = 'CHANGE_STREAM',
  LOCAL_WRITES = 'LOCAL_WRITES',
}
registerEnumType(SubscriptionSource, {
  name: 'SubscriptionSource',
  description:
    "CHANGE_STREAM: subscriptions see every write to the database, by any process or tool; LOCAL_WRITES: the database has no change streams (a standalone mongod), so they see only this server's own writes.",
});

@ObjectType({ simpleResolvers: true, description: 'Where subscription events come from.' })
export class SubscriptionsInfo {
  @Field(() => SubscriptionSource)
  source!: SubscriptionSource;
}

export enum SearchBackend {
  IN_PROCESS = 'IN_PROCESS',
  ATLAS = 'ATLAS',
}
registerEnumType(SearchBackend, {
  name: 'SearchBackend',
  description: 'IN_PROCESS: vectors are searched in this process (VECTOR_SEARCH=memory); ATLAS: by $vectorSearch.',
});

export enum SearchFollowing {
  CHANGE_STREAM = 'CHANGE_STREAM',
  POLLING = 'POLLING',
  OFF = 'OFF',
}
registerEnumType(SearchFollowing, {
  name: 'SearchFollowing',
  description:
    "How a space sees other processes' writes while the server runs (with ATLAS, into its keyword index). " +
    "CHANGE_STREAM: it follows its collection's change stream; POLLING: the database has no change streams (a " +
    'standalone mongod), so the collection is compared every SEARCH_POLL_MS; OFF: it does not (SEARCH_FOLLOW=false, ' +
    'or not loaded yet).',
});

@ObjectType({ simpleResolvers: true, description: 'One search space (a vector field and its texts) of the database.' })
export class SearchSpaceInfo {
  @Field({ description: 'e.g. experiences.primary_goal_description.' })
  name!: string;

  @Field(() => Int, { description: 'Documents the space holds in this process (0 until loaded).' })
  size!: number;

  @Field(() => SearchBackend)
  backend!: SearchBackend;

  @Field(() => SearchFollowing)
  following!: SearchFollowing;

  @Field(() => Date, {
    nullable: true,
    description: 'The space reflects every write made before this time (null: not followed, or not caught up yet).',
  })
  position!: Date | null;

  @Field(() => Float, {
    description:
      'Seconds behind the stream: the age of the oldest write received and not yet applied (0: none); when polling, the time since the last comparison began.',
  })
  lagSeconds!: number;
}

export enum RetentionCollection {
  MESSAGES = 'MESSAGES',
  EXPERIENCES = 'EXPERIENCES',
  TASKS = 'TASKS',
  INSIGHTS = 'INSIGHTS',
}
registerEnumType(RetentionCollection, {
  name: 'RetentionCollection',
  description:
    'What a retention applies to. MESSAGES: whole sessions (messages live in their session), by their last activity.',
});

@ObjectType({
  simpleResolvers: true,
  description:
    "How long one kind of record is kept (its RETENTION_* variable), enforced by a TTL index: the database deletes a record within about a minute after it passes. A record's own expiresAt applies as well.",
})
export class CollectionRetention {
  @Field(() => RetentionCollection)
  collection!: RetentionCollection;

  @Field(() => String, { nullable: true, description: 'As configured, e.g. 90d; null: kept for ever.' })
  retention!: string | null;

  @Field(() => Int, { nullable: true, description: 'The retention in seconds; null: kept for ever.' })
  seconds!: number | null;

  @Field({ description: 'The environment variable that sets it, e.g. RETENTION_MESSAGES.' })
  variable!: string;

  @Field({ description: 'The stored collection, e.g. sessions.' })
  storedIn!: string;

  @Field({
    description:
      'The stored time the retention counts from, e.g. updated_at (insights: lastValidated, createdAt when never validated).',
  })
  countsFrom!: string;
}

@ObjectType({ simpleResolvers: true })
export class ServerInfo {
  @Field({ description: 'Hindsight version.' })
  version!: string;

  @Field(() => DatabaseInfo)
  database!: DatabaseInfo;

  @Field(() => EmbeddingsInfo)
  embeddings!: EmbeddingsInfo;

  @Field(() => SubscriptionsInfo, { nullable: true, description: 'Null while the data directory is damaged.' })
  subscriptions!: SubscriptionsInfo | null;

  @Field(() => [SearchSpaceInfo], {
    nullable: true,
    description: "The search spaces of the caller's database. Null while the data directory is damaged.",
  })
  search!: SearchSpaceInfo[] | null;

  @Field(() => [CollectionRetention], {
    nullable: true,
    description: 'How long each kind of record is kept (docs/lifecycle.md). Null while the data directory is damaged.',
  })
  retention!: CollectionRetention[] | null;
}
