import type { Db } from 'mongodb';
import type { Config } from '../config';

/** Creates every feature's indexes (idempotent); run at startup. Each feature declares its own and is listed here. */
export async function ensureIndexes(_db: Db, _config: Config): Promise<void> {
  await Promise.all([]);
}
