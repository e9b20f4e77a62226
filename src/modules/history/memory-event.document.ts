import type { ObjectId } from 'mongodb';
import type { CollectionIndexes } from '../../db/indexes';

/** One collection for the lifecycle events of every memory (experiences and insights). */
export const MEMORY_EVENTS_COLLECTION = 'memory_events';

/** The memories that have a history. */
export type MemoryKind = 'experience' | 'insight';

/** What happened to a memory. */
export type MemoryEventType =
  'created' | 'updated' | 'feedback' | 'deduplicated' | 'superseded' | 'retired' | 'expired';

/**
 * One event in a memory's history. Scope fields (user, agent, session) are copied from the memory so that forgetting
 * a scope finds its events without the memory (which may be gone already); never the memory's content.
 */
export interface MemoryEventDocument {
  _id?: ObjectId;
  kind: MemoryKind;
  memory_id: string;
  event: MemoryEventType;
  at: Date;
  /** The caller's key id (`env-N`, or a stored key's id); null: anonymous (no keys configured). */
  key_id: string | null;
  /** `updated`: the API fields that changed. */
  fields?: string[] | null;
  /** `superseded`: the replacement's id; `deduplicated`: nothing (the memory itself counted one more occurrence). */
  related_id?: string | null;
  /** `superseded` / `retired`: the caller's reason. */
  reason?: string | null;
  user_id?: string | null;
  agent_id?: string | null;
  session_id?: string | null;
}

export const MEMORY_EVENT_INDEXES: CollectionIndexes = {
  collection: MEMORY_EVENTS_COLLECTION,
  indexes: [
    { key: { kind: 1, memory_id: 1, at: 1 }, name: 'kind_memory_id_at' },
    { key: { user_id: 1 }, name: 'user_id', sparse: true },
    { key: { agent_id: 1 }, name: 'agent_id', sparse: true },
    { key: { session_id: 1 }, name: 'session_id', sparse: true },
  ],
};
