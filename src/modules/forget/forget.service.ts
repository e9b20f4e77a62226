import { createHash } from 'node:crypto';
import type { Db } from 'mongodb';
import type { AppDeps } from '../../app';
import type { Caller } from '../../auth/caller';
import { sameEmbeddingModel } from '../../embeddings/model-check';
import { fromStoredVector, toStoredVector } from '../../embeddings/vectors';
import { EXPERIENCES_COLLECTION } from '../experiences/experience.document';
import { ExperienceRepository } from '../experiences/experience.repository';
import { MEMORY_EVENTS_COLLECTION } from '../history/memory-event.document';
import { MESSAGE_INDEX_COLLECTION } from '../messages/message.document';
import { MessageIndexRepository } from '../messages/message.repository';
import { MemoryEventRepository, type ErasedMemories } from '../history/memory-event.repository';
import { AGENT_INSIGHTS_COLLECTION } from '../insights/insight.document';
import { AgentInsightRepository, type ForgottenInsight } from '../insights/insight.repository';
import { PLAN_PATTERNS_COLLECTION } from '../plans/plan.document';
import { PlanPatternRepository } from '../plans/plan.repository';
import { PLAN_GOAL_SPACE } from '../plans/plan.spaces';
import { SESSIONS_COLLECTION } from '../sessions/session.document';
import { SessionRepository, type SessionsInScope } from '../sessions/session.repository';
import { IDEMPOTENCY_COLLECTION } from '../shared/idempotency.document';
import { IdempotencyRepository, type PlannedWrites } from '../shared/idempotency.repository';
import { TASKS_COLLECTION, type TaskDocument } from '../tasks/task.document';
import { TaskRepository, type ForgottenTask } from '../tasks/task.repository';
import { TOOL_PERFORMANCE_COLLECTION } from '../tools/tool.document';
import { ToolPerformanceRepository } from '../tools/tool.repository';
import type { ForgetScope } from './forget.input';
import type { MemoryScope } from '../shared/memory-scope';
import { ForgetScopeKind, type ForgetCount, type ForgetReport } from './forget.type';
import { checkScope } from './forget.validation';

/** The collections a report lists, in its order. */
const COLLECTIONS = [
  SESSIONS_COLLECTION,
  MESSAGE_INDEX_COLLECTION,
  EXPERIENCES_COLLECTION,
  TASKS_COLLECTION,
  AGENT_INSIGHTS_COLLECTION,
  PLAN_PATTERNS_COLLECTION,
  TOOL_PERFORMANCE_COLLECTION,
  MEMORY_EVENTS_COLLECTION,
  IDEMPOTENCY_COLLECTION,
] as const;

/** Search removals between two turns of the event loop, so that searches keep answering during a large forget. */
const REMOVALS_PER_TURN = 2_000;

/** Lets other requests run between the bulk steps of a forget. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Everything a forget erases, found before anything is written (a dry run answers from it). */
interface Survey {
  sessions: SessionsInScope;
  /** The message index's entries of the scope's messages. */
  messageKeys: string[];
  experienceIds: string[];
  tasks: ForgottenTask[];
  insights: ForgottenInsight[];
  /** Insights that evidence from the forgotten tasks alone supports (deleted), and those it only helps (changed). */
  evidence: { deleteIds: string[]; changeIds: string[]; texts: string[] };
  /** Plan patterns learned only from forgotten tasks (deleted), and shared ones keeping a forgotten goal or issue. */
  patterns: { orphaned: string[]; examples: Map<string, TaskDocument>; withIssues: string[] };
  /** Tool contexts only the forgotten tasks had. */
  contexts: string[];
}

/**
 * `forget`: erases everything of one user, session or agent, in every collection, the search spaces, idempotency
 * records, history and what was learned from it (docs/lifecycle.md says what stays and why). Each collection is one
 * bulk write; nothing is read document by document. On the embedded engine the data directory and the search
 * snapshots are rewritten before it answers, so no file under DATA_DIR holds what it erased.
 */
export class ForgetService {
  private readonly sessions: SessionRepository;
  private readonly messages: MessageIndexRepository;
  private readonly experiences: ExperienceRepository;
  private readonly tasks: TaskRepository;
  private readonly insights: AgentInsightRepository;
  private readonly plans: PlanPatternRepository;
  private readonly tools: ToolPerformanceRepository;
  private readonly events: MemoryEventRepository;
  private readonly idempotency: IdempotencyRepository;

