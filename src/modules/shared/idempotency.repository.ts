import type { Collection, Db, Filter } from 'mongodb';
import { isDuplicateKeyError } from '../../errors';
import { IDEMPOTENCY_COLLECTION, type IdempotencyDocument } from './idempotency.document';

/**
 * What erased data the plans of idempotency records name: recorded experiences (`ids`), tasks (`taskId`), created
 * sessions (`sessionId`), and keyed writes applied to erased documents (`writeId`: appends, actions, validations).
 */
export interface PlannedWrites {
  experienceIds: readonly string[];
  taskIds: readonly string[];
  sessionIds: readonly string[];
  writeIds: readonly string[];
}

/** The only code touching `idempotency_keys`. */
export class IdempotencyRepository {
  private readonly collection: Collection<IdempotencyDocument<unknown>>;

  constructor(db: Db) {
    this.collection = db.collection<IdempotencyDocument<unknown>>(IDEMPOTENCY_COLLECTION);
  }

  /** Records the key unless it is recorded; true when this call recorded it. */
  async claim(record: IdempotencyDocument<unknown>): Promise<boolean> {
    const { _id, ...fields } = record;
    try {
      // An upsert: a concurrent claim of the same key then matches the record instead of failing.
      const claimed = await this.collection.updateOne({ _id }, { $setOnInsert: fields }, { upsert: true });
      return claimed.upsertedCount === 1;
    } catch (error) {
      if (isDuplicateKeyError(error)) return false;
      throw error;
    }
  }

  find<Plan>(key: string): Promise<IdempotencyDocument<Plan> | null> {
    return this.collection.findOne({ _id: key }) as Promise<IdempotencyDocument<Plan> | null>;
  }

  /**
   * Moves the lease of a pending key from `leaseUntil` to `newLease` unless someone moved it meanwhile: a retry taking
   * over an expired lease, or the holder renewing its own. True when moved.
   */
  async moveLease(key: string, leaseUntil: Date, newLease: Date): Promise<boolean> {
    const taken = await this.collection.updateOne(
      { _id: key, state: 'pending', lease_until: leaseUntil },
      { $set: { lease_until: newLease } },
    );
    return taken.modifiedCount === 1;
  }

  async markDone(key: string): Promise<void> {
    await this.collection.updateOne({ _id: key }, { $set: { state: 'done', lease_until: new Date(0) } });
  }

  /** Forgets a pending key (its attempt wrote nothing). */
  async forget(key: string): Promise<void> {
    await this.collection.deleteOne({ _id: key, state: 'pending' });
  }

  /** Ends a pending key's lease, so that a retry finishes its plan at once. */
  async free(key: string): Promise<void> {
    await this.collection.updateOne({ _id: key, state: 'pending' }, { $set: { lease_until: new Date(0) } });
  }

  /** The records whose plan names an erased write (see {@link PlannedWrites}). */
  private planQuery(writes: PlannedWrites): Filter<IdempotencyDocument<unknown>> {
    return {
      $or: [
        { 'plan.ids': { $in: [...writes.experienceIds] } },
        { 'plan.taskId': { $in: [...writes.taskIds] } },
        { 'plan.sessionId': { $in: [...writes.sessionIds] } },
        { 'plan.writeId': { $in: [...writes.writeIds] } },
      ],
    } as Filter<IdempotencyDocument<unknown>>;
  }

  countPlansNaming(writes: PlannedWrites): Promise<number> {
    return this.collection.countDocuments(this.planQuery(writes));
  }

  /** Deletes the records whose plan names an erased write (one deleteMany); returns how many. */
  async forgetPlansNaming(writes: PlannedWrites): Promise<number> {
    return (await this.collection.deleteMany(this.planQuery(writes))).deletedCount;
  }
}
