import { Field, Float, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { EXPIRY_DESCRIPTIONS } from '../shared/expiry';
import {
  storedDate,
  storedDateOrNull,
  storedEnum,
  storedFloat,
  storedInt,
  storedObjects,
  storedText,
  storedTextOrNull,
  StoredReader,
} from '../shared/stored-values';
import { INSIGHT_VALIDITY, memoryStatus } from '../shared/validity.filter';
import { MemoryStatus } from '../shared/validity.type';
import { Node } from '../shared/node';
import { AGENT_INSIGHTS_COLLECTION, AgentType, InsightType, type AgentInsightDocument } from './insight.document';

export { AgentType, InsightType };

registerEnumType(AgentType, {
  name: 'AgentType',
  description: "An agent of the pipeline; stored as 'thought', 'planner' or 'executor'.",
});
registerEnumType(InsightType, {
  name: 'InsightType',
  description: "What an insight is about; stored as 'patterns', 'optimizations' or 'warnings'.",
});

@ObjectType({ simpleResolvers: true, description: 'A past task that supports an insight.' })
export class InsightEvidence {
  @Field()
  taskId!: string;

  @Field()
  description!: string;
}

@ObjectType({
  simpleResolvers: true,
  implements: Node,
  description:
    'Something an agent learned, with how sure it is and the tasks that show it (collection agent_insights).',
})
export class AgentInsight {
  @Field(() => ID, {
    description: 'insightId: derived from (agentType, type, normalised text); also its global id (`node(id)`).',
  })
  id!: string;

  @Field(() => AgentType)
  agentType!: AgentType;

  @Field(() => String, { nullable: true, description: 'The end user the insight is about.' })
  userId!: string | null;

  @Field(() => String, { nullable: true, description: 'The one agent the insight is scoped to.' })
  agentId!: string | null;

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

  @Field(() => Date, { nullable: true, description: EXPIRY_DESCRIPTIONS.stored })
  expiresAt!: Date | null;
  @Field({ description: 'Valid from (default: when it was first recorded).' })
  validFrom!: Date;

  @Field(() => Date, {
    nullable: true,
    description: 'Valid until (null: open). Superseding or retiring sets it to that moment.',
  })
  validUntil!: Date | null;

  @Field(() => String, { nullable: true, description: 'Why it ended: the reason given to supersede or retire it.' })
  endedReason!: string | null;

  @Field(() => MemoryStatus, { description: 'Its standing now.' })
  status!: MemoryStatus;

  /** The replacement's insightId (`supersededBy` loads it). */
  supersededById!: string | null;
}

@ObjectType({ simpleResolvers: true })
export class AgentInsightsResult {
  @Field(() => [AgentInsight])
  insights!: AgentInsight[];

  @Field(() => Int)
  count!: number;
}

/** Maps a stored insight to the GraphQL shape, each field read through stored-values.ts. */
export function toAgentInsight(document: AgentInsightDocument): AgentInsight {
  const read = new StoredReader(AGENT_INSIGHTS_COLLECTION, document.insightId);
  const evidence = read
    .field('evidence', 'evidence', storedObjects<Record<string, unknown>>(document.evidence))
    .map((item) => ({ taskId: storedText(item.taskId), description: storedText(item.description) }));
  return read.attach({
    id: read.field('id', 'insightId', storedText(document.insightId)),
    agentType: read.field('agentType', 'agentType', storedEnum(document.agentType, AGENT_TYPES, AgentType.EXECUTOR)),
    userId: read.field('userId', 'userId', storedTextOrNull(document.userId)),
    agentId: read.field('agentId', 'agentId', storedTextOrNull(document.agentId)),
    type: read.field('type', 'type', storedEnum(document.type, INSIGHT_TYPES, InsightType.PATTERNS)),
    insight: read.field('insight', 'insight', storedText(document.insight)),
    confidence: read.field('confidence', 'confidence', storedFloat(document.confidence)),
    evidence,
    evidenceCount: read.field('evidenceCount', 'evidenceCount', storedInt(document.evidenceCount, evidence.length)),
    createdAt: read.field('createdAt', 'createdAt', storedDate(document.createdAt)),
    lastValidated: read.field('lastValidated', 'lastValidated', storedDateOrNull(document.lastValidated)),
    expiresAt: read.field('expiresAt', 'expiresAt', storedDateOrNull(document.expiresAt)),
    validFrom: read.field('validFrom', 'validFrom', storedDate(document.validFrom ?? document.createdAt)),
    validUntil: read.field('validUntil', 'validUntil', storedDateOrNull(document.validUntil)),
    endedReason: read.field('endedReason', 'endedReason', storedTextOrNull(document.endedReason)),
    status: memoryStatus(INSIGHT_VALIDITY, document as unknown as Record<string, unknown>, new Date()),
    supersededById: read.field('supersededBy', 'supersededBy', storedTextOrNull(document.supersededBy)),
  });
}

const AGENT_TYPES = Object.values(AgentType);
const INSIGHT_TYPES = Object.values(InsightType);
