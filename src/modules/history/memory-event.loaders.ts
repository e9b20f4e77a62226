import type DataLoader from 'dataloader';
import { createLoader, type LoaderSettings } from '../shared/loaders';
import type { MemoryEventDocument } from './memory-event.document';
import type { MemoryEventRepository } from './memory-event.repository';

export interface HistoryLoaders {
  /** An experience's events by experience_id, oldest first; every load of a tick is one find. */
  experienceHistory: DataLoader<string, MemoryEventDocument[], string>;
  /** An insight's events by insightId, oldest first; every load of a tick is one find. */
  insightHistory: DataLoader<string, MemoryEventDocument[], string>;
}

/** Per-request loaders of histories, so a list selecting `history` reads the events of its page at once. */
export function createHistoryLoaders(repository: MemoryEventRepository, settings: LoaderSettings): HistoryLoaders {
  const byMemory = (kind: 'experience' | 'insight') =>
    createLoader<string, MemoryEventDocument[], string>(settings, async (ids) => {
      const grouped = new Map<string, MemoryEventDocument[]>(ids.map((id) => [id, []]));
      for (const event of await repository.histories(kind, ids)) grouped.get(event.memory_id)?.push(event);
      return ids.map((id) => grouped.get(id)!);
    });
  return { experienceHistory: byMemory('experience'), insightHistory: byMemory('insight') };
}
