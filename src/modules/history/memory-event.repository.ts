import { ObjectId, type Db, type Filter } from 'mongodb';
import type { Caller } from '../../auth/caller';
import {
  MEMORY_EVENTS_COLLECTION,
  type MemoryEventDocument,
  type MemoryEventType,
  type MemoryKind,
} from './memory-event.document';
import type { MemoryScope } from '../shared/memory-scope';

/**
 * The ids of the memories a forget erases, by kind, and the sessions it deletes: their events go whatever scope fields
 * they were copied with.
 */
export type ErasedMemories = Record<MemoryKind | 'session', readonly string[]>;

/** What a service says about an event; the time and the caller's key are added by {@link MemoryEventRepository.record}. */
export type MemoryEventInput = Omit<MemoryEventDocument, '_id' | 'at' | 'key_id'> & { at?: Date };

/** The `memory_events` collection's one repository: appends events, reads a memory's history. */
export class MemoryEventRepository {
  constructor(
    private readonly db: Db,
    private readonly caller: Pick<Caller, 'keyId'>,
  ) {}

  private get collection() {
    return this.db.collection<MemoryEventDocument>(MEMORY_EVENTS_COLLECTION);
  }

  /** Appends events (after the write they describe succeeded). */
  async record(...events: MemoryEventInput[]): Promise<void> {
    if (!events.length) return;
    await this.collection.insertMany(this.stored(events));
  }

  private stored(events: MemoryEventInput[]): MemoryEventDocument[] {
    const now = new Date();
    return events.map((event) => ({ _id: new ObjectId(), ...event, at: event.at ?? now, key_id: this.caller.keyId }));
  }

  /** The events of several memories of one kind in one read, each memory's oldest first. */
  histories(kind: MemoryKind, memoryIds: readonly string[]): Promise<MemoryEventDocument[]> {
    return this.collection
      .find({ kind, memory_id: { $in: [...memoryIds] } })
      .sort({ at: 1, _id: 1 })
      .toArray();
  }

  /** The events of a forget scope: those copied with its user, agent or session, and those of the memories erased. */
  private scopeQuery(scope: MemoryScope, memories: ErasedMemories): Filter<MemoryEventDocument> {
    const field = ({ userId: 'user_id', sessionId: 'session_id', agentId: 'agent_id' } as const)[scope.kind];
    return {
      $or: [
        { [field]: scope.value },
        { kind: 'experience', memory_id: { $in: [...memories.experience] } },
        { kind: 'insight', memory_id: { $in: [...memories.insight] } },
        { session_id: { $in: [...memories.session] } },
      ],
    };
  }

  countByScope(scope: MemoryScope, memories: ErasedMemories): Promise<number> {
    return this.collection.countDocuments(this.scopeQuery(scope, memories));
  }

  /** Deletes the events of a forget scope (one deleteMany); returns how many. */
  async forgetScope(scope: MemoryScope, memories: ErasedMemories): Promise<number> {
    return (await this.collection.deleteMany(this.scopeQuery(scope, memories))).deletedCount;
  }
}

export type { MemoryEventType, MemoryKind };
