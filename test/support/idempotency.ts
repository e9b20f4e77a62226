import type { Db } from 'mongodb';
import { IDEMPOTENCY_COLLECTION } from '../../src/modules/shared/idempotency.document';

type KeyRecord = { _id: string; plan: Record<string, any>; state: string; lease_until: Date };

/** Makes a key's record look as if its first attempt wrote and then died before marking the key done. */
export async function crashAfterWrite(db: Db, key: string): Promise<void> {
  const { modifiedCount } = await db
    .collection<KeyRecord>(IDEMPOTENCY_COLLECTION)
    .updateOne({ _id: key }, { $set: { state: 'pending', lease_until: new Date(0) } });
  if (modifiedCount !== 1) throw new Error(`no idempotency key ${key}`);
}

/** The plan recorded with a key (the ids and times its write uses). */
export async function keyPlan(db: Db, key: string): Promise<Record<string, any>> {
  const record = await db.collection<KeyRecord>(IDEMPOTENCY_COLLECTION).findOne({ _id: key });
  if (!record) throw new Error(`no idempotency key ${key}`);
  return record.plan;
}
