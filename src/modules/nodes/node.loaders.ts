import type DataLoader from 'dataloader';
import { createLoader, type LoaderSettings } from '../shared/loaders';
import type { MessageRef, SessionRepository } from '../sessions/session.repository';
import { Message } from '../sessions/session.type';

export interface NodeLoaders {
  /** Messages by session, agent and message id (null for a miss); every load of a tick is one aggregate. */
  messageById: DataLoader<MessageRef, Message | null, string>;
}

const messageKey = (ref: MessageRef) => JSON.stringify([ref.sessionId, ref.agentId, ref.messageId]);

/** Per-request loaders of what `node(id)` reads that no feature loads by id. */
export function createNodeLoaders(sessions: SessionRepository, settings: LoaderSettings): NodeLoaders {
  return {
    messageById: createLoader<MessageRef, Message | null, string>(
      settings,
      async (refs) => {
        const found = new Map<string, Message>();
        for (const agent of await sessions.findMessages(refs)) {
          for (const message of agent.messages) {
            const built = Message.fromDocument(message, agent);
            found.set(messageKey({ ...agent, messageId: built.messageId }), built);
          }
        }
        return refs.map((ref) => found.get(messageKey(ref)) ?? null);
      },
      { cacheKeyFn: messageKey },
    ),
  };
}
