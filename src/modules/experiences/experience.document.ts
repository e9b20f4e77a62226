import type { IndexDescription, ObjectId } from 'mongodb';
import type { CollectionIndexes } from '../../db/indexes';
import { EMBEDDING_MODEL_INDEX } from '../shared/reembed-target';
import { expiresAtIndex, retentionIndexName, retentionIndexes } from '../shared/expiry';
import type { EmbeddingModelInfo } from '../../embeddings/model-check';

/** The collection of seed 000. */
export const EXPERIENCES_COLLECTION = 'eat_agent_experiences';

/** The four embeddable fields of seed 000; each value is the stored field name. */
export enum ExperienceField {
  PRIMARY_GOAL = 'primary_goal_description',
  SUB_TASK = 'sub_task_description',
  INPUT_CONTEXT = 'input_context_summary',
  OUTPUT_SUMMARY = 'output_summary',
}

export const EXPERIENCE_FIELDS: readonly ExperienceField[] = Object.values(ExperienceField);

/** Where the seed keeps a field's vector: `embeddings.<field>_embedding`. */
export function embeddingKey(field: ExperienceField): `${ExperienceField}_embedding` {
  return `${field}_embedding`;
}

/** A document of `eat_agent_experiences`, with the seed's field names; `embedding_model` is Hindsight's addition. */
export interface ExperienceDocument {
  _id?: ObjectId;
  experience_id: string;
  primary_goal_description: string;
  sub_task_description: string;
  initiating_agent_id: string;
  involved_components?: string[] | null;
  input_context_summary?: string | null;
  key_decisions_made?: unknown;
  final_outcome: string;
  output_summary?: string | null;
  feedback_signals?: Record<string, unknown> | null;
  /** Running totals of the feedback given (experience.ranking.ts `FeedbackStats`), read by the search ranking. */
  feedback_stats?: Record<string, number> | null;
  /** ISODate; a string is tolerated on read (documents imported from JSON). */
  timestamp: Date | string;
  version: number;
  workflow_id?: string | null;
  session_id?: string | null;
  /** The end user the experience is about (issue 41 scopes). */
  user_id?: string | null;
  tags?: string[] | null;
  embeddings?: Partial<Record<`${ExperienceField}_embedding`, number[]>> | null;
  embedding_model?: EmbeddingModelInfo | null;
  /** When the TTL index deletes it (recordExperience's expiresAt or ttlSeconds); absent: kept. */
  expires_at?: Date | null;
  /** Valid from (missing: since it was recorded). */
  valid_from?: Date | null;
  /** Valid until (missing/null: open); superseding or retiring sets it to that moment. */
  valid_until?: Date | null;
  /** The experience_id of the replacement (supersedeExperience). */
  superseded_by?: string | null;
  /** Why it ended (the supersede or retire reason). */
  ended_reason?: string | null;
  /** The key that recorded it (null: anonymous): its `created` history event, derived rather than stored. */
  recorded_by_key?: string | null;
  /** Hash of agent, user, outcome, normalised goal and sub-task (experience.dedupe.ts); older documents lack it. */
  dedupe_key?: string | null;
  /** Hash of agent, user, outcome and the goal's words but for articles, stemmed: the near match's candidates. */
  near_key?: string | null;
  /** Times this memory was recorded (deduplicated records included); missing = 1. */
  occurrences?: number | null;
  /** When it was last recorded again; missing = `timestamp`. */
  last_seen_at?: Date | null;
  /** Ids of the keyed recordings counted into `occurrences` (see `markApplied`), so a retry counts nothing twice. */
  appliedWrites?: string[] | null;
}

/**
 * The indexes seed 000 recommends: experience_id unique; timestamp (with experience_id, the list order's
 * tie-breaker); (initiating_agent_id, timestamp), which also serves queries by agent alone; workflow_id;
 * session_id; tags (multikey); final_outcome. Hindsight adds (user_id, timestamp) for lists and searches of one user
 * and the near-duplicate lookups. TTL indexes: each record's `expires_at`, and RETENTION_EXPERIENCES on `timestamp` (a
 * timestamp stored as a string never expires).
 */
export const EXPERIENCE_INDEXES: CollectionIndexes = {
  collection: EXPERIENCES_COLLECTION,
  conditional: [retentionIndexName('timestamp')],
  indexes: (config): IndexDescription[] => [
    { key: { experience_id: 1 }, name: 'experience_id_unique', unique: true },
    { key: { timestamp: 1, experience_id: 1 }, name: 'timestamp' },
    { key: { initiating_agent_id: 1, timestamp: 1 }, name: 'initiating_agent_id_timestamp' },
    { key: { workflow_id: 1 }, name: 'workflow_id' },
    { key: { session_id: 1 }, name: 'session_id' },
    { key: { user_id: 1, timestamp: 1 }, name: 'user_id_timestamp' },
    { key: { tags: 1 }, name: 'tags' },
    { key: { final_outcome: 1 }, name: 'final_outcome' },
    // Experience.supersedes: what an experience replaced.
    { key: { superseded_by: 1 }, name: 'superseded_by', sparse: true },
    EMBEDDING_MODEL_INDEX,
    expiresAtIndex('expires_at'),
    ...retentionIndexes('timestamp', config.retentionExperiences),
    // The exact and near duplicate lookups of every recording; sparse: older documents have no keys.
    { key: { dedupe_key: 1 }, name: 'dedupe_key', sparse: true },
    { key: { near_key: 1 }, name: 'near_key', sparse: true },
    // A retry of a keyed recording that was counted as an occurrence finds what it counted into.
    { key: { appliedWrites: 1 }, name: 'appliedWrites', sparse: true },
  ],
};
