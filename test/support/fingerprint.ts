import { createHash } from 'node:crypto';
import { EJSON } from 'bson';
import type { Db } from 'mongodb';

/**
 * Every collection of `db` with its document count and a hash of its documents' content (in `_id` order): equal
 * fingerprints before and after an operation mean it wrote nothing.
 */
export async function databaseFingerprint(db: Db): Promise<Record<string, { count: number; hash: string }>> {
  const collections = (await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name).sort();
  const entries = await Promise.all(
    collections.map(async (name) => {
      const documents = await db.collection(name).find({}).sort({ _id: 1 }).toArray();
      const hash = createHash('sha256')
        .update(EJSON.stringify(documents, { relaxed: false }))
        .digest('hex');
      return [name, { count: documents.length, hash }] as const;
    }),
  );
  return Object.fromEntries(entries.filter(([, entry]) => entry.count > 0));
}
