import { randomUUID } from 'node:crypto';
import type { Db, Document } from 'mongodb';
import { NotFoundError, ValidationError } from '../../errors';
import { Idempotency } from '../shared/idempotency';
import { checkScopeId } from '../shared/user-scope';
import { expiryOf } from '../shared/expiry';
import type { AgentInsightsArgs, RecordInsightInput } from './insight.input';
import {
  AgentInsightRepository,
  INITIAL_CONFIDENCE,
  insightId,
  insightKey,
  insightRecordedBy,
  type InsightReport,
  type InsightScope,
} from './insight.repository';
import type { Caller } from '../../auth/caller';
import { MemoryEventRepository, type MemoryEventInput } from '../history/memory-event.repository';
import { INSIGHT_VALIDITY, bothFilters, insightScope, validityQuery } from '../shared/validity.filter';
import type { AgentInsightDocument, AgentType, EvidenceDocument, InsightType } from './insight.document';
import { toAgentInsight, type AgentInsight, type AgentInsightsResult } from './insight.type';

export const MAX_INSIGHT_LENGTH = 2000;
export const MAX_INSIGHTS_LIMIT = 100;

function checkUnitInterval(value: number, field: string): void {
  if (!Number.isFinite(value) || value < 0 || value > 1)
    throw new ValidationError(`${field} must be a number from 0 to 1.`, field);
}

/** Trimmed text of an insight; blank or over MAX_INSIGHT_LENGTH is BAD_USER_INPUT naming `field`. */
export function checkInsightText(text: string, field: string): string {
  const trimmed = text.trim();
  if (!trimmed) throw new ValidationError(`${field} must not be blank.`, field);
  if (trimmed.length > MAX_INSIGHT_LENGTH)
    throw new ValidationError(`${field} must be at most ${MAX_INSIGHT_LENGTH} characters.`, field);
  return trimmed;
}

/** Evidence with one piece per task (the first description given wins). */
function distinctEvidence(evidence: readonly EvidenceDocument[]): EvidenceDocument[] {
  const byTask = new Map<string, EvidenceDocument>();
  for (const piece of evidence)
    if (!byTask.has(piece.taskId)) byTask.set(piece.taskId, { taskId: piece.taskId, description: piece.description });
  return [...byTask.values()];
}

/** Agent insights (seed 002 get_agent_insights): recording with evidence, validation, listing. */
export class InsightService {
  private readonly repository: AgentInsightRepository;

  private readonly idempotency: Idempotency;

  private readonly events: MemoryEventRepository;

  constructor(db: Db, idempotencyTtlHours: number, caller: Pick<Caller, 'keyId'>) {
    this.repository = new AgentInsightRepository(db);
    this.idempotency = new Idempotency(db, idempotencyTtlHours);
    this.events = new MemoryEventRepository(db, caller);
  }

  /**
   * Applies a report; a new insight's `created` event is recorded. A report of a known one (its evidence and
   * confidence, which tell it themselves) records no event: it is the same lesson again, not a change of it.
   */
  private async report(report: InsightReport, now: Date): Promise<AgentInsightDocument> {
    const document = await this.repository.report(report, now);
    // createdAt is the report's time only for the insight the report created.
    if (document.createdAt instanceof Date && document.createdAt.getTime() === now.getTime())
      await this.events.record(insightEvent(document, { event: 'created', at: now }));
    return document;
  }

  async record(input: RecordInsightInput): Promise<AgentInsight> {
    const insight = checkInsightText(input.insight, 'input.insight');
    const userId = checkScopeId(input.userId, 'input.userId');
    const agentId = checkScopeId(input.agentId, 'input.agentId');
    if (input.confidence != null) checkUnitInterval(input.confidence, 'input.confidence');
    (input.evidence ?? []).forEach((piece, i) => {
      if (!piece.taskId.trim()) throw new ValidationError('taskId must not be blank.', `input.evidence.${i}.taskId`);
    });
    const now = new Date();
    const expiresAt = expiryOf(input, now);
    const validFrom = input.validFrom ?? now;
    if (input.validUntil != null && !(input.validUntil.getTime() > validFrom.getTime()))
      throw new ValidationError('input.validUntil must be after validFrom.', 'input.validUntil');
    const document = await this.report(
      {
        validFrom,
        validUntil: input.validUntil ?? null,
        agentType: input.agentType,
        userId,
        agentId,
        type: input.type,
        insight,
        initialConfidence: input.confidence ?? INITIAL_CONFIDENCE,
        evidence: distinctEvidence(input.evidence ?? []),
        expiresAt,
      },
      now,
    );
    return toAgentInsight(document);
  }

