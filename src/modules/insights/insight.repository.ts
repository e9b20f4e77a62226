import { createHash } from 'node:crypto';
import type { Collection, Db, Document, Filter } from 'mongodb';
import { ConflictError, isDuplicateKeyError } from '../../errors';
import { REPAIR_ADVICE, storedDamage, type StoredKind } from '../shared/stored-damage';
import { markApplied, notApplied } from '../shared/idempotency';
import { INSIGHT_VALIDITY, currentAt, insightScope, restoreEnd } from '../shared/validity.filter';
import type { MemoryEnd, MemoryState } from '../shared/validity.filter';
import {
  AGENT_INSIGHTS_COLLECTION,
  type AgentInsightDocument,
  type AgentType,
  type EvidenceDocument,
  type InsightType,
} from './insight.document';
import type { MemoryScope } from '../shared/memory-scope';

/** The insights of a forget scope: a user's (`userId`) or an agent's (`agentId`); insights record no session. */
function scopeQuery({ kind, value }: MemoryScope): Filter<AgentInsightDocument> | null {
  if (kind === 'sessionId') return null;
  return { [kind]: value } as Filter<AgentInsightDocument>;
}

/** What forgetting needs of an insight: its id and text, the keyed writes applied to it, the tasks of its evidence. */
export type ForgottenInsight = Pick<
  AgentInsightDocument,
  'insightId' | 'insight' | 'evidenceCount' | 'appliedWrites'
> & {
  evidence?: Array<Pick<EvidenceDocument, 'taskId'>>;
};

const FORGOTTEN_FIELDS = { _id: 0, insightId: 1, insight: 1, evidenceCount: 1, appliedWrites: 1, 'evidence.taskId': 1 };

/**
 * Confidence rules (documented in the README):
 * - a new insight starts at the confidence it is recorded with, by default INITIAL_CONFIDENCE;
 * - each further task supporting it (evidence with a taskId it does not hold yet) closes REINFORCEMENT of the
 *   gap to 1: c ← 1 − (1 − c) × (1 − REINFORCEMENT);
 * - validateInsight(valid: true) reinforces it the same way; valid: false multiplies it by REFUTATION_FACTOR.
 */
export const INITIAL_CONFIDENCE = 0.5;
export const REINFORCEMENT = 0.25;
export const REFUTATION_FACTOR = 0.5;
/** Evidence kept per insight (the latest); `evidenceCount` counts all. */
export const MAX_EVIDENCE = 20;
const UPSERT_ATTEMPTS = 3;

/** The text an insight is deduplicated by: lower case, whitespace collapsed. */
export function insightKey(insight: string): string {
  return insight.toLowerCase().replace(/\s+/g, ' ').trim();
}

/** Whom an insight is about: an end user and/or one agent; absent parts are unscoped. */
export interface InsightScope {
  userId?: string | null;
  agentId?: string | null;
}

/**
 * The id of an insight: derived from (agent, type, key) and its scope, so concurrent reports of one insight meet in one
 * document, and the same text for two users (or agents) is two insights. An unscoped insight keeps the id it always had.
 */
export function insightId(agentType: AgentType, type: InsightType, key: string, scope: InsightScope = {}): string {
  const userId = scope.userId ?? null;
  const agentId = scope.agentId ?? null;
  // JSON keeps the parts apart whatever characters the ids hold.
  const scoped = userId === null && agentId === null ? '' : `\0${JSON.stringify([userId, agentId])}`;
  return `ins_${createHash('sha256').update(`${agentType}\0${type}\0${key}${scoped}`).digest('hex').slice(0, 24)}`;
}

/** Whether `id` has the shape `insightId` gives (such ids are also the insights' global ids, see `node(id)`). */
export function isInsightId(id: string): boolean {
  return /^ins_[0-9a-f]{24}$/.test(id);
}

export interface InsightReport extends InsightScope {
  /** Validity of a new insight (ignored for a known one): default from the time of the report, open. */
  validFrom?: Date | null;
  validUntil?: Date | null;
  agentType: AgentType;
  type: InsightType;
  insight: string;
  /** Used only when the insight is new. */
  initialConfidence: number;
  /** Distinct by taskId. */
  evidence: EvidenceDocument[];
  /** The insight's new expiry (the TTL index deletes it then); absent: its expiry, if any, is kept. */
  expiresAt?: Date;
}

