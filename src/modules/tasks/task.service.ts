import { ObjectId, type Db, type Filter } from 'mongodb';
import type { AppDeps } from '../../app';
import { ValidationError } from '../../errors';
import { toStoredVector } from '../../embeddings/vectors';
import { goalPattern, goalPatternScore, patternsUnify, unifiablePrefixes } from '../plans/plan.goal-pattern';
import { fuse, type FusedHit } from '../../search/fusion';
import { DEFAULT_RANKING, rankingFactors, type RankingFactors, type RankingWeights } from '../../search/ranking';
import { rankingWeights } from '../shared/ranking.input';
import { Idempotency, deletedSince } from '../shared/idempotency';
import { checkScopeId } from '../shared/user-scope';
import type { VectorModelCheck } from '../shared/reembed-target';
import { forwardPage, type Connection, type SortKey } from '../shared/connection';
import { isExpiredAt } from '../shared/expiry';
import type { RecordTaskInput, SimilarTasksArgs, TasksArgs } from './task.input';
import type { TaskLoaders } from './task.loaders';
import { TaskRepository, taskFilterQuery, unexpired } from './task.repository';
import { SIMILARITY_WEIGHTS, vectorPart } from './task.similarity';
import { TASK_GOAL_SPACE, TASK_QUERY_SPACE, TASKS_REEMBED_TARGET } from './task.spaces';
import type { TaskDocument } from './task.document';
import { taskGoalPattern, toTask, type SimilarTask, type SimilarTasksResult, type Task } from './task.type';
import { newTaskDocument } from './task.validation';

export const MAX_SIMILAR_LIMIT = 100;
/** At most this many tasks in `mostSimilar` (toolPerformance's `k`). */
export const MAX_MOST_SIMILAR = 1000;
/** Candidates fetched from each list (vector, keyword, goal pattern) per requested result, and at least. */
const CANDIDATES_PER_RESULT = 10;
const MIN_CANDIDATES = 100;

/** What one similarTasks search looks for (the arguments checked, the texts embedded). */
interface SimilarSearch {
  query: string | null;
  goal: string | null;
  queryVector: Float32Array | null;
  goalVector: Float32Array | null;
  limit: number;
  minSimilarity: number;
  weights: RankingWeights;
}

/** The best tasks of one ranking, with their ranking factors, and the filter they were found with. */
interface SimilarRanking {
  best: FusedHit[];
  factors: Map<string, RankingFactors>;
  filter: Filter<TaskDocument>;
}

/** A task's status as an outcome for the ranking (src/search/ranking.ts). */
const TASK_OUTCOMES: Record<string, number> = { completed: 1, paused: 0.5, failed: 0 };

/** Tasks (seed 002 TaskSimilarity): recording with query and goal vectors, reading, listing and similarTasks. */
export class TaskService {
  private readonly repository: TaskRepository;
  private readonly idempotency: Idempotency;

  constructor(
    private readonly db: Db,
    private readonly deps: AppDeps,
    private readonly loaders: { tasks: TaskLoaders },
    private readonly vectorModels: VectorModelCheck,
  ) {
    this.repository = new TaskRepository(db);
    this.idempotency = new Idempotency(db, deps.config.idempotencyTtlHours);
  }

  private get index() {
    return this.deps.search.forDb(this.db);
  }

  async get(id: string): Promise<Task | null> {
    const document = await this.loaders.tasks.taskById.load(id);
    return document && toTask(document);
  }

  /** A page of tasks matching the filter, newest first. */
  list(args: TasksArgs): Promise<Connection<Task>> {
    const filter = unexpired(taskFilterQuery(args.filter), new Date());
    const sort: SortKey[] = [
      { field: 'createdAt', direction: -1 },
      { field: 'taskId', direction: -1 },
    ];
    return forwardPage({
      first: args.first,
      after: args.after,
      sort,
      fetch: (after, order, limit) => this.repository.findPage(filter, after, order, limit),
      count: () => this.repository.count(filter),
      toNode: (document) => {
        this.loaders.tasks.taskById.prime(document.taskId, document);
        return toTask(document);
      },
    });
  }

