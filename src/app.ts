import path from 'node:path';
import type { MongoClient, Db } from 'mongodb';
import type { Config } from './config';
import type { Logger } from './logger';
import type { DatabaseKind } from './db/connection';
import { ChangeFollower } from './db/change-follower';
import { DatabaseHealth } from './db/health';
import { reportingWrites } from './db/local-writes';
import { createIndexes, type CollectionIndexes } from './db/indexes';
import type { EmbeddingProvider } from './embeddings/provider';
import type { EmbeddingService } from './embeddings/embedding.service';
import { createEmbeddingService } from './embeddings';
import { SearchIndexes } from './search/search-index';
import type { SpaceDefinition } from './search/space';
import { EXPERIENCE_INDEXES } from './modules/experiences/experience.document';
import { EXPERIENCE_SPACES, EXPERIENCES_REEMBED_TARGET } from './modules/experiences/experience.spaces';
import { INSIGHT_INDEXES } from './modules/insights/insight.document';
import { MEMORY_EVENT_INDEXES } from './modules/history/memory-event.document';
import { PLAN_INDEXES } from './modules/plans/plan.document';
import { PLAN_PATTERNS_REEMBED_TARGET, PLAN_SPACES } from './modules/plans/plan.spaces';
import { MESSAGE_INDEX_INDEXES } from './modules/messages/message.document';
import { MessageIndexes } from './modules/messages/message.indexer';
import { MESSAGE_SPACES } from './modules/messages/message.spaces';
import { SESSION_INDEXES } from './modules/sessions/session.document';
import { IDEMPOTENCY_INDEXES } from './modules/shared/idempotency.document';
import type { ReembedTarget } from './modules/shared/reembed-target';
import { TASK_INDEXES } from './modules/tasks/task.document';
import { TASK_SPACES, TASKS_REEMBED_TARGET } from './modules/tasks/task.spaces';
import { TOOL_INDEXES } from './modules/tools/tool.document';
import { KeyStore } from './auth/keys';
import { tenantDatabaseName } from './auth/tenants';
import { setMaxJsonKeys } from './modules/shared/json-input';
import packageJson from '../package.json';

/**
 * What each feature registers with the app: the indexes of the collections it stores (its `<feature>.document.ts`),
 * its search spaces and its re-embedding target (its `<feature>.spaces.ts`). A new feature adds its entry here.
 */
interface FeatureRegistration {
  indexes?: CollectionIndexes;
  spaces?: readonly SpaceDefinition[];
  reembedTarget?: ReembedTarget;
}

const FEATURES: readonly FeatureRegistration[] = [
  { indexes: SESSION_INDEXES },
  { indexes: MESSAGE_INDEX_INDEXES, spaces: MESSAGE_SPACES },
  { indexes: EXPERIENCE_INDEXES, spaces: Object.values(EXPERIENCE_SPACES), reembedTarget: EXPERIENCES_REEMBED_TARGET },
  { indexes: TASK_INDEXES, spaces: TASK_SPACES, reembedTarget: TASKS_REEMBED_TARGET },
  { indexes: PLAN_INDEXES, spaces: PLAN_SPACES, reembedTarget: PLAN_PATTERNS_REEMBED_TARGET },
  { indexes: TOOL_INDEXES },
  { indexes: INSIGHT_INDEXES },
  { indexes: IDEMPOTENCY_INDEXES },
  { indexes: MEMORY_EVENT_INDEXES },
];

/** Every collection's indexes, created by `prepareDatabase`. */
export const COLLECTION_INDEXES: readonly CollectionIndexes[] = FEATURES.flatMap((feature) =>
  feature.indexes ? [feature.indexes] : [],
);

/** Every search space of the API (one per indexed vector field); defined once when the app's deps are built. */
export const SEARCH_SPACES: readonly SpaceDefinition[] = FEATURES.flatMap((feature) => feature.spaces ?? []);

/** The collections `reembed` rewrites, one per `ReembedCollection` value (by `name`); handed to the reembed service. */
export const REEMBED_TARGETS: readonly ReembedTarget[] = FEATURES.flatMap((feature) =>
  feature.reembedTarget ? [feature.reembedTarget] : [],
);

