import type { Binary } from 'mongodb';
import type { CollectionIndexes } from '../../db/indexes';
import type { EmbeddingModelInfo } from '../../embeddings/model-check';
import type { MessageDocument } from '../sessions/session.document';

/**
 * `message_index`: one document per message of the `sessions` collection (derived, never the source of truth), so
 * that messages are an ordinary search space (its vector, its text for BM25, its filter fields) and the search
 * subsystem's building, following and Atlas `$vectorSearch` apply to them unchanged. Written only by
 * MessageIndexRepository, from what the sessions hold: rebuilt from them whenever it differs.
 */
export const MESSAGE_INDEX_COLLECTION = 'message_index';

export interface MessageIndexDocument {
  /** `<sessionId>/<agentId>/<messageId>`, also the `_id`. */
  _id: string;
  key: string;
  session_id: string;
  agent_id: string;
  message_id: number;
  /** The session's `user_id` (null without one). */
  user_id: string | null;
  /** Lower-case, as stored in the message (`user`, `assistant`, `system`). */
  role: string;
  /** The text parts of the shown content (the redaction's when redacted). */
  text: string;
  created_at: Date | null;
  /** The message's stored `updated_at`, as stored (what tells a changed message from an indexed one). */
  source_updated_at: unknown;
  /**
   * The message as its session stores it: a hit is answered from here (reading it from a session of 1,000 messages
   * took ~7 ms each in the embedded engine).
   */
  stored: MessageDocument;
  /**
   * A BSON float32 vector (Binary subtype 9, as the embedding cache stores them: a quarter of an array of doubles, and
   * one buffer to encode); absent for a message without text. Atlas and the engine search it alike.
   */
  embedding?: Binary;
  embedding_model?: EmbeddingModelInfo;
}

/** The key of a message in the index (its `RecallItem` id too). */
export function messageKey(sessionId: string, agentId: string, messageId: number): string {
  return `${sessionId}/${agentId}/${messageId}`;
}

/**
 * The filters' fields (a search filter resolves with them), and (session_id, agent_id) for rebuilding one session's
 * entries. `key` is the `_id` already.
 */
export const MESSAGE_INDEX_INDEXES: CollectionIndexes = {
  collection: MESSAGE_INDEX_COLLECTION,
  indexes: [
    { key: { session_id: 1, agent_id: 1, message_id: 1 } },
    { key: { agent_id: 1 } },
    { key: { user_id: 1 } },
    { key: { created_at: 1 } },
  ],
};
