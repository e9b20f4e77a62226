import type { Db, IndexDescription } from 'mongodb';
import type { Config } from '../config';

/**
 * What index definitions may depend on: the configuration (which session metadata fields are indexed, how long each
 * collection keeps its records). The retentions are optional: absent, nothing expires.
 */
export type IndexConfig = Pick<Config, 'metadataIndexFields'> &
  Partial<Pick<Config, 'retentionMessages' | 'retentionExperiences' | 'retentionTasks' | 'retentionInsights'>>;

/** The indexes of one collection, declared by the feature that stores it (in its `<feature>.document.ts`). */
export interface CollectionIndexes {
  collection: string;
  /** The indexes; a function of the configuration when they depend on it. */
  indexes: readonly IndexDescription[] | ((config: IndexConfig) => IndexDescription[]);
  /**
   * Names of indexes that only some configurations declare (a retention's TTL index): one the configuration no longer
   * declares is dropped at startup.
   */
  conditional?: readonly string[];
}

/** mongod's code for a collection that does not exist (listIndexes before the first write). */
const NAMESPACE_NOT_FOUND = 26;

/**
 * Creates every given collection's indexes (idempotent: existing ones with the same key and options are kept). A TTL
 * index whose expireAfterSeconds the configuration changed is changed in place (`collMod`), and a conditional index
 * the configuration no longer declares is dropped, so a retention changed between starts applies to the existing
 * database. It reads and writes no documents, which stay the business of each collection's one repository.
 */
export async function createIndexes(
  db: Db,
  config: IndexConfig,
  definitions: readonly CollectionIndexes[],
): Promise<void> {
  await Promise.all(
    definitions.map(async ({ collection, indexes, conditional }) => {
      const wanted = typeof indexes === 'function' ? indexes(config) : [...indexes];
      if (conditional?.length || wanted.some((index) => index.expireAfterSeconds !== undefined)) {
        await reconcileExpiry(db, collection, wanted, conditional ?? []);
      }
      await db.collection(collection).createIndexes(wanted);
    }),
  );
}

/** Drops the conditional indexes `wanted` lacks and moves existing TTL indexes to the expiry `wanted` gives them. */
async function reconcileExpiry(
  db: Db,
  collection: string,
  wanted: readonly IndexDescription[],
  conditional: readonly string[],
): Promise<void> {
  const existing = await db
    .collection(collection)
    .listIndexes()
    .toArray()
    .catch((error: unknown) => {
      if ((error as { code?: number }).code === NAMESPACE_NOT_FOUND) return [];
      throw error;
    });
  const wantedByName = new Map(wanted.map((index) => [index.name, index]));
  for (const index of existing) {
    const name = index.name as string;
    const target = wantedByName.get(name);
    if (!target) {
      if (conditional.includes(name)) await db.collection(collection).dropIndex(name);
      continue;
    }
    const seconds = target.expireAfterSeconds;
    if (seconds !== undefined && index.expireAfterSeconds !== undefined && index.expireAfterSeconds !== seconds) {
      await db.command({ collMod: collection, index: { name, expireAfterSeconds: seconds } });
    }
  }
}
