import type { Db } from 'mongodb';
import type { Caller } from '../../auth/caller';
import {
  MEMORY_EVENTS_COLLECTION,
  type MemoryEventDocument,
  type MemoryEventType,
  type MemoryKind,
} from './memory-event.document';

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
    const now = new Date();
    await this.collection.insertMany(
      events.map((event) => ({ ...event, at: event.at ?? now, key_id: this.caller.keyId })),
    );
  }

  /** A memory's events, oldest first. */
  history(kind: MemoryKind, memoryId: string): Promise<MemoryEventDocument[]> {
    return this.collection.find({ kind, memory_id: memoryId }).sort({ at: 1, _id: 1 }).toArray();
  }

  /** The events of several memories of one kind in one read, each memory's oldest first. */
  histories(kind: MemoryKind, memoryIds: readonly string[]): Promise<MemoryEventDocument[]> {
    return this.collection
      .find({ kind, memory_id: { $in: [...memoryIds] } })
      .sort({ at: 1, _id: 1 })
      .toArray();
  }
}

export type { MemoryEventType, MemoryKind };