  constructor(
    private readonly db: Db,
    private readonly deps: AppDeps,
    private readonly caller: Caller,
  ) {
    this.sessions = new SessionRepository(db);
    this.messages = new MessageIndexRepository(db);
    this.experiences = new ExperienceRepository(db);
    this.tasks = new TaskRepository(db);
    this.insights = new AgentInsightRepository(db);
    this.plans = new PlanPatternRepository(db);
    this.tools = new ToolPerformanceRepository(db);
    this.events = new MemoryEventRepository(db, caller);
    this.idempotency = new IdempotencyRepository(db);
  }

  async forget(input: ForgetScope, dryRun: boolean): Promise<ForgetReport> {
    const scope = checkScope(input);
    const survey = await this.survey(scope);
    const report = dryRun ? await this.count(scope, survey) : await this.erase(scope, survey);
    this.deps.logger.info('forget', {
      scope: scope.kind,
      // Never the value: the log must not name whom it erased, only let an operator match a request they hold.
      scopeHash: createHash('sha256').update(scope.value).digest('hex').slice(0, 16),
      dryRun,
      tenant: this.caller.tenant,
      keyId: this.caller.keyId,
      counts: Object.fromEntries(
        report.counts.map(
          ({ collection, ...counts }) => [collection, counts] as [string, Omit<ForgetCount, 'collection'>],
        ),
      ),
      searchEntriesRemoved: report.searchEntriesRemoved,
      erasedFromDisk: report.erasedFromDisk,
    });
    return report;
  }

  /** Finds what the scope holds and what was derived from it (reads only). */
  private async survey(scope: MemoryScope): Promise<Survey> {
    // A user's sessions first: the experiences recorded in them are the user's too.
    const sessions = await this.sessions.countByScope(scope);
    const [messageKeys, experienceIds, tasks, insights] = await Promise.all([
      this.messages.keysInScope(scope, sessions.sessionIds),
      this.experiences.idsByScope(scope, sessions.sessionIds),
      this.tasks.findByScope(scope),
      this.insights.findByScope(scope),
    ]);
    const taskIds = tasks.map((task) => task.taskId);
    const forgottenTask = new Set(taskIds);
    const scoped = new Set(insights.map((insight) => insight.insightId));

    const evidence: Survey['evidence'] = { deleteIds: [], changeIds: [], texts: [] };
    for (const insight of await this.insights.findEvidenceOf(taskIds)) {
      // The scope's own insights go anyway; their texts still leave the plans' issues they were learned into.
      if (scoped.has(insight.insightId)) {
        evidence.texts.push(insight.insight);
        continue;
      }
      const kept = insight.evidence ?? [];
      // Only the latest evidence is kept: a count above it means tasks no longer listed supported it too.
      const onlyForgotten =
        kept.every((item) => forgottenTask.has(item.taskId)) && insight.evidenceCount <= kept.length;
      if (onlyForgotten) {
        evidence.deleteIds.push(insight.insightId);
        evidence.texts.push(insight.insight);
      } else evidence.changeIds.push(insight.insightId);
    }

    const named = [
      ...new Set(tasks.flatMap((task) => [task.learning?.result?.patternId, task.planId, task.patternId])),
    ].filter((id): id is string => typeof id === 'string');
    const [stored, users] = await Promise.all([
      this.plans.findExamples(named),
      this.tasks.patternUsers(named, taskIds),
    ]);
    const forgottenGoals = new Set(tasks.map((task) => task.goal));
    const issueTexts = new Set(evidence.texts);
    const patterns: Survey['patterns'] = { orphaned: [], examples: new Map(), withIssues: [] };
    for (const pattern of stored) {
      const user = users.get(pattern.patternId);
      if (!user) patterns.orphaned.push(pattern.patternId);
      else {
        if (forgottenGoals.has(pattern.exampleGoal)) patterns.examples.set(pattern.patternId, user);
        const issues = [...(pattern.commonIssues ?? []), ...(pattern.issues ?? []).map((entry) => entry.issue)];
        if (issues.some((issue) => issueTexts.has(issue))) patterns.withIssues.push(pattern.patternId);
      }
    }

    // A learned run counts its tools under the task's context, else its goal pattern (task.learning.service.ts).
    const candidates = [
      ...new Set(tasks.filter((task) => task.learning?.done?.tools).map((task) => task.context ?? task.goalPattern)),
    ].filter((context): context is string => typeof context === 'string');
    const inUse = await this.tasks.contextsInUse(candidates, taskIds);
    const contexts = candidates.filter((context) => !inUse.has(context));

    return { sessions, messageKeys, experienceIds, tasks, insights, evidence, patterns, contexts };
  }

