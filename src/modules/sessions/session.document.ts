import type { CollectionIndexes } from '../../db/indexes';
import { expiresAtIndex, retentionIndexName, retentionIndexes } from '../shared/expiry';

/**
 * The `sessions` collection as stored. Documents keep seed 001's shape exactly (snake_case,
 * `_id` = `session_id`, agents keyed by id, BSON dates), so a store written
 * by the agent SDKs is served as it is and what Hindsight writes reads back in those SDKs.
 */

export const SESSIONS_COLLECTION = 'sessions';

/** MongoDB's maximum document size (16 MiB). */
export const MAX_DOCUMENT_BYTES = 16 * 1024 * 1024;

export interface EventLoopMetricsDocument {
  accumulated_metrics?: { latencyMs?: number };
  accumulated_usage?: { inputTokens?: number; outputTokens?: number; totalTokens?: number };
}

/** A message as the Strands SDK holds it (`strands.types.content.Message`). */
export interface SdkMessage {
  role: string;
  content: unknown;
}

/**
 * A message in either shape, per message: seed 001's flattened one (`role`, `content`, ids from 1) or the Strands
 * SDK's `SessionMessage.__dict__` (`message`, `redact_message`, ids from 0) that its MongoDB session manager writes.
 */
export interface MessageDocument {
  message_id: number;
  role?: string;
  content?: unknown;
  message?: SdkMessage;
  /** The SDK's redaction: served instead of `message`, which is kept. */
  redact_message?: SdkMessage | null;
  created_at: Date;
  updated_at: Date;
  event_loop_metrics?: EventLoopMetricsDocument;
}

export interface AgentDocument {
  agent_data: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
  messages: MessageDocument[];
}

export interface FeedbackDocument {
  rating: 'up' | 'down' | null;
  comment: string;
  created_at: Date;
}

export interface SessionDocument {
  _id: string;
  session_id: string;
  /** Written by the Strands MongoDB session manager; optional here. */
  application_name?: string | null;
  /**
   * Not in seed 001: the end user the session is about (issue 41 scopes). A top-level key the Strands SDK ignores:
   * its `Session.from_dict` keeps only the dataclass's fields, and the MongoDB manager's read picks four fields.
   */
  user_id?: string | null;
  session_type: string;
  /** The manager's viewer secret: never read by any query (summaryProjection names the fields it reads). */
  session_viewer_password?: string;
  created_at: Date;
  updated_at: Date;
  metadata: Record<string, unknown>;
  feedbacks: FeedbackDocument[];
  agents: Record<string, AgentDocument>;
  /**
   * Not in seed 001 (the SDKs ignore it): the keyed appends applied, latest last (at most MAX_APPLIED_WRITES), each
   * with the first message id it took, so that a retry finds exactly its messages and never appends them twice.
   */
  applied_writes?: AppliedAppend[];
  /** Not in seed 001: when the TTL index deletes the whole session (createSession's expiresAt or ttlSeconds). */
  expires_at?: Date | null;
}

export interface AppliedAppend {
  write_id: string;
  agent_id: string;
  first_message_id: number;
}

/**
 * The indexes of seed 001's `_ensure_indexes` (same keys, so the same names as the SDKs create), plus configured
 * metadata fields, (user_id, updated_at) for the sessions of one user in the default order, and TTL indexes: each
 * session's `expires_at`, and RETENTION_MESSAGES, which deletes whole sessions (messages live in their session's
 * document) whose last activity `updated_at` is older. That one is descending, so its key differs from the SDK's
 * `updated_at_1`, which the SDK creates without options and must find unchanged.
 */
export const SESSION_INDEXES: CollectionIndexes = {
  collection: SESSIONS_COLLECTION,
  conditional: [retentionIndexName('updated_at')],
  indexes: (config) => [
    { key: { created_at: 1 } },
    { key: { updated_at: 1 } },
    { key: { user_id: 1, updated_at: -1 } },
    ...config.metadataIndexFields.map((field) => ({ key: { [`metadata.${field}`]: 1 } })),
    expiresAtIndex('expires_at'),
    ...retentionIndexes('updated_at', config.retentionMessages, { direction: -1 }),
  ],
};
