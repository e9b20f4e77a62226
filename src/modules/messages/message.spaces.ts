import type { SpaceDefinition } from '../../search/space';
import { MESSAGE_INDEX_COLLECTION } from './message.document';

/** The search space over messages: each message's text (vector and BM25), filtered by its session, agent, user, role and time. */
export const MESSAGE_SPACE: SpaceDefinition = {
  name: 'messages.text',
  collection: MESSAGE_INDEX_COLLECTION,
  idField: 'key',
  vectorPath: 'embedding',
  textPaths: ['text'],
  filterFields: ['session_id', 'agent_id', 'user_id', 'role', 'created_at'],
};

/** The spaces for `deps.search.defineSpace`. */
export const MESSAGE_SPACES: readonly SpaceDefinition[] = [MESSAGE_SPACE];