  /** Refuses (CONFLICT naming the stored field) when an insight `recordFromTask` would reinforce is damaged. */
  async checkReportable(
    agentType: AgentType,
    type: InsightType,
    texts: readonly string[],
    scope: InsightScope = {},
  ): Promise<void> {
    const damage = await this.repository.reportDamage(
      texts.map((text) => insightId(agentType, type, insightKey(text), scope)),
    );
    if (damage) throw damage;
  }

  /**
   * Stores the insights of one task (already checked; repeated texts count once), each with the task as evidence, in
   * the task's scope (its user). Returns how many distinct insights were stored.
   */
  async recordFromTask(
    agentType: AgentType,
    type: InsightType,
    texts: readonly string[],
    evidence: EvidenceDocument,
    scope: InsightScope = {},
  ): Promise<number> {
    const distinct = [...new Map(texts.map((text) => [insightKey(text), text])).values()];
    const now = new Date();
    const reports: InsightReport[] = distinct.map((insight) => ({
      agentType,
      ...scope,
      type,
      insight,
      initialConfidence: INITIAL_CONFIDENCE,
      evidence: [evidence],
    }));
    await Promise.all(reports.map((report) => this.report(report, now)));
    return reports.length;
  }

  async list(args: AgentInsightsArgs): Promise<AgentInsightsResult> {
    if (!Number.isInteger(args.limit) || args.limit < 1 || args.limit > MAX_INSIGHTS_LIMIT) {
      throw new ValidationError(`limit must be an integer from 1 to ${MAX_INSIGHTS_LIMIT}.`, 'limit');
    }
    checkUnitInterval(args.minConfidence, 'minConfidence');
    const userId = checkScopeId(args.userId, 'userId');
    const agentId = checkScopeId(args.agentId, 'agentId');
    const documents = await this.repository.find(
      bothFilters(
        {
          ...(userId !== undefined ? { userId } : {}),
          ...(agentId !== undefined ? { agentId } : {}),
          agentType: args.agentType,
          ...(args.insightType != null ? { type: args.insightType } : {}),
          ...(args.minConfidence > 0 ? { confidence: { $gte: args.minConfidence } } : {}),
        },
        validityQuery(INSIGHT_VALIDITY, args, new Date(), insightRecordedBy),
      ),
      args.limit,
    );
    const insights = documents.map(toAgentInsight);
    return { insights, count: insights.length };
  }

  /**
   * Judges an insight. With an idempotency key, a retry answers with the insight as it is and judges nothing again
   * (the confidence changes once, also after a crash between the update and the key being marked done).
   */
  async validate(id: string, valid: boolean, idempotencyKey?: string | null): Promise<AgentInsight> {
    return this.idempotency.run({
      key: idempotencyKey,
      operation: 'validateInsight',
      input: { id, valid },
      plan: () => ({ writeId: randomUUID(), now: new Date() }),
      perform: async (plan) => {
        const writeId = idempotencyKey == null ? null : plan.writeId;
        const at = new Date(plan.now);
        const result = await this.repository.validate(id, valid, at, writeId);
        const document = this.found(id, result?.document ?? null);
        // A retry that found the validation applied already does not record it again.
        if (result?.judged) await this.events.record(insightEvent(document, { event: 'feedback', at }));
        return toAgentInsight(document);
      },
    });
  }

  async delete(id: string): Promise<AgentInsight> {
    return toAgentInsight(this.found(id, await this.repository.delete(id)));
  }

  private found(id: string, document: AgentInsightDocument | null): AgentInsightDocument {
    if (!document) throw new NotFoundError(`No insight with id ${JSON.stringify(id)}.`, { insightId: id });
    return document;
  }
}

/** A history event of the insight, with its scope (user, agent) copied. */
function insightEvent(
  document: AgentInsightDocument,
  what: Pick<MemoryEventInput, 'event'> & Partial<MemoryEventInput>,
): MemoryEventInput {
  return { kind: 'insight', memory_id: document.insightId, ...insightScope(document as unknown as Document), ...what };
}
