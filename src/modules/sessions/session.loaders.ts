import type DataLoader from 'dataloader';
import { createByIdLoader, createLoader, type LoaderSettings } from '../shared/loaders';
import { messagePageKey, type AgentRef, type MessagePage, type MessageWindow, type SessionRepository } from './session.repository';
import { Session } from './session.type';

/** A page of one agent's messages, as a `messagePage` key. */
export interface MessagePageRequest extends AgentRef {
  window: MessageWindow;
}

/** The sessions feature's per-request DataLoaders. */
export interface SessionLoaders {
  /**
   * Sessions by id (null for a miss). One aggregate per batch returns each session with its agents'
   * counts, token sums and last messages, never the message arrays, so resolving the agents and last
   * messages of many sessions reads the collection once.
   */
  sessionById: DataLoader<string, Session | null, string>;
  /** Message pages of agents (null: no such agent); one aggregate per distinct window in a batch. */
  messagePage: DataLoader<MessagePageRequest, MessagePage | null, string>;
}

/** Per-request loaders of the sessions feature. */
export function createSessionLoaders(repository: SessionRepository, settings: LoaderSettings): SessionLoaders {
  return {
    sessionById: createByIdLoader(settings, (ids) => repository.findSummaries([...ids]), (summary) => summary._id, (summary) => Session.fromSummary(summary)),
    messagePage: createLoader<MessagePageRequest, MessagePage | null, string>(
      settings,
      async (requests) => {
        const byWindow = new Map<string, MessagePageRequest[]>();
        for (const request of requests) {
          const window = JSON.stringify(request.window);
          byWindow.set(window, [...(byWindow.get(window) ?? []), request]);
        }
        const pages = new Map<string, MessagePage>();
        await Promise.all(
          [...byWindow.entries()].map(async ([window, group]) => {
            for (const [agent, page] of await repository.messagePages(group, group[0].window)) pages.set(`${agent}${window}`, page);
          }),
        );
        return requests.map((request) => pages.get(`${messagePageKey(request)}${JSON.stringify(request.window)}`) ?? null);
      },
      { cacheKeyFn: (request) => JSON.stringify([request.sessionId, request.agentId, request.window]) },
    ),
  };
}