  /**
   * Records a task; its query and goal are embedded (one embedder call) and indexed. With an idempotency key, a retry
   * answers with the task the planned `_id` found (an earlier attempt stored it) instead of storing another.
   */
  async record(input: RecordTaskInput, idempotencyKey?: string | null): Promise<Task> {
    const now = new Date();
    const checked = newTaskDocument(input, now);
    return this.idempotency.run({
      key: idempotencyKey,
      operation: 'recordTask',
      input,
      plan: () => ({ taskId: checked.taskId, objectId: new ObjectId(), now }),
      perform: async (plan, resumed, done) => {
        if (resumed) {
          const [found] = await this.repository.findByIds([plan.taskId]);
          if (found?._id?.equals(plan.objectId)) return toTask(found);
          if (done) throw deletedSince();
        }
        const document = resumed ? newTaskDocument(input, plan.now) : checked;
        return this.insert(Object.assign(document, { taskId: plan.taskId, _id: plan.objectId }));
      },
    });
  }

  private async insert(document: TaskDocument): Promise<Task> {
    const [queryVector, goalVector] = await this.deps.embedder.embed([document.originalQuery, document.goal]);
    document.embeddings = {
      originalQuery_embedding: toStoredVector(queryVector),
      goal_embedding: toStoredVector(goalVector),
    };
    document.embedding_model = this.deps.embedder.signature;
    await this.repository.insert(document);
    this.index.upsert(TASK_QUERY_SPACE.name, document.taskId, queryVector, document.originalQuery);
    this.index.upsert(TASK_GOAL_SPACE.name, document.taskId, goalVector, document.goal);
    const { embeddings: _vectors, ...stored } = document;
    this.loaders.tasks.taskById.prime(document.taskId, stored);
    return toTask(stored);
  }

  /**
   * Past tasks like a query and/or goal, best first (see task.similarity.ts). Candidates are the union of the
   * vector hits, the keyword hits and the newest tasks whose goal template unifies with the asked one, each list
   * filtered by status before its limit; every candidate is then scored on all three parts.
   */
  async similar(args: SimilarTasksArgs): Promise<SimilarTasksResult> {
    const query = args.query?.trim() || null;
    const goal = args.goal?.trim() || null;
    if (!query && !goal) throw new ValidationError('Give a query or a goal (or both).', 'query');
    if (!Number.isInteger(args.limit) || args.limit < 1 || args.limit > MAX_SIMILAR_LIMIT) {
      throw new ValidationError(`limit must be an integer from 1 to ${MAX_SIMILAR_LIMIT}.`, 'limit');
    }
    if (!Number.isFinite(args.minSimilarity) || args.minSimilarity < 0 || args.minSimilarity > 1) {
      throw new ValidationError('minSimilarity must be a number from 0 to 1.', 'minSimilarity');
    }
    const weights = rankingWeights(args.ranking);
    await this.vectorModels.assertVectorsCurrent(TASKS_REEMBED_TARGET);
    const filter: Filter<TaskDocument> = {
      ...(args.status != null ? { status: args.status } : {}),
      ...(args.userId != null ? { user_id: checkScopeId(args.userId, 'userId') } : {}),
    };
    const [queryVector, goalVector] = await this.embedOptional([query, goal]);
    const search = {
      query,
      goal,
      queryVector,
      goalVector,
      limit: args.limit,
      minSimilarity: args.minSimilarity,
      // Tasks carry no feedback: only their status and age weigh.
      weights: { ...weights, feedbackWeight: 0, useWeight: 0 },
    };
    const ranked = await this.similarLive(search, filter);
    const tasks = await this.withTasks(ranked);
    return { tasks, count: tasks.length };
  }