/**
 * The update pipeline of one report (with upsert): evidence from tasks the insight does not hold yet is appended,
 * and each such task reinforces the confidence of a known insight.
 */
export function insightReportPipeline(report: InsightReport, now: Date): Document[] {
  const key = insightKey(report.insight);
  return [
    {
      $set: {
        _known: { $ne: [{ $type: '$createdAt' }, 'missing'] },
        _new: {
          $filter: {
            input: { $literal: report.evidence },
            as: 'piece',
            cond: { $not: [{ $in: ['$$piece.taskId', { $ifNull: ['$evidence.taskId', []] }] }] },
          },
        },
      },
    },
    {
      $set: {
        insightId: { $literal: insightId(report.agentType, report.type, key, report) },
        agentType: { $literal: report.agentType },
        ...(report.userId != null ? { userId: { $literal: report.userId } } : {}),
        ...(report.agentId != null ? { agentId: { $literal: report.agentId } } : {}),
        type: { $literal: report.type },
        key: { $literal: key },
        insight: { $ifNull: ['$insight', { $literal: report.insight }] },
        createdAt: { $ifNull: ['$createdAt', now] },
        lastValidated: { $ifNull: ['$lastValidated', null] },
        // A known insight keeps its validity (one stored before validity existed is valid since it was created).
        validFrom: { $ifNull: ['$validFrom', { $cond: ['$_known', '$createdAt', report.validFrom ?? now] }] },
        validUntil: { $ifNull: ['$validUntil', { $cond: ['$_known', null, report.validUntil ?? null] }] },
        confidence: {
          $cond: [
            '$_known',
            {
              $subtract: [
                1,
                { $multiply: [{ $subtract: [1, '$confidence'] }, { $pow: [1 - REINFORCEMENT, { $size: '$_new' }] }] },
              ],
            },
            report.initialConfidence,
          ],
        },
        evidence: { $slice: [{ $concatArrays: [{ $ifNull: ['$evidence', []] }, '$_new'] }, -MAX_EVIDENCE] },
        evidenceCount: { $add: [{ $ifNull: ['$evidenceCount', 0] }, { $size: '$_new' }] },
        ...(report.expiresAt ? { expiresAt: { $literal: report.expiresAt } } : {}),
      },
    },
    { $unset: ['_known', '_new'] },
  ];
}

/** The stored fields a report's update pipeline builds on. */
const REPORTED_FIELDS: Record<string, StoredKind> = { confidence: 'number', evidence: 'list', evidenceCount: 'number' };

/** A stored confidence a judgement can build on: a number from 0 to 1 (not NaN, a text, a list or missing). */
const JUDGEABLE: Document = {
  $expr: { $and: [{ $isNumber: '$confidence' }, { $gte: ['$confidence', 0] }, { $lte: ['$confidence', 1] }] },
};

/** What the lifecycle reads of an insight: its validity and the scope its events copy. */
const STATE_FIELDS = {
  _id: 0,
  insightId: 1,
  validFrom: 1,
  validUntil: 1,
  supersededBy: 1,
  endedReason: 1,
  // Past it the insight is no longer current (supersede checks its replacement by these fields).
  expiresAt: 1,
  userId: 1,
  agentId: 1,
} as const;

function insightState(document: Document): MemoryState {
  return {
    id: document.insightId as string,
    stored: document,
    scope: insightScope(document),
  };
}

/** `asOf`: recorded (created) by then. */
export function insightRecordedBy(asOf: Date): Filter<AgentInsightDocument> {
  return { createdAt: { $lte: asOf } };
}

/** The only code touching `agent_insights`. */
export class AgentInsightRepository {
  private readonly collection: Collection<AgentInsightDocument>;

  constructor(db: Db) {
    this.collection = db.collection<AgentInsightDocument>(AGENT_INSIGHTS_COLLECTION);
  }

