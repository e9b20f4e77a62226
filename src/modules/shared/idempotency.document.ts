import type { CollectionIndexes } from '../../db/indexes';

export const IDEMPOTENCY_COLLECTION = 'idempotency_keys';

/**
 * One used key. Written before the data, with the `plan` (the ids and times the write will use), so that whatever
 * happened to the first attempt, a retry can finish or find exactly that write instead of making another.
 */
export interface IdempotencyDocument<Plan> {
  _id: string;
  operation: string;
  input_hash: string;
  plan: Plan;
  state: 'pending' | 'done';
  lease_until: Date;
  created_at: Date;
  /** Removed by the TTL index after this time. */
  expires_at: Date;
}

export const IDEMPOTENCY_INDEXES: CollectionIndexes = {
  collection: IDEMPOTENCY_COLLECTION,
  // Each record carries its own expiry, so IDEMPOTENCY_TTL_HOURS can change without redefining the index.
  indexes: [{ key: { expires_at: 1 }, name: 'expires_at_ttl', expireAfterSeconds: 0 }],
};