/** Long-lived dependencies shared by every request (the connection, providers, indexes); built once at startup. */
export interface AppDeps {
  config: Config;
  logger: Logger;
  version: string;
  database: {
    kind: DatabaseKind;
    version: string;
    client: MongoClient;
    /** The default database; a request may work on another one (tenants map to databases). */
    db: Db;
    /** Reachability and write health of the database, as GET /ready answers them. */
    health: DatabaseHealth;
    /** A new client of the same server: change streams get their own (see ChangeFollower); absent, they use `client`. */
    newClient?: () => MongoClient;
  };
  embeddings: EmbeddingProvider;
  /** Embeds text through the content-hash cache; what features call (its `signature` goes into `embedding_model`). */
  embedder: EmbeddingService;
  /** Vector (HNSW or Atlas) and keyword (BM25) search: spaces defined once, `search.forDb(ctx.db)` per database. */
  search: SearchIndexes;
  /** The collections' change streams, shared by every subscription (one stream per followed collection). */
  changes: ChangeFollower;
  /** The message index of each database (`messageIndex.forDb(db)`): keeps `message_index` equal to the sessions' messages. */
  messageIndex: MessageIndexes;
  /** API keys (API_KEYS and the default database's api_keys collection). */
  keys: KeyStore;
  /** A tenant's database, prepared (`prepareDatabase`) on its first request; the default tenant's is `database.db`. */
  tenantDb(tenant: string): Db | Promise<Db>;
}

export const VERSION: string = packageJson.version;

/** Builds the long-lived deps around a connected database and an embedding provider (main and tests alike). */
export function createAppDeps(
  options: Pick<AppDeps, 'config' | 'logger' | 'embeddings'> & { database: Omit<AppDeps['database'], 'health'> },
): AppDeps {
  const { config, logger, embeddings } = options;
  setMaxJsonKeys(config.maxMetadataKeys);
  const changes = new ChangeFollower(options.database.db, logger, options.database.newClient);
  const database = {
    ...options.database,
    // Every handle the app works on reports its writes, so subscribers get them where there are no change streams.
    db: reportingWrites(options.database.db, changes),
    health: new DatabaseHealth(options.database.client, options.database.db, config.dbTimeoutMs),
  };
  const search = new SearchIndexes({
    mode: config.vectorSearch,
    dimensions: embeddings.dimensions,
    logger,
    persistDir: path.join(config.dataDir, 'search'),
    model: `${embeddings.id}/${embeddings.model}/${embeddings.dimensions}`,
    // Spaces follow the collections' change streams (or poll without them): every process sees every write while it
    // runs, unless SEARCH_FOLLOW=false.
    changes: config.searchFollow ? changes : undefined,
    pollMs: config.searchPollMs,
  });
  search.defineSpace(...SEARCH_SPACES);
  const embedder = createEmbeddingService(embeddings, database.db, config);
  // One preparation per tenant, shared by its concurrent first requests; a failed one is retried by the next request.
  const tenants = new Map<string, Promise<Db>>();
  const deps: AppDeps = {
    ...options,
    database,
    version: VERSION,
    embedder,
    search,
    changes,
    messageIndex: new MessageIndexes({
      enabled: config.messageIndex,
      embedder,
      search,
      logger,
      changes: config.searchFollow ? changes : undefined,
      pollMs: config.searchPollMs,
    }),
    keys: new KeyStore(database.db, config.apiKeys),
    tenantDb(tenant) {
      const name = tenantDatabaseName(database.db.databaseName, tenant);
      if (name === database.db.databaseName) return database.db;
      let prepared = tenants.get(tenant);
      if (!prepared) {
        const db = reportingWrites(database.client.db(name), changes);
        prepared = prepareDatabase(deps, db).then(() => db);
        prepared.catch(() => tenants.delete(tenant));
        tenants.set(tenant, prepared);
      }
      return prepared;
    },
  };
  return deps;
}

/** Makes a database ready to serve: its indexes exist and its in-process search spaces are loaded. */
export async function prepareDatabase(deps: AppDeps, db: Db): Promise<void> {
  await createIndexes(db, deps.config, COLLECTION_INDEXES);
  // The message index follows the sessions and catches up with them before the spaces load: what it writes then is
  // loaded with the rest (in batches, on the graph's threads), not added to a loaded graph one vector at a time.
  if (deps.config.messageIndex) await deps.messageIndex.forDb(db).start();
  await deps.search.forDb(db).buildAll();
}
