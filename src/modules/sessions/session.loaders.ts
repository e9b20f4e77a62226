import DataLoader from 'dataloader';
import type { SessionRepository } from './session.repository';
import { Session } from './session.type';

/** The sessions feature's per-request DataLoaders. */
export interface SessionLoaders {
  /**
   * Sessions by id (null for a miss). One aggregate per batch returns each session with its agents'
   * counts, token sums and last messages, never the message arrays, so resolving the agents and last
   * messages of many sessions reads the collection once.
   */
  sessionById: DataLoader<string, Session | null>;
}

export function createSessionLoaders(repository: SessionRepository): SessionLoaders {
  return {
    sessionById: new DataLoader<string, Session | null>(async (ids) => {
      const found = new Map((await repository.findSummaries([...ids])).map((summary) => [summary._id, Session.fromSummary(summary)]));
      return ids.map((id) => found.get(id) ?? null);
    }),
  };
}
