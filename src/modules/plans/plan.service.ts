import type { Db, Document, Filter } from 'mongodb';
import type { AppDeps } from '../../app';
import { ValidationError } from '../../errors';
import type { VectorModelCheck } from '../shared/reembed-target';
import { forwardPage, type Connection, type SortKey } from '../shared/connection';
import { StoredReader } from '../shared/stored-values';
import { checkScopeId } from '../shared/user-scope';
import { goalPattern, goalPatternScore, unifiablePrefixes } from './plan.goal-pattern';
import type { PlanPatternsArgs, SuccessfulPlansArgs } from './plan.input';
import type { PlanLoaders } from './plan.loaders';
import { MIN_PLAN_MATCH, rankPlan, textSimilarity } from './plan.ranking';
import { boundedFactor } from '../../search/ranking';
import { rankingWeights } from '../shared/ranking.input';
import { PLAN_GOAL_SPACE, PLAN_PATTERNS_REEMBED_TARGET } from './plan.spaces';
import { PLAN_PATTERNS_COLLECTION, type PlanPatternDocument, type UserPlanRuns } from './plan.document';
import { COMMON_ISSUES_LIMIT, PlanPatternRepository } from './plan.repository';
import {
  toPlanPattern,
  toPlanSteps,
  type PlanPattern,
  type SuccessfulPlan,
  type SuccessfulPlansResult,
} from './plan.type';

export const MAX_PLANS_LIMIT = 100;
/** Candidates fetched from each list (semantic, goal pattern) per requested plan, and at least. */
const CANDIDATES_PER_RESULT = 20;
const MIN_CANDIDATES = 100;

function planFilterQuery(args: PlanPatternsArgs['filter']): Filter<PlanPatternDocument> {
  const query: Document = {};
  if (!args) return query;
  if (args.goalPattern != null) query.goalPattern = args.goalPattern;
  if (args.action != null) query.stepSequence = args.action;
  if (args.minSuccessRate != null) query.successRate = { $gte: args.minSuccessRate };
  if (args.minUsageCount != null) query.usageCount = { $gte: args.minUsageCount };
  return query;
}

/** One user's runs per plan pattern, read from their tasks, which plans know nothing of (see context.ts). */
export type UserPlanRunsSource = (userId: string) => Promise<UserPlanRuns[]>;

/**
 * A pattern as one user's runs show it: their counts, rates, last use and the steps their failed runs stopped at, and
 * their latest goal as its example. (The issues from insights of failed runs are not kept per run, so they are left
 * out; the user's insights hold them.)
 */
function withUserFigures(document: PlanPatternDocument, runs: UserPlanRuns): PlanPatternDocument {
  const issues = new Map<string, number>();
  for (const failure of runs.failures) {
    if (!failure) continue;
    const actions = Array.isArray(failure.actions) && failure.actions.length ? failure.actions : document.stepSequence;
    const completed = typeof failure.completed === 'number' ? failure.completed : 0;
    if (completed < 0 || completed >= actions.length) continue;
    const issue = `failed at step "${String(actions[completed])}"`;
    issues.set(issue, (issues.get(issue) ?? 0) + 1);
  }
  return {
    ...document,
    exampleGoal: runs.latestGoal,
    usageCount: runs.usageCount,
    successRate: userSuccessRate(runs),
    avgExecutionTime: runs.usageCount ? runs.totalExecutionTime / runs.usageCount : 0,
    lastUsed: runs.lastUsed,
    commonIssues: [...issues]
      .sort(([a, m], [b, n]) => n - m || (a < b ? -1 : a > b ? 1 : 0))
      .slice(0, COMMON_ISSUES_LIMIT)
      .map(([issue]) => issue),
  };
}

function userSuccessRate(runs: UserPlanRuns): number {
  return runs.usageCount ? runs.successCount / runs.usageCount : 0;
}

/** Plan patterns: reading, listing and successfulPlans. Patterns are written by learnFromTask only. */
export class PlanService {
  private readonly repository: PlanPatternRepository;

  constructor(
    private readonly db: Db,
    private readonly deps: AppDeps,
    private readonly loaders: { plans: PlanLoaders },
    private readonly vectorModels: VectorModelCheck,
    private readonly userPlanRuns: UserPlanRunsSource | null = null,
  ) {
    this.repository = new PlanPatternRepository(db);
  }

  async get(id: string): Promise<PlanPattern | null> {
    const document = await this.loaders.plans.planPatternById.load(id);
    return document && toPlanPattern(document);
  }

  /** A page of plan patterns matching the filter, most recently used first. */
  list(args: PlanPatternsArgs): Promise<Connection<PlanPattern>> {
    const filter = planFilterQuery(args.filter);
    const sort: SortKey[] = [
      { field: 'lastUsed', direction: -1 },
      { field: 'patternId', direction: -1 },
    ];
    return forwardPage({
      first: args.first,
      after: args.after,
      sort,
      fetch: (after, order, limit) => this.repository.findPage(filter, after, order, limit),
      count: () => this.repository.count(filter),
      toNode: (document) => {
        this.loaders.plans.planPatternById.prime(document.patternId, document);
        return toPlanPattern(document);
      },
    });
  }

