import { Field, Float, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { AgentType, InsightType, type AgentInsightDocument } from './insight.document';

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
  description:
    'Something an agent learned, with how sure it is and the tasks that show it (collection agent_insights).',
})
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