  /** Applies one report in one atomic update, creating the insight; returns it after the update. */
  async report(report: InsightReport, now: Date): Promise<AgentInsightDocument> {
    const id = insightId(report.agentType, report.type, insightKey(report.insight), report);
    for (let attempt = 1; ; attempt++) {
      try {
        const updated = await this.collection.findOneAndUpdate({ insightId: id }, insightReportPipeline(report, now), {
          upsert: true,
          returnDocument: 'after',
        });
        return updated!;
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw (await this.reportDamage([id])) ?? error;
        // Lost the insert race to a concurrent first report of the same insight: the retry updates its document.
        if (attempt === UPSERT_ATTEMPTS) throw error;
      }
    }
  }

  /** Why a report on one of these insights would fail: a stored field it builds on is damaged (CONFLICT); else null. */
  reportDamage(insightIds: readonly string[]): Promise<ConflictError | null> {
    return storedDamage(this.collection, { insightId: { $in: [...insightIds] } }, REPORTED_FIELDS, {
      key: 'insightId',
      name: (id) => `insight ${JSON.stringify(id)}`,
    });
  }

  /**
   * Reinforces (valid) or weakens (not valid) an insight and stamps lastValidated; null when it does not exist. A stored
   * confidence it cannot build on (not a number from 0 to 1) or a damaged `appliedWrites` is a CONFLICT naming the
   * field, and nothing is written: the condition is part of the one atomic update.
   *
   * With a `writeId` (a keyed call), a validation already applied under that id is not applied again: the insight is
   * returned as it is (`judged` false).
   */
  async validate(
    id: string,
    valid: boolean,
    now: Date,
    writeId: string | null = null,
  ): Promise<{ document: AgentInsightDocument; judged: boolean } | null> {
    const confidence = valid
      ? { $subtract: [1, { $multiply: [{ $subtract: [1, '$confidence'] }, 1 - REINFORCEMENT] }] }
      : { $multiply: ['$confidence', REFUTATION_FACTOR] };
    const pipeline: Document[] = [{ $set: { confidence, lastValidated: now } }];
    if (writeId !== null) pipeline.push(markApplied(writeId));
    const filter = { insightId: id, ...JUDGEABLE, ...(writeId !== null ? notApplied(writeId) : {}) };
    let updated: AgentInsightDocument | null;
    try {
      updated = await this.collection.findOneAndUpdate(filter, pipeline, { returnDocument: 'after' });
    } catch (error) {
      throw (await this.judgementDamage(id)) ?? error;
    }
    if (updated) return { document: updated, judged: true };
    // Matched nothing: applied before (a retry), no such insight, or a confidence it cannot build on.
    const applied = writeId === null ? null : await this.collection.findOne({ insightId: id, appliedWrites: writeId });
    if (applied) return { document: applied, judged: false };
    const damage = await this.judgementDamage(id);
    if (damage) throw damage;
    return null;
  }

  /** Why a judgement of the insight would fail: a stored field it builds on is damaged (CONFLICT); else null. */
  private async judgementDamage(id: string): Promise<ConflictError | null> {
    const name = `insight ${JSON.stringify(id)}`;
    const stored = await this.collection.findOne({ insightId: id }, { projection: { confidence: 1 } });
    const confidence: unknown = stored?.confidence;
    if (stored && !(typeof confidence === 'number' && confidence >= 0 && confidence <= 1)) {
      return new ConflictError(
        `The stored confidence of ${name} is not a number from 0 to 1, so nothing was written; ${REPAIR_ADVICE}`,
        { storedField: 'confidence' },
      );
    }
    return storedDamage(this.collection, { insightId: id }, { appliedWrites: 'list' }, name);
  }

  /** The lifecycle states of the insights of `ids` that exist, in any order. */
  async states(ids: readonly string[]): Promise<MemoryState[]> {
    const rows = await this.collection.find({ insightId: { $in: [...ids] } }, { projection: STATE_FIELDS }).toArray();
    return rows.map(insightState);
  }