  /** The memories whose history goes, by kind. */
  private erasedMemories(survey: Survey): ErasedMemories {
    return {
      experience: survey.experienceIds,
      insight: [...survey.insights.map((insight) => insight.insightId), ...survey.evidence.deleteIds],
      session: survey.sessions.sessionIds,
    };
  }

  /** The idempotency plans to delete: those naming an erased document or a keyed write applied to one. */
  private plannedWrites(scope: MemoryScope, survey: Survey): PlannedWrites {
    const sessionIds = [...survey.sessions.sessionIds];
    // The session may be gone already while a record of its creation remains.
    if (scope.kind === 'sessionId' && !sessionIds.includes(scope.value)) sessionIds.push(scope.value);
    return {
      experienceIds: survey.experienceIds,
      taskIds: survey.tasks.map((task) => task.taskId),
      sessionIds,
      writeIds: [
        ...survey.sessions.writeIds,
        ...survey.tasks.flatMap((task) => (task.applied_actions ?? []).map((applied) => applied.write_id)),
        ...survey.insights.flatMap((insight) => insight.appliedWrites ?? []),
      ],
    };
  }

  /** The search entries of erased documents, by space: every space over an erased document's collection. */
  private searchEntries(survey: Survey): Array<{ space: string; ids: readonly string[] }> {
    const erased = new Map<string, readonly string[]>([
      [MESSAGE_INDEX_COLLECTION, survey.messageKeys],
      [EXPERIENCES_COLLECTION, survey.experienceIds],
      [TASKS_COLLECTION, survey.tasks.map((task) => task.taskId)],
      [AGENT_INSIGHTS_COLLECTION, this.erasedMemories(survey).insight],
      [PLAN_PATTERNS_COLLECTION, survey.patterns.orphaned],
    ]);
    return this.deps.search.spaces.map((space) => ({ space: space.name, ids: erased.get(space.collection) ?? [] }));
  }

  private async count(scope: MemoryScope, survey: Survey): Promise<ForgetReport> {
    const { sessions, evidence, patterns } = survey;
    const [events, idempotency, tools] = await Promise.all([
      this.events.countByScope(scope, this.erasedMemories(survey)),
      this.idempotency.countPlansNaming(this.plannedWrites(scope, survey)),
      this.tools.forgetTaskTraces(
        survey.tasks.map((task) => task.taskId),
        survey.contexts,
        true,
      ),
    ]);
    return report(scope, true, false, this.searchEntries(survey), {
      [SESSIONS_COLLECTION]: {
        deleted: sessions.sessionIds.length,
        changed: sessions.changed,
        messages: sessions.messages,
      },
      [MESSAGE_INDEX_COLLECTION]: { deleted: survey.messageKeys.length },
      [EXPERIENCES_COLLECTION]: { deleted: survey.experienceIds.length },
      [TASKS_COLLECTION]: { deleted: survey.tasks.length },
      [AGENT_INSIGHTS_COLLECTION]: {
        deleted: survey.insights.length + evidence.deleteIds.length,
        changed: evidence.changeIds.length,
      },
      [PLAN_PATTERNS_COLLECTION]: {
        deleted: patterns.orphaned.length,
        changed: new Set([...patterns.examples.keys(), ...patterns.withIssues]).size,
      },
      [TOOL_PERFORMANCE_COLLECTION]: { changed: tools },
      [MEMORY_EVENTS_COLLECTION]: { deleted: events },
      [IDEMPOTENCY_COLLECTION]: { deleted: idempotency },
    });
  }