  /**
   * The ids of the `k` (1–MAX_MOST_SIMILAR) past tasks most similar to `text` (as a query and as a goal), best first,
   * by similarTasks' similarity alone (no minimum; no recency or outcome signal: a failed task is as much "like this
   * one"): what figures "on tasks like this one" are computed over (toolPerformance(similarTo), recall's tool
   * warnings). With `userId`, that user's tasks only. `text` must be non-blank (the callers check it, naming their own
   * argument); tasks less similar than `minSimilarity` are left out.
   */
  async mostSimilar(
    text: string,
    k: number,
    userId?: string,
    minSimilarity = 0,
  ): Promise<Array<{ taskId: string; similarity: number }>> {
    await this.vectorModels.assertVectorsCurrent(TASKS_REEMBED_TARGET);
    const query = text.trim();
    const vector = await this.deps.embedder.embedQuery(query);
    const filter: Filter<TaskDocument> = userId !== undefined ? { user_id: userId } : {};
    const weights = { ...DEFAULT_RANKING, recencyWeight: 0, outcomeWeight: 0, feedbackWeight: 0, useWeight: 0 };
    // Ids and scores only: the callers read what they need of the tasks themselves.
    const { best } = await this.similarLive(
      { query, goal: query, queryVector: vector, goalVector: vector, limit: k, minSimilarity, weights },
      filter,
    );
    return best.map((hit) => ({ taskId: hit.id, similarity: hit.score }));
  }

  /** One similar-task ranking over the tasks not expired now (see `similar`), with the filter it was found with. */
  private async similarLive(search: SimilarSearch, filter: Filter<TaskDocument>): Promise<SimilarRanking> {
    // Expired tasks (not yet deleted by the TTL monitor) are dropped from the candidates, whose expiry is read with
    // their ranking fields anyway, instead of filtering every search; only when that leaves the page short is it
    // searched again with the expiry in the filter. That filter counts from the end of the current minute, so the
    // index caches one such filter a minute and it leaves out every expired task (also those expiring within the
    // minute: they are gone for readers before it ends, and only a refilled page misses them until then).
    const now = new Date();
    const first = await this.similarWith(search, filter, now);
    if (!first.dropped || first.best.length >= search.limit) return { ...first, filter };
    const minuteEnd = new Date((Math.floor(now.getTime() / 60_000) + 1) * 60_000);
    const refilled = unexpired(filter, minuteEnd);
    return { ...(await this.similarWith(search, refilled, now)), filter: refilled };
  }

  /**
   * One similarTasks ranking with `filter` applied inside each list, the best `limit` first with their ranking
   * factors; candidates expired at `now` are dropped (counted).
   */
  private async similarWith(
    search: SimilarSearch,
    filter: Filter<TaskDocument>,
    now: Date,
  ): Promise<Omit<SimilarRanking, 'filter'> & { dropped: number }> {
    const { query, goal, queryVector, goalVector } = search;
    const k = Math.max(search.limit * CANDIDATES_PER_RESULT, MIN_CANDIDATES);
    const template = goalPattern(goal ?? query!);

    const [queryHits, goalHits, queryKeywords, goalKeywords, patternIds] = await Promise.all([
      queryVector ? this.index.searchVector(TASK_QUERY_SPACE.name, { vector: queryVector, k, filter }) : [],
      goalVector ? this.index.searchVector(TASK_GOAL_SPACE.name, { vector: goalVector, k, filter }) : [],
      this.index.searchKeyword(TASK_QUERY_SPACE.name, { text: query ?? goal!, k, filter }),
      this.index.searchKeyword(TASK_GOAL_SPACE.name, { text: goal ?? query!, k, filter }),
      this.unifyingTaskIds(template, filter, k),
    ]);
    const ids = [
      ...new Set(
        [...queryHits, ...goalHits, ...queryKeywords, ...goalKeywords].map((hit) => hit.id).concat(patternIds),
      ),
    ];
    // Every candidate's cosines come from the index, which holds the vectors: reading them from MongoDB cost ~10 KB
    // per task (two 384-d vectors), most of a search's time. Ranking reads four fields of each candidate (up to 500);
    // only the `limit` best are then read whole.
    const [found, queryCosines, goalCosines] = await Promise.all([
      this.repository.findRankingFields(ids, filter),
      queryVector ? this.index.vectorScores(TASK_QUERY_SPACE.name, queryVector, ids) : null,
      goalVector ? this.index.vectorScores(TASK_GOAL_SPACE.name, goalVector, ids) : null,
    ]);
    const live = found.filter((document) => !isExpiredAt(document.expires_at, now));
    const dropped = found.length - live.length;
    const candidates = new Map(live.map((document) => [document.taskId, document]));
    // Many candidates share a template: each distinct one is scored once.
    const patternScores = new Map<string, number>();
    const patternScore = (pattern: string) => {
      let score = patternScores.get(pattern);
      if (score === undefined) patternScores.set(pattern, (score = goalPatternScore(template, pattern)));
      return score;
    };
    const documents = [...candidates.values()];
    const position = new Map(ids.map((id, i) => [id, i]));
    const fused = fuse(
      [
        {
          name: 'vector',
          weight: SIMILARITY_WEIGHTS.vector,
          hits: documents.map((document) => ({
            id: document.taskId,
            score: vectorPart([
              queryCosines?.[position.get(document.taskId)!] ?? null,
              goalCosines?.[position.get(document.taskId)!] ?? null,
            ]),
          })),
        },
        {
          name: 'keyword',
          weight: SIMILARITY_WEIGHTS.keyword,
          hits: [...queryKeywords, ...goalKeywords].filter((hit) => candidates.has(hit.id)),
        },
        {
          name: 'goalPattern',
          weight: SIMILARITY_WEIGHTS.goalPattern,
          hits: documents.map((document) => ({
            id: document.taskId,
            score: patternScore(taskGoalPattern(document)),
          })),
        },
      ],
      { minScore: search.minSimilarity },
    );
    const createdAt = (id: string) => candidates.get(id)!.createdAt.getTime();
    const at = now.getTime();
    const factors = new Map(
      fused.map((hit) => {
        const document = candidates.get(hit.id)!;
        const signals = {
          at: createdAt(hit.id),
          outcome: TASK_OUTCOMES[document.status] ?? null,
          observations: 0,
          qualitySum: 0,
          helpful: 0,
        };
        return [hit.id, rankingFactors(hit.score, signals, search.weights, at)];
      }),
    );
    const ranked = (id: string) => factors.get(id)!.score;
    const best = fused
      .sort((a, b) => ranked(b.id) - ranked(a.id) || b.score - a.score || createdAt(b.id) - createdAt(a.id))
      .slice(0, search.limit);
    return { best, factors, dropped };
  }

