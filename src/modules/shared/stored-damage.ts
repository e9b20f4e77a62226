import type { Collection, Document, Filter } from 'mongodb';
import { ConflictError } from '../../errors';

/** What a stored field must hold for an update to build on it; missing or null is fine (the update starts it). */
export type StoredKind = 'list' | 'number';

const BSON_TYPES: Record<StoredKind, readonly string[]> = {
  list: ['array'],
  number: ['double', 'int', 'long', 'decimal'],
};

/** How a refusal for a damaged stored value ends. */
export const REPAIR_ADVICE = 'repair the document (docs/operations.md, "Damage and repair").';

/** Names the document a damaged field belongs to: fixed, or from the value of its `key` field (several documents). */
export type StoredDocumentName = string | { key: string; name: (key: unknown) => string };

/**
 * Why an update of the documents `filter` matches failed in the database, when one holds a value the update cannot
 * build on (a list that is not one, a counter that is not a number: written by another tool or by hand): a CONFLICT
 * naming the first such field of `fields` (of the first such document), to answer instead of an internal error. The
 * failed update wrote nothing (one atomic update). Null when no field is damaged, or no document matches: the failure
 * is something else. Also asked before a write that updates several documents, so that none is written when one
 * could not be.
 */
export async function storedDamage<T extends Document>(
  collection: Collection<T>,
  filter: Filter<T>,
  fields: Record<string, StoredKind>,
  document: StoredDocumentName,
): Promise<ConflictError | null> {
  const names = Object.keys(fields);
  const rows = await collection
    .aggregate<Record<string, unknown>>([
      { $match: filter as Document },
      {
        $project: {
          _id: 0,
          ...(typeof document === 'string' ? {} : { key: `$${document.key}` }),
          ...Object.fromEntries(names.map((name, i) => [`f${i}`, { $type: `$${name}` }])),
        },
      },
    ])
    .toArray();
  for (const types of rows) {
    const at = names.findIndex(
      (name, i) => !['missing', 'null', ...BSON_TYPES[fields[name]]].includes(types[`f${i}`] as string),
    );
    if (at < 0) continue;
    const storedField = names[at];
    const named = typeof document === 'string' ? document : document.name(types.key);
    return new ConflictError(
      `The stored ${storedField} of ${named} is not a ${fields[storedField]}, so nothing was written; ${REPAIR_ADVICE}`,
      { storedField },
    );
  }
  return null;
}
