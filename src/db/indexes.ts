import type { Db, IndexDescription } from 'mongodb';
import type { Config } from '../config';

/** What index definitions may depend on: the configuration (e.g. which session metadata fields are indexed). */
export type IndexConfig = Pick<Config, 'metadataIndexFields'>;

/** The indexes of one collection, declared by the feature that stores it (in its `<feature>.document.ts`). */
export interface CollectionIndexes {
  collection: string;
  /** The indexes; a function of the configuration when they depend on it. */
  indexes: readonly IndexDescription[] | ((config: IndexConfig) => IndexDescription[]);
}

/**
 * Creates every given collection's indexes (idempotent: existing ones with the same key and options are kept). It
 * reads and writes no documents, which stay the business of each collection's one repository (src/modules).
 */
export async function createIndexes(
  db: Db,
  config: IndexConfig,
  definitions: readonly CollectionIndexes[],
): Promise<void> {
  await Promise.all(
    definitions.map(({ collection, indexes }) =>
      db.collection(collection).createIndexes(typeof indexes === 'function' ? indexes(config) : [...indexes]),
    ),
  );
}
