import type { Collection, Db } from 'mongodb';
import { isDuplicateKeyError } from '../../errors';
import { REEMBED_JOBS_COLLECTION, type ReembedJobDocument } from './reembed.document';

/**
 * The only code touching `reembed_jobs`. The documents being re-embedded are reached through their own feature's
 * repository (`ReembedTarget.documents`).
 */
export class ReembedRepository {
  private readonly jobs: Collection<ReembedJobDocument>;

  constructor(db: Db) {
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

  async finish(
    collection: string,
    runId: string,
    update: Pick<ReembedJobDocument, 'state' | 'error' | 'finished_at'>,
  ): Promise<void> {
    await this.jobs.updateOne({ _id: collection, run_id: runId }, { $set: update });
  }
}
