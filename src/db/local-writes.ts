import type { Collection, Db, Document, Filter } from 'mongodb';
import type { ChangeFollower } from './change-follower';

/**
 * A handle on `db` whose collections report every write to `follower` (`localWrite`), for deployments without change
 * streams: then this process's own writes still reach subscribers, whatever repository made them. Every handle the app
 * works on is made from one of these (app.ts), so no write path reports by hand.
 *
 * With change streams, or while nobody follows the collection, a write costs one check more. Otherwise the follower
 * gets the written documents' `_id`s: from the write's result where it has them (inserts, upserts, findOneAnd*), else
 * read by the write's filter after it (updates) or before it (deletes). A document an update moves out of its own
 * filter is not reported. Writes sent as raw commands (`db.command`) are not seen: the app sends none.
 *
 * Like request-bound.ts, the handle inherits everything else from `db` (prototype), and each collection's reporting
 * prototype is made once per name.
 */
export function reportingWrites(db: Db, follower: ChangeFollower): Db {
  const collections = new Map<string, Collection>();
  const reporting = Object.create(db) as Db;
  reporting.collection = function <T extends Document>(
    name: string,
    options?: Parameters<Db['collection']>[1],
  ): Collection<T> {
    let collection = options ? undefined : collections.get(name);
    if (!collection) {
      collection = reportingCollection(db, db.collection(name, options), follower);
      if (!options) collections.set(name, collection);
    }
    return collection as unknown as Collection<T>;
  };
  return reporting;
}

type Ids = unknown[];

function reportingCollection(db: Db, collection: Collection, follower: ChangeFollower): Collection {
  const name = collection.collectionName;
  const followed = () => follower.followsLocally(db, name);
  const report = (ids: Ids, operationType: string) => {
    for (const id of ids) follower.localWrite(db, name, id, operationType);
  };
  const idsOf = async (filter: Filter<Document>, limit: number): Promise<Ids> =>
    (await collection.find(filter, { projection: { _id: 1 }, limit }).toArray()).map((document) => document._id);

  /** An update's ids: its upserted one, or those its filter matches now (one for a single-document update). */
  const updated = async (
    result: { upsertedId?: unknown; matchedCount: number },
    filter: Filter<Document>,
    limit: number,
  ) => {
    if (result.upsertedId != null) report([result.upsertedId], 'insert');
    else if (result.matchedCount > 0) report(await idsOf(filter, limit), 'update');
  };

  /** A findOneAnd* answer: the document, or the driver's result with metadata (`includeResultMetadata`). */
  const modifiedId = (answer: unknown): unknown => {
    const document = (answer as { value?: unknown; lastErrorObject?: unknown } | null) ?? null;
    const value = document && 'lastErrorObject' in document ? document.value : document;
    return (value as { _id?: unknown } | null)?._id;
  };

  const prototype = Object.create(collection) as Collection;
  // The casts keep the driver's overloads, which plain methods cannot.
  Object.assign(prototype, {
    async insertOne(document: Document, options?: Document) {
      const result = await collection.insertOne(document, options);
      if (followed()) report([result.insertedId], 'insert');
      return result;
    },
    async insertMany(documents: Document[], options?: Document) {
      const result = await collection.insertMany(documents, options);
      if (followed()) report(Object.values(result.insertedIds), 'insert');
      return result;
    },
    async updateOne(filter: Filter<Document>, update: Document, options?: Document) {
      const result = await collection.updateOne(filter, update, options);
      if (followed()) await updated(result, filter, 1);
      return result;
    },
    async updateMany(filter: Filter<Document>, update: Document, options?: Document) {
      const result = await collection.updateMany(filter, update, options);
      if (followed()) await updated(result, filter, 0);
      return result;
    },
    async replaceOne(filter: Filter<Document>, replacement: Document, options?: Document) {
      const result = await collection.replaceOne(filter, replacement, options);
      if (followed()) await updated(result, filter, 1);
      return result;
    },
    async findOneAndUpdate(filter: Filter<Document>, update: Document, options: Document = {}) {
      const answer = await collection.findOneAndUpdate(filter, update, options);
      const id = modifiedId(answer);
      if (followed()) {
        if (id !== undefined) report([id], 'update');
        else if (options.upsert) report(await idsOf(filter, 1), 'insert');
      }
      return answer;
    },
    async findOneAndReplace(filter: Filter<Document>, replacement: Document, options: Document = {}) {
      const answer = await collection.findOneAndReplace(filter, replacement, options);
      const id = modifiedId(answer);
      if (followed()) {
        if (id !== undefined) report([id], 'replace');
        else if (options.upsert) report(await idsOf(filter, 1), 'insert');
      }
      return answer;
    },
    async findOneAndDelete(filter: Filter<Document>, options: Document = {}) {
      const answer = await collection.findOneAndDelete(filter, options);
      const id = modifiedId(answer);
      if (id !== undefined && followed()) report([id], 'delete');
      return answer;
    },
    async deleteOne(filter: Filter<Document>, options?: Document) {
      const ids = followed() ? await idsOf(filter, 1) : [];
      const result = await collection.deleteOne(filter, options);
      if (result.deletedCount > 0) report(ids, 'delete');
      return result;
    },
    async deleteMany(filter: Filter<Document>, options?: Document) {
      const ids = followed() ? await idsOf(filter, 0) : [];
      const result = await collection.deleteMany(filter, options);
      if (result.deletedCount > 0) report(ids, 'delete');
      return result;
    },
  });
  return prototype;
}