  /** The ranked tasks read whole (without vectors and actions), as similarTasks answers them. */
  private async withTasks({ best, factors, filter }: SimilarRanking): Promise<SimilarTask[]> {
    const whole = new Map(
      (
        await this.repository.findCandidates(
          best.map((hit) => hit.id),
          filter,
        )
      ).map((document) => [document.taskId, document]),
    );
    const tasks: SimilarTask[] = best
      // A task deleted between the two reads is left out.
      .filter((hit) => whole.has(hit.id))
      .map((hit) => {
        const stored = whole.get(hit.id)!;
        this.loaders.tasks.taskById.prime(stored.taskId, stored);
        const task = toTask(stored);
        return {
          taskId: task.taskId,
          query: task.originalQuery,
          goal: task.goal,
          status: task.status,
          userId: task.userId,
          similarity: hit.score,
          score: factors.get(hit.id)!.score,
          recency: factors.get(hit.id)!.recency,
          outcome: factors.get(hit.id)!.outcome,
          scores: {
            vector: hit.parts.vector ?? 0,
            keyword: hit.parts.keyword ?? 0,
            goalPattern: hit.parts.goalPattern ?? 0,
          },
          executionTime: task.executionTime,
          successMetrics: task.successMetrics,
          createdAt: task.createdAt,
          task,
        };
      });
    return tasks;
  }

  /** Vectors of the given texts (one embedder call), null where no text was given. */
  private async embedOptional(texts: Array<string | null>): Promise<Array<Float32Array | null>> {
    const given = texts.filter((text): text is string => text !== null);
    const vectors = given.length ? await this.deps.embedder.embed(given) : [];
    let next = 0;
    return texts.map((text) => (text === null ? null : vectors[next++]));
  }

  /** The newest tasks whose goal template unifies with `template` (templates found by an indexed prefix lookup). */
  private async unifyingTaskIds(template: string, filter: Filter<TaskDocument>, limit: number): Promise<string[]> {
    const patterns = (await this.repository.goalPatternsByPrefix(unifiablePrefixes(template))).filter((stored) =>
      patternsUnify(template, stored),
    );
    return this.repository.idsByGoalPatterns(patterns, filter, limit);
  }
}