  /**
   * Ends the insight if it is current at `end.at` (one conditional update: of two concurrent ends one wins). Returns
   * it after the update, or null when it was not current (or does not exist).
   */
  endIfCurrent(id: string, end: MemoryEnd): Promise<AgentInsightDocument | null> {
    return this.collection.findOneAndUpdate(
      { insightId: id, ...currentAt(INSIGHT_VALIDITY, end.at) },
      {
        $set: {
          validUntil: end.at,
          endedReason: end.reason,
          ...(end.supersededBy !== null ? { supersededBy: end.supersededBy } : {}),
        },
      },
      { returnDocument: 'after' },
    );
  }

  /** Undoes `endIfCurrent` (when the replacement ended meanwhile), restoring what the insight stored before. */
  async undoEnd(id: string, end: MemoryEnd, before: MemoryState): Promise<void> {
    await this.collection.updateOne(
      { insightId: id, validUntil: end.at, supersededBy: end.supersededBy },
      restoreEnd(INSIGHT_VALIDITY, before.stored),
    );
  }

  /** The insights that `ids` replaced (supersededBy one of them), oldest end first. */
  findSupersededBy(ids: readonly string[]): Promise<AgentInsightDocument[]> {
    return this.collection
      .find({ supersededBy: { $in: [...ids] } })
      .sort({ validUntil: 1, insightId: 1 })
      .toArray();
  }

  delete(id: string): Promise<AgentInsightDocument | null> {
    return this.collection.findOneAndDelete({ insightId: id });
  }

  /** The insights of the ids (those that exist), in any order: one read. */
  findByIds(ids: readonly string[]): Promise<AgentInsightDocument[]> {
    return this.collection.find({ insightId: { $in: [...ids] } }).toArray();
  }

  /** The most confident insights matching `filter` (newest first among equals). */
  find(filter: Filter<AgentInsightDocument>, limit: number): Promise<AgentInsightDocument[]> {
    return this.collection.find(filter).sort({ confidence: -1, createdAt: -1, insightId: 1 }).limit(limit).toArray();
  }

  /** The insights of a forget scope. */
  findByScope(scope: MemoryScope): Promise<ForgottenInsight[]> {
    const query = scopeQuery(scope);
    if (!query) return Promise.resolve([]);
    return this.collection.find<ForgottenInsight>(query, { projection: FORGOTTEN_FIELDS }).toArray();
  }

  /** Deletes the insights of a forget scope (one deleteMany); returns how many. */
  async forgetScope(scope: MemoryScope): Promise<number> {
    const query = scopeQuery(scope);
    return query ? (await this.collection.deleteMany(query)).deletedCount : 0;
  }

  /** Insights with evidence from any of the tasks (reported by learnFromTask: the evidence quotes the task's goal). */
  findEvidenceOf(taskIds: readonly string[]): Promise<ForgottenInsight[]> {
    if (!taskIds.length) return Promise.resolve([]);
    return this.collection
      .find<ForgottenInsight>({ 'evidence.taskId': { $in: [...taskIds] } }, { projection: FORGOTTEN_FIELDS })
      .toArray();
  }

  /**
   * Deletes the insights `deleteIds` and takes the tasks' evidence out of every other insight, lowering its
   * evidenceCount by what was taken (one deleteMany, one updateMany); returns how many were deleted and changed.
   */
  async forgetEvidence(
    taskIds: readonly string[],
    deleteIds: readonly string[],
  ): Promise<{ deleted: number; changed: number }> {
    if (!taskIds.length) return { deleted: 0, changed: 0 };
    const deleted = deleteIds.length
      ? (await this.collection.deleteMany({ insightId: { $in: [...deleteIds] } })).deletedCount
      : 0;
    const forgotten = { $in: ['$$this.taskId', { $literal: [...taskIds] }] };
    const changed = await this.collection.updateMany({ 'evidence.taskId': { $in: [...taskIds] } }, [
      {
        $set: {
          evidenceCount: {
            $max: [
              0,
              { $subtract: ['$evidenceCount', { $size: { $filter: { input: '$evidence', cond: forgotten } } }] },
            ],
          },
          evidence: { $filter: { input: '$evidence', cond: { $not: [forgotten] } } },
        },
      },
    ]);
    return { deleted, changed: changed.modifiedCount };
  }
}