  /**
   * Plans that worked for goals like `goal` (see plan.ranking.ts): candidates are the patterns semantically closest
   * to the goal and those whose template starts like the goal's (both filtered by minSuccessRate before their
   * limit); each is scored exactly, those matching well enough are ranked.
   *
   * With `userId`: a pattern is an aggregate of every user's runs, so one user's plans are the patterns their own
   * tasks were learned into (tasks record their user and pattern), ranked and answered with the figures of their runs
   * alone, computed from those tasks on read. Nothing per user is stored on the shared pattern: its figures would mix
   * other users' runs and texts in, and forgetting a user's tasks forgets their plan figures too.
   */
  async successful(args: SuccessfulPlansArgs): Promise<SuccessfulPlansResult> {
    const goal = args.goal.trim();
    if (!goal) throw new ValidationError('goal must not be blank.', 'goal');
    if (!Number.isInteger(args.limit) || args.limit < 1 || args.limit > MAX_PLANS_LIMIT) {
      throw new ValidationError(`limit must be an integer from 1 to ${MAX_PLANS_LIMIT}.`, 'limit');
    }
    if (!Number.isFinite(args.minSuccessRate) || args.minSuccessRate < 0 || args.minSuccessRate > 1) {
      throw new ValidationError('minSuccessRate must be a number from 0 to 1.', 'minSuccessRate');
    }
    const { outcomeWeight } = rankingWeights(args.ranking);
    const userId = checkScopeId(args.userId, 'userId');
    await this.vectorModels.assertVectorsCurrent(PLAN_PATTERNS_REEMBED_TARGET);
    let filter: Filter<PlanPatternDocument> = { successRate: { $gte: args.minSuccessRate } };
    let userRuns: Map<string, UserPlanRuns> | null = null;
    if (userId !== undefined) {
      if (!this.userPlanRuns) throw new Error('PlanService: no source of user plan runs');
      userRuns = new Map((await this.userPlanRuns(userId)).map((runs) => [runs._id, runs]));
      const ids = [...userRuns.values()]
        .filter((runs) => userSuccessRate(runs) >= args.minSuccessRate)
        .map((runs) => runs._id);
      if (!ids.length) return { plans: [], count: 0 };
      filter = { patternId: { $in: ids } };
    }
    const template = goalPattern(goal);
    const k = Math.max(args.limit * CANDIDATES_PER_RESULT, MIN_CANDIDATES);
    const vector = await this.deps.embedder.embedQuery(goal);
    const index = this.deps.search.forDb(this.db);
    const [semanticHits, keywordHits, patternIds] = await Promise.all([
      index.searchVector(PLAN_GOAL_SPACE.name, { vector, k, filter }),
      index.searchKeyword(PLAN_GOAL_SPACE.name, { text: goal, k, filter }),
      this.repository.idsByPatternPrefix(unifiablePrefixes(template), filter, k),
    ]);
    const ids = [
      ...new Set([...semanticHits.map((hit) => hit.id), ...keywordHits.map((hit) => hit.id), ...patternIds]),
    ];
    // The cosines and keyword scores come from the index, which holds the vectors and texts (as in similarTasks).
    const [candidates, cosines, keywords] = await Promise.all([
      this.repository.findCandidates(ids, filter),
      index.vectorScores(PLAN_GOAL_SPACE.name, vector, ids),
      index.keywordScores(PLAN_GOAL_SPACE.name, goal, ids),
    ]);
    const textScores = textSimilarity(ids, cosines, keywords);
    const now = new Date();
    const plans: SuccessfulPlan[] = candidates
      .map((stored) => (userRuns ? withUserFigures(stored, userRuns.get(stored.patternId)!) : stored))
      .map((document) => {
        const parts = rankPlan({
          goalPattern: goalPatternScore(template, document.goalPattern),
          text: textScores.get(document.patternId) ?? { vector: 0, keyword: 0, score: 0 },
          usageCount: document.usageCount,
          lastUsed: document.lastUsed,
          outcome: boundedFactor(outcomeWeight, document.successRate),
          now,
        });
        return { document, parts };
      })
      .filter(({ parts }) => parts.match >= MIN_PLAN_MATCH)
      .sort(
        (a, b) =>
          b.parts.score - a.parts.score ||
          b.document.usageCount - a.document.usageCount ||
          b.document.lastUsed.getTime() - a.document.lastUsed.getTime() ||
          a.document.patternId.localeCompare(b.document.patternId),
      )
      .slice(0, args.limit)
      .map(({ document, parts }) => ({
        planId: document.patternId,
        goal: document.exampleGoal,
        goalPattern: document.goalPattern,
        steps: toPlanSteps(new StoredReader(PLAN_PATTERNS_COLLECTION, document.patternId), document.steps),
        successRate: document.successRate,
        avgExecutionTime: document.avgExecutionTime,
        usageCount: document.usageCount,
        lastUsed: document.lastUsed,
        commonIssues: document.commonIssues ?? [],
        score: parts.score,
        scores: {
          goalPattern: parts.goalPattern,
          semantic: parts.semantic,
          vector: parts.vector,
          keyword: parts.keyword,
          match: parts.match,
          usage: parts.usage,
          recency: parts.recency,
          outcome: parts.outcome,
        },
      }));
    return { plans, count: plans.length };
  }
}
