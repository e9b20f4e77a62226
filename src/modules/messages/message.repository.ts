import type { AnyBulkWriteOperation, Collection, Db, Filter } from 'mongodb';
import type { EmbeddingModelInfo } from '../../embeddings/model-check';
import type { MemoryScope } from '../shared/memory-scope';
import { otherModelQuery } from '../shared/vector-documents';
import { MESSAGE_INDEX_COLLECTION, type MessageIndexDocument } from './message.document';

/** What a session's indexed messages are compared by: one entry per agent. */
export interface IndexedAgentSignature {
  agentId: string;
  count: number;
  lastUpdated: unknown;
}

/** An index entry as a rebuild compares it with its message. */
export type IndexedEntry = Pick<
  MessageIndexDocument,
  '_id' | 'text' | 'role' | 'user_id' | 'source_updated_at' | 'embedding_model'
> & {
  embedded: boolean;
};

/** An entry as a search's answer reads it. */
export type StoredEntry = Pick<MessageIndexDocument, '_id' | 'session_id' | 'agent_id' | 'message_id' | 'stored'>;

const SCOPE_FIELD: Record<MemoryScope['kind'], keyof MessageIndexDocument> = {
  userId: 'user_id',
  sessionId: 'session_id',
  agentId: 'agent_id',
};

function scopeFilter(scope: MemoryScope, sessionIds: readonly string[]): Filter<MessageIndexDocument> {
  const own = { [SCOPE_FIELD[scope.kind]]: scope.value };
  return scope.kind === 'userId' && sessionIds.length ? { $or: [own, { session_id: { $in: [...sessionIds] } }] } : own;
}

/** Keys per `$in` when the entries of many sessions are listed or removed. */
const KEYS_PER_QUERY = 1000;

/** The only code touching `message_index` (message.document.ts). */
export class MessageIndexRepository {
  private readonly collection: Collection<MessageIndexDocument>;

  constructor(db: Db) {
    this.collection = db.collection<MessageIndexDocument>(MESSAGE_INDEX_COLLECTION);
  }

  /** Writes entries whole (one bulk write, unordered: each is independent). */
  async put(entries: readonly MessageIndexDocument[]): Promise<void> {
    if (!entries.length) return;
    const operations: AnyBulkWriteOperation<MessageIndexDocument>[] = entries.map((entry) => ({
      replaceOne: { filter: { _id: entry._id }, replacement: entry, upsert: true },
    }));
    await this.collection.bulkWrite(operations, { ordered: false });
  }

  /** Removes entries by key. */
  async remove(keys: readonly string[]): Promise<void> {
    for (let from = 0; from < keys.length; from += KEYS_PER_QUERY)
      await this.collection.deleteMany({ _id: { $in: keys.slice(from, from + KEYS_PER_QUERY) } });
  }

  /** Removes every entry of the sessions; returns the keys removed. */
  async removeSessions(sessionIds: readonly string[]): Promise<string[]> {
    if (!sessionIds.length) return [];
    const keys = await this.collection
      .find({ session_id: { $in: [...sessionIds] } }, { projection: { _id: 1 } })
      .map((entry) => entry._id)
      .toArray();
    await this.remove(keys);
    return keys;
  }

  /** The entries of a session, for comparison with its messages. */
  entriesOf(sessionId: string): Promise<IndexedEntry[]> {
    return this.collection
      .aggregate<IndexedEntry>([
        { $match: { session_id: sessionId } },
        {
          $project: {
            text: 1,
            role: 1,
            user_id: 1,
            source_updated_at: 1,
            embedding_model: 1,
            embedded: { $eq: [{ $type: '$embedding' }, 'binData'] },
          },
        },
      ])
      .toArray();
  }

  /** Per listed session, per agent: how many entries, and the latest `source_updated_at`. */
  async signatures(sessionIds: readonly string[]): Promise<Map<string, IndexedAgentSignature[]>> {
    const rows = await this.collection
      .aggregate<{ _id: { s: string; a: string }; count: number; last: unknown }>([
        { $match: { session_id: { $in: [...sessionIds] } } },
        {
          $group: {
            _id: { s: '$session_id', a: '$agent_id' },
            count: { $sum: 1 },
            last: { $max: '$source_updated_at' },
          },
        },
      ])
      .toArray();
    const bySession = new Map<string, IndexedAgentSignature[]>();
    for (const row of rows) {
      const list = bySession.get(row._id.s) ?? [];
      list.push({ agentId: row._id.a, count: row.count, lastUpdated: row.last ?? null });
      bySession.set(row._id.s, list);
    }
    return bySession;
  }

  /** Whether some entry holds a vector of another model than `model` (they are then all embedded again). */
  async hasOtherModel(model: EmbeddingModelInfo): Promise<boolean> {
    const other = await this.collection.findOne(
      { $and: [{ embedding: { $exists: true } }, otherModelQuery(model)] } as Filter<MessageIndexDocument>,
      { projection: { _id: 1 } },
    );
    return other !== null;
  }

  /** The sessions with entries, in id order after `afterId`, `limit` at a time (a catch-up finds deleted sessions). */
  async sessionIdsAfter(afterId: string | null, limit: number): Promise<string[]> {
    const rows = await this.collection
      .aggregate<{ _id: string }>([
        ...(afterId === null ? [] : [{ $match: { session_id: { $gt: afterId } } }]),
        { $group: { _id: '$session_id' } },
        { $sort: { _id: 1 } },
        { $limit: limit },
      ])
      .toArray();
    return rows.map((row) => row._id);
  }

  /** The entries by key, with their stored messages (for the hits of a search and their neighbours). */
  findByKeys(keys: readonly string[]): Promise<StoredEntry[]> {
    if (!keys.length) return Promise.resolve([]);
    return this.collection
      .find({ _id: { $in: [...keys] } }, { projection: { session_id: 1, agent_id: 1, message_id: 1, stored: 1 } })
      .toArray();
  }

  /** The keys of a forget scope's entries (a user's: those of the user's sessions too). */
  keysInScope(scope: MemoryScope, sessionIds: readonly string[]): Promise<string[]> {
    return this.collection
      .find(scopeFilter(scope, sessionIds), { projection: { _id: 1 } })
      .map((entry) => entry._id)
      .toArray();
  }

  /** Deletes a forget scope's entries; returns how many. */
  async forgetScope(scope: MemoryScope, sessionIds: readonly string[]): Promise<number> {
    return (await this.collection.deleteMany(scopeFilter(scope, sessionIds))).deletedCount;
  }
}