  private async erase(scope: MemoryScope, survey: Survey): Promise<ForgetReport> {
    const taskIds = survey.tasks.map((task) => task.taskId);
    // Messages this process appended before are indexed first, so that none is indexed after its entries are erased.
    await this.deps.messageIndex.forDb(this.db).settled();
    const sessions = await this.sessions.forgetScope(scope);
    const messages = await this.messages.forgetScope(scope, survey.sessions.sessionIds);
    await nextTurn();
    const experiences = await this.experiences.forgetScope(scope, survey.sessions.sessionIds);
    await nextTurn();
    const tasks = await this.tasks.forgetScope(scope);
    const insights = await this.insights.forgetScope(scope);
    const evidence = await this.insights.forgetEvidence(taskIds, survey.evidence.deleteIds);
    await nextTurn();
    const plans = await this.erasePatternTraces(survey);
    const tools = await this.tools.forgetTaskTraces(taskIds, survey.contexts, false);
    const events = await this.events.forgetScope(scope, this.erasedMemories(survey));
    const idempotency = await this.idempotency.forgetPlansNaming(this.plannedWrites(scope, survey));
    await nextTurn();

    const entries = this.searchEntries(survey);
    const index = this.deps.search.forDb(this.db);
    let removals = 0;
    for (const { space, ids } of entries) {
      for (const id of ids) {
        index.remove(space, id);
        if (++removals % REMOVALS_PER_TURN === 0) await nextTurn();
      }
    }
    const erasedFromDisk = await this.eraseFromDisk();

    return report(scope, false, erasedFromDisk, entries, {
      [SESSIONS_COLLECTION]: { ...sessions, messages: survey.sessions.messages },
      [MESSAGE_INDEX_COLLECTION]: { deleted: messages },
      [EXPERIENCES_COLLECTION]: { deleted: experiences },
      [TASKS_COLLECTION]: { deleted: tasks },
      [AGENT_INSIGHTS_COLLECTION]: { deleted: insights + evidence.deleted, changed: evidence.changed },
      [PLAN_PATTERNS_COLLECTION]: plans,
      [TOOL_PERFORMANCE_COLLECTION]: { changed: tools },
      [MEMORY_EVENTS_COLLECTION]: { deleted: events },
      [IDEMPOTENCY_COLLECTION]: { deleted: idempotency },
    });
  }

  /**
   * Deletes the patterns learned only from forgotten tasks; a shared pattern whose example was a forgotten goal takes
   * the goal (and vector) of a task that remains, and loses the issues that only forgotten runs' insights reported.
   */
  private async erasePatternTraces({ patterns, evidence }: Survey): Promise<{ deleted: number; changed: number }> {
    const deleted = await this.plans.forgetPatterns(patterns.orphaned);
    const index = this.deps.search.forDb(this.db);
    const model = this.deps.embedder.signature;
    for (const [patternId, task] of patterns.examples) {
      const stored =
        task.embedding_model && sameEmbeddingModel(task.embedding_model, model)
          ? fromStoredVector(task.embeddings?.goal_embedding)
          : null;
      const vector = stored ?? (await this.deps.embedder.embedOne(task.goal));
      if (await this.plans.replaceExample(patternId, task.goal, toStoredVector(vector), model))
        index.upsert(PLAN_GOAL_SPACE.name, patternId, vector, task.goal);
    }
    await this.plans.forgetIssues(patterns.withIssues, evidence.texts);
    return { deleted, changed: new Set([...patterns.examples.keys(), ...patterns.withIssues]).size };
  }

  /**
   * Rewrites the search snapshots without the removed entries, and on the embedded engine its data directory
   * (`compact`): true once no file under DATA_DIR holds what was erased. A failure leaves the data erased from the
   * database and is logged; the engine's next compaction (and the next search save) finishes the job.
   */
  private async eraseFromDisk(): Promise<boolean> {
    try {
      await this.deps.search.saveOrFail();
      if (this.deps.database.kind !== 'EMBEDDED') return false;
      // The app's own handle, not the request's: a compaction is not cut short by the request's deadline.
      await this.deps.database.db.command({ compact: MEMORY_EVENTS_COLLECTION });
      return true;
    } catch (error) {
      this.deps.logger.warn('forget: the files could not be rewritten yet', {
        error: error instanceof Error ? error.message : String(error),
      });
      return false;
    }
  }
}

interface Counted {
  deleted?: number;
  changed?: number;
  messages?: number;
}

function report(
  scope: MemoryScope,
  dryRun: boolean,
  erasedFromDisk: boolean,
  entries: Array<{ ids: readonly string[] }>,
  counted: Partial<Record<(typeof COLLECTIONS)[number], Counted>>,
): ForgetReport {
  return {
    scope: scope.kind as ForgetScopeKind,
    dryRun,
    erasedFromDisk,
    searchEntriesRemoved: entries.reduce((sum, entry) => sum + entry.ids.length, 0),
    counts: COLLECTIONS.map((collection) => ({
      collection,
      deleted: counted[collection]?.deleted ?? 0,
      changed: counted[collection]?.changed ?? 0,
      messagesRemoved: counted[collection]?.messages ?? 0,
    })),
  };
}
