import type { Collection, Db, Document, Filter, ObjectId } from 'mongodb';
import { isDuplicateKeyError } from '../../errors';
import type { EmbeddingModelInfo } from '../../embeddings/model-check';
import { readPath } from '../../search/space';
import { EMBEDDING_MODEL_PATH, type ReembedTarget } from '../shared/reembed-target';
import { REEMBED_JOBS_COLLECTION, type ReembedJobDocument } from './reembed.document';

/**
 * Documents not labelled with `model` in `embedding_model` (another model, or none recorded): their vectors cannot
 * be compared with the current embedder's; `reembed` is what fixes them.
 */
export function otherModelQuery(model: EmbeddingModelInfo): Filter<Document> {
  return {
    $or: [
      { [`${EMBEDDING_MODEL_PATH}.provider`]: { $ne: model.provider } },
      { [`${EMBEDDING_MODEL_PATH}.model`]: { $ne: model.model } },
      { [`${EMBEDDING_MODEL_PATH}.dimensions`]: { $ne: model.dimensions } },
    ],
  };
}

/** The job records, and the target collections' documents as re-embedding sees them. */
export class ReembedRepository {
  private readonly jobs: Collection<ReembedJobDocument>;

  constructor(private readonly db: Db) {
    this.jobs = db.collection<ReembedJobDocument>(REEMBED_JOBS_COLLECTION);
  }

  findJob(collection: string): Promise<ReembedJobDocument | null> {
    return this.jobs.findOne({ _id: collection });
  }

  /**
   * Starts `job` unless another run holds a live lease: returns the new job, or null when one is running.
   * Atomic (one upsert on `_id`), so two servers cannot both start a run.
   */
  async acquire(job: ReembedJobDocument, now: Date): Promise<ReembedJobDocument | null> {
    const { _id, ...fields } = job;
    try {
      return await this.jobs.findOneAndUpdate(
        { _id, $or: [{ state: { $ne: 'running' } }, { lease_until: { $lte: now } }] },
        { $set: fields },
        { upsert: true, returnDocument: 'after' },
      );
    } catch (error) {
      if (isDuplicateKeyError(error)) return null;
      throw error;
    }
  }

  /** Records progress and renews the lease; false when this run no longer owns the job. */
  async progress(collection: string, runId: string, processed: number, leaseUntil: Date): Promise<boolean> {
    const result = await this.jobs.updateOne(
      { _id: collection, run_id: runId, state: 'running' },
      { $inc: { processed }, $set: { lease_until: leaseUntil } },
    );
    return result.matchedCount === 1;
  }

  async finish(collection: string, runId: string, update: Pick<ReembedJobDocument, 'state' | 'error' | 'finished_at'>): Promise<void> {
    await this.jobs.updateOne({ _id: collection, run_id: runId }, { $set: update });
  }

  /** Number of documents of `target` whose vectors were not made by `model`. */
  countOtherModel(target: ReembedTarget, model: EmbeddingModelInfo): Promise<number> {
    return this.db.collection(target.collection).countDocuments(otherModelQuery(model));
  }

  /** One document of `target` whose vectors were not made by `model` (its recorded model), or null when none. */
  findOtherModel(target: ReembedTarget, model: EmbeddingModelInfo): Promise<Document | null> {
    return this.db
      .collection(target.collection)
      .findOne(otherModelQuery(model), { projection: { _id: 0, [target.idField]: 1, [EMBEDDING_MODEL_PATH]: 1 } });
  }

  /** The next `limit` documents after `afterId` (by `_id`) still to re-embed, with their id and texts. */
  nextBatch(target: ReembedTarget, model: EmbeddingModelInfo, afterId: ObjectId | null, limit: number): Promise<Document[]> {
    const query = afterId ? { $and: [otherModelQuery(model), { _id: { $gt: afterId } }] } : otherModelQuery(model);
    const projection = Object.fromEntries([target.idField, ...target.fields.map((field) => field.textPath)].map((path) => [path, 1]));
    return this.db.collection(target.collection).find(query, { projection }).sort({ _id: 1 }).limit(limit).toArray();
  }

  /**
   * Writes one document's new vectors (a null vector removes the stored one) and labels it with `model`, provided
   * its texts are still those that were embedded. False when a concurrent update changed them (that update wrote
   * vectors of the current model itself).
   */
  async writeVectors(
    target: ReembedTarget,
    document: Document,
    vectors: (number[] | null)[],
    model: EmbeddingModelInfo,
  ): Promise<boolean> {
    const unchanged: Document = { _id: document._id };
    const set: Document = { [EMBEDDING_MODEL_PATH]: model };
    const unset: Document = {};
    target.fields.forEach((field, index) => {
      const text = readPath(document, field.textPath);
      unchanged[field.textPath] = text === undefined ? { $exists: false } : text;
      if (vectors[index]) set[field.space.vectorPath] = vectors[index];
      else unset[field.space.vectorPath] = '';
    });
    const result = await this.db
      .collection(target.collection)
      .updateOne(unchanged, Object.keys(unset).length ? { $set: set, $unset: unset } : { $set: set });
    return result.matchedCount === 1;
  }
}
