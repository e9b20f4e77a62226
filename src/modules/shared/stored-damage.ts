import type { Collection, Document, Filter } from 'mongodb';
import { ConflictError } from '../../errors';

/** What a stored field must hold for an update to build on it; missing or null is fine (the update starts it). */
export type StoredKind = 'list' | 'number';

const BSON_TYPES: Record<StoredKind, readonly string[]> = {
  list: ['array'],
  number: ['double', 'int', 'long', 'decimal'],
};

/**
 * Why an update of the document `filter` matches failed in the database, when that document holds a value the update
 * cannot build on (a list that is not one, a counter that is not a number: written by another tool or by hand): a
 * CONFLICT naming the first such field of `fields`, to answer instead of an internal error. The failed update wrote
 * nothing (one atomic update). Null when no field is damaged, or no document matches: the failure is something else.
 */
export async function storedDamage<T extends Document>(
  collection: Collection<T>,
  filter: Filter<T>,
  fields: Record<string, StoredKind>,
  document: string,
): Promise<ConflictError | null> {
  const names = Object.keys(fields);
  const [types] = await collection
    .aggregate<Record<string, string>>([
      { $match: filter as Document },
      { $limit: 1 },
      { $project: { _id: 0, ...Object.fromEntries(names.map((name, i) => [`f${i}`, { $type: `$${name}` }])) } },
    ])
    .toArray();
  if (!types) return null;
  const at = names.findIndex((name, i) => !['missing', 'null', ...BSON_TYPES[fields[name]]].includes(types[`f${i}`]));
  if (at < 0) return null;
  const storedField = names[at];
  return new ConflictError(
    `The stored ${storedField} of ${document} is not a ${fields[storedField]}, so nothing was written; repair the document (docs/operations.md, "Damage and repair").`,
    { storedField },
  );
}
