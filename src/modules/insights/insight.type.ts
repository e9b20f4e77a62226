import { Field, Float, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import type { ObjectId } from 'mongodb';

/** The collection of seed 002's AgentInsight. */
export const AGENT_INSIGHTS_COLLECTION = 'agent_insights';

/** The agents of seed 002; stored as its lowercase strings (the enum's values). */
export enum AgentType {
  THOUGHT = 'thought',
  PLANNER = 'planner',
  EXECUTOR = 'executor',
}
registerEnumType(AgentType, { name: 'AgentType', description: "An agent of the pipeline; stored as 'thought', 'planner' or 'executor'." });

/** Kinds of insight (seed 002 insightType); stored as its lowercase strings. */
export enum InsightType {
  PATTERNS = 'patterns',
  OPTIMIZATIONS = 'optimizations',
  WARNINGS = 'warnings',
}
registerEnumType(InsightType, {
  name: 'InsightType',
  description: "What an insight is about; stored as 'patterns', 'optimizations' or 'warnings'.",
});

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
}

@ObjectType({ simpleResolvers: true, description: 'A past task that supports an insight.' })
export class InsightEvidence {
  @Field()
  taskId!: string;

  @Field()
  description!: string;
}

@ObjectType({ simpleResolvers: true, description: 'Something an agent learned, with how sure it is and the tasks that show it (collection agent_insights).' })
export class AgentInsight {
  @Field(() => ID, { description: 'insightId: derived from (agentType, type, normalised text).' })
  id!: string;

  @Field(() => AgentType)
  agentType!: AgentType;

  @Field(() => InsightType)
  type!: InsightType;

  @Field()
  insight!: string;

  @Field(() => Float, { description: '0–1; rises with each supporting task and confirmation, halves on refutation.' })
  confidence!: number;

  @Field(() => [InsightEvidence], { description: 'The latest pieces of evidence (at most 20), oldest first.' })
  evidence!: InsightEvidence[];

  @Field(() => Int, { description: 'All pieces of evidence ever added.' })
  evidenceCount!: number;

  @Field()
  createdAt!: Date;

  @Field(() => Date, { nullable: true, description: 'When validateInsight last judged it; null if never.' })
  lastValidated!: Date | null;
}

@ObjectType({ simpleResolvers: true })
export class AgentInsightsResult {
  @Field(() => [AgentInsight])
  insights!: AgentInsight[];

  @Field(() => Int)
  count!: number;
}

export function toAgentInsight(document: AgentInsightDocument): AgentInsight {
  return {
    id: document.insightId,
    agentType: document.agentType,
    type: document.type,
    insight: document.insight,
    confidence: document.confidence,
    evidence: document.evidence ?? [],
    evidenceCount: document.evidenceCount ?? document.evidence?.length ?? 0,
    createdAt: document.createdAt,
    lastValidated: document.lastValidated ?? null,
  };
}
