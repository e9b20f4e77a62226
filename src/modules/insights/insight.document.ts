import type { IndexDescription, ObjectId } from 'mongodb';
import type { CollectionIndexes } from '../../db/indexes';
import { expiresAtIndex, retentionIndexName, retentionIndexes } from '../shared/expiry';

/** The collection of seed 002's AgentInsight. */
export const AGENT_INSIGHTS_COLLECTION = 'agent_insights';

/** The agents of seed 002; stored as its lowercase strings (the enum's values). */
export enum AgentType {
  THOUGHT = 'thought',
  PLANNER = 'planner',
  EXECUTOR = 'executor',
}

/** Kinds of insight (seed 002 insightType); stored as its lowercase strings. */
export enum InsightType {
  PATTERNS = 'patterns',
  OPTIMIZATIONS = 'optimizations',
  WARNINGS = 'warnings',
}

export interface EvidenceDocument {
  taskId: string;
  description: string;
}

/**
 * A document of `agent_insights`: the seed's fields (agentType, type, insight, confidence, evidence, createdAt,
 * lastValidated) plus its id, the normalised text it is deduplicated by, and how much evidence it has gathered.
 */
export interface AgentInsightDocument {
  _id?: ObjectId;
  insightId: string;
  agentType: AgentType;
  /** The end user the insight is about (issue 41 scopes); part of its identity, with `agentId`. */
  userId?: string | null;
  /** The one agent the insight is scoped to, beside the three-value `agentType`. */
  agentId?: string | null;
  type: InsightType;
  insight: string;
  /** Lower-cased, whitespace-collapsed `insight`: the same text of one agent and type is one insight. */
  key: string;
  confidence: number;
  /** The latest MAX_EVIDENCE pieces of evidence, oldest first. */
  evidence: EvidenceDocument[];
  evidenceCount: number;
  createdAt: Date;
  lastValidated: Date | null;
  /** The ids of the keyed validations applied, latest last (see `markApplied`): a retried one is not applied again. */
  appliedWrites?: string[];
  /** When the TTL index deletes it (recordInsight's expiresAt or ttlSeconds, the latest report's); absent: kept. */
  expiresAt?: Date | null;
  /** Valid from (missing: since createdAt). */
  validFrom?: Date | null;
  /** Valid until (missing/null: open); superseding or retiring sets it to that moment. */
  validUntil?: Date | null;
  /** The insightId of the replacement (supersedeInsight). */
  supersededBy?: string | null;
  /** Why it ended (the supersede or retire reason). */
  endedReason?: string | null;
}

/**
 * Seed 002: agentType, type, confidence (one compound index serves both the typed and the untyped query's prefix);
 * and the same order within one user or one agent (agentInsights(userId, agentId)). TTL indexes: each insight's
 * `expiresAt`, and RETENTION_INSIGHTS counted from its last validation, else (never validated: `lastValidated` null)
 * from its creation; one TTL index is on one field, hence two.
 */
export const INSIGHT_INDEXES: CollectionIndexes = {
  collection: AGENT_INSIGHTS_COLLECTION,
  conditional: [retentionIndexName('lastValidated'), retentionIndexName('createdAt')],
  indexes: (config): IndexDescription[] => [
    { key: { insightId: 1 }, name: 'insightId_unique', unique: true },
    { key: { agentType: 1, type: 1, confidence: -1 }, name: 'agentType_type_confidence' },
    { key: { agentType: 1, confidence: -1 }, name: 'agentType_confidence' },
    { key: { userId: 1, agentType: 1, confidence: -1 }, name: 'userId_agentType_confidence' },
    { key: { agentId: 1, agentType: 1, confidence: -1 }, name: 'agentId_agentType_confidence' },
    expiresAtIndex('expiresAt'),
    ...retentionIndexes('lastValidated', config.retentionInsights),
    ...retentionIndexes('createdAt', config.retentionInsights, {
      partialFilterExpression: { lastValidated: { $type: 'null' } },
    }),
    // AgentInsight.supersedes: what an insight replaced.
    { key: { supersededBy: 1 }, name: 'supersededBy', sparse: true },
  ],
};
