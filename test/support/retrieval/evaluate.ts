/**
 * The retrieval evaluation (`npm run eval:retrieval`, bench/retrieval/eval.ts): records the set of corpus.ts through
 * the GraphQL API into a fresh embedded engine and measures every query (searchExperiences in each mode, HYBRID's
 * candidates re-fused by each variant of FUSIONS, similarTasks): hit@1, hit@3 and MRR over the top 10, per slice
 * and half.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { startEmbeddedServer } from '@hindsight/engine';
import { createAppDeps, prepareDatabase } from '../../../src/app';
import { loadConfig } from '../../../src/config';
import { createContext } from '../../../src/context';
import type { EmbeddingProvider } from '../../../src/embeddings/provider';
import { silentLogger } from '../../../src/logger';
import { buildAppSchema } from '../../../src/schema';
import { createServer } from '../../../src/http/server';
import { fuse, type FusionMethod } from '../../../src/search/fusion';
import { SLICES, type EvalQuery, type EvalSet } from './corpus';
import type { SignalSet } from './signals';

export const MODES = ['HYBRID', 'VECTOR', 'KEYWORD'] as const;
const LIMIT = 10;
const CANDIDATE_LIMIT = 50;

interface Candidate {
  id: string;
  vector: number | null;
  keyword: number | null;
}

const variant = (vector: number, method: FusionMethod): [number, FusionMethod] => [vector, method];

/** Fusion variants compared on HYBRID's candidates (`fuse` with each method and vector weight; keyword: the rest). */
export const FUSIONS: Record<string, [vectorWeight: number, method: FusionMethod]> = {
  ...Object.fromEntries(
    [0.3, 0.4, 0.5, 0.6, 0.7].map((w) => [`weighted ${w}/${(1 - w).toFixed(1)}`, variant(w, { kind: 'weighted' })]),
  ),
  ...Object.fromEntries(
    [0.4, 0.5, 0.7].map((w) => [`min-max ${w}/${(1 - w).toFixed(1)}`, variant(w, { kind: 'min-max' })]),
  ),
  ...Object.fromEntries([0.4, 0.5].map((w) => [`z-score ${w}/${(1 - w).toFixed(1)}`, variant(w, { kind: 'z-score' })])),
  'rrf k=60': variant(0.5, { kind: 'rrf', k: 60 }),
  'rrf k=10': variant(0.5, { kind: 'rrf', k: 10 }),
};

/** The candidates' ids ordered by one fusion variant. */
function fusedIds(candidates: Candidate[], [vectorWeight, method]: [number, FusionMethod]): string[] {
  const list = (name: 'vector' | 'keyword', weight: number) => ({
    name,
    weight,
    hits: candidates.flatMap((c) => (c[name] === null ? [] : [{ id: c.id, score: c[name] }])),
  });
  return fuse([list('vector', vectorWeight), list('keyword', 1 - vectorWeight)], { method }).map((hit) => hit.id);
}

export interface Metrics {
  queries: number;
  hit1: number;
  hit3: number;
  mrr: number;
}

/** hit@1, hit@3 and MRR of the 1-based ranks (null: not in the top LIMIT). */
export function metrics(ranks: Array<number | null>): Metrics {
  const n = ranks.length || 1;
  const round = (x: number) => Math.round(x * 1000) / 1000;
  return {
    queries: ranks.length,
    hit1: round(ranks.filter((r) => r === 1).length / n),
    hit3: round(ranks.filter((r) => r !== null && r <= 3).length / n),
    mrr: round(ranks.reduce<number>((sum, r) => sum + (r === null ? 0 : 1 / r), 0) / n),
  };
}

/** The metrics of all queries, of each half and of each slice. */
function breakdown(queries: EvalQuery[], ranks: Array<number | null>): Record<string, Metrics> {
  const of = (keep: (q: EvalQuery) => boolean) => metrics(ranks.filter((_, i) => keep(queries[i])));
  return {
    all: of(() => true),
    tuning: of((q) => q.half === 'tuning'),
    'held-out': of((q) => q.half === 'held-out'),
    ...Object.fromEntries(SLICES.map((slice) => [slice, of((q) => q.slice === slice)])),
  };
}

const RECORD = `mutation Record($inputs: [RecordExperienceInput!]!) { recordExperiences(inputs: $inputs) { experienceId } }`;
const RECORD_TASK = `mutation RecordTask($input: RecordTaskInput!) { recordTask(input: $input) { taskId } }`;
const SEARCH = `query Search($query: String!, $mode: SearchMode!) {
  searchExperiences(query: $query, mode: $mode, limit: ${LIMIT}) { experience { experienceId } }
}`;
/** HYBRID's candidates with their parts, re-fused by each variant of FUSIONS. */
const CANDIDATES = `query Candidates($query: String!) {
  searchExperiences(query: $query, mode: HYBRID, limit: ${CANDIDATE_LIMIT}) { vectorScore keywordScore experience { experienceId } }
}`;
const SIMILAR = `query Similar($query: String!) {
  similarTasks(query: $query, limit: ${LIMIT}, minSimilarity: 0) { tasks { taskId } }
}`;

const CREATE_SESSION = `mutation CreateSession($id: String!) { createSession(input: { sessionId: $id }) { sessionId } }`;
const UPSERT_AGENT = `mutation UpsertAgent($sessionId: ID!, $agentId: String!) {
  upsertAgent(sessionId: $sessionId, input: { agentId: $agentId, agentData: {} }) { agentId }
}`;
const APPEND = `mutation Append($sessionId: ID!, $agentId: String!, $inputs: [AppendMessageInput!]!) {
  appendMessages(sessionId: $sessionId, agentId: $agentId, inputs: $inputs) { messageId }
}`;
/** Four messages per experience: enough hits to rank the top LIMIT experiences in most queries. */
const SEARCH_MESSAGES = `query SearchMessages($query: String!, $mode: SearchMode!) {
  searchMessages(query: $query, mode: $mode, limit: ${4 * LIMIT}) { agentId }
}`;
/** Experiences per session when written as messages. */
const AGENTS_PER_SESSION = 100;

/**
 * Writes the set's experiences as messages (each experience an agent, its four texts four messages) and ranks each
 * experience query's target among the experiences whose messages searchMessages finds, in each mode.
 */
async function messageRanks(
  set: EvalSet,
  run: <T>(query: string, variables: Record<string, unknown>) => Promise<T>,
): Promise<Record<string, Array<number | null>>> {
  for (const [i, e] of set.experiences.entries()) {
    const sessionId = `eval-${Math.floor(i / AGENTS_PER_SESSION)}`;
    if (i % AGENTS_PER_SESSION === 0) await run(CREATE_SESSION, { id: sessionId });
    await run(UPSERT_AGENT, { sessionId, agentId: e.id });
    const texts = [e.primaryGoalDescription, e.subTaskDescription, e.inputContextSummary, e.outputSummary];
    await run(APPEND, {
      sessionId,
      agentId: e.id,
      inputs: texts.filter((text) => text?.trim()).map((text) => ({ role: 'USER', content: text })),
    });
  }
  const ranks: Record<string, Array<number | null>> = {};
  for (const mode of MODES) {
    ranks[mode] = [];
    for (const q of set.experienceQueries) {
      const data = await run<{ searchMessages: Array<{ agentId: string }> }>(SEARCH_MESSAGES, { query: q.text, mode });
      const experiences = [...new Set(data.searchMessages.map((hit) => hit.agentId))].slice(0, LIMIT);
      const i = experiences.indexOf(q.target);
      ranks[mode].push(i === -1 ? null : i + 1);
    }
  }
  return ranks;
}

export type ProviderResults = Record<string, Record<string, Metrics>>;

/** Runs a GraphQL operation on the evaluation's server; errors throw. */
type Run = <T>(query: string, variables: Record<string, unknown>) => Promise<T>;

/** A fresh embedded engine and server with `embeddings`, for `use`; everything is removed afterwards. */
async function withServer<T>(embeddings: EmbeddingProvider, use: (run: Run) => Promise<T>): Promise<T> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'hindsight-retrieval-'));
  const engine = await startEmbeddedServer({ dataDir: path.join(dataDir, 'engine'), port: 0 });
  const client = new MongoClient(engine.uri, { ignoreUndefined: true });
  try {
    await client.connect();
    const db = client.db('retrieval');
    const config = loadConfig(
      {},
      { embeddingsProvider: 'hash', dataDir, port: 0, host: '127.0.0.1', messageIndex: true },
    );
    const deps = createAppDeps({
      config,
      logger: silentLogger,
      database: { kind: 'EMBEDDED', version: 'eval', client, db },
      embeddings,
    });
    await prepareDatabase(deps, db);
    const server = await createServer(deps, await buildAppSchema());
    const run = async <T>(query: string, variables: Record<string, unknown>): Promise<T> => {
      const response = await server.apollo.executeOperation(
        { query, variables },
        { contextValue: createContext(deps) },
      );
      if (response.body.kind !== 'single') throw new Error('unexpected incremental response');
      const { data, errors } = response.body.singleResult;
      if (errors?.length) throw new Error(JSON.stringify(errors));
      return data as T;
    };
    try {
      return await use(run);
    } finally {
      await server.stop();
      await deps.messageIndex.close();
      await deps.search.close();
    }
  } finally {
    await client.close();
    await engine.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Records `set` with `embeddings` through the API and measures every query; results by `experiences.<MODE>` and `tasks.similarTasks`. */
export function evaluate(set: EvalSet, embeddings: EmbeddingProvider): Promise<ProviderResults> {
  return withServer(embeddings, async (run) => {
    for (let start = 0; start < set.experiences.length; start += 500) {
      const inputs = set.experiences.slice(start, start + 500).map((e) => ({
        experienceId: e.id,
        primaryGoalDescription: e.primaryGoalDescription,
        subTaskDescription: e.subTaskDescription,
        inputContextSummary: e.inputContextSummary,
        outputSummary: e.outputSummary,
        initiatingAgentId: 'eval',
        finalOutcome: 'SUCCESS',
      }));
      await run(RECORD, { inputs });
    }
    for (const task of set.tasks) {
      await run(RECORD_TASK, {
        input: { taskId: task.id, originalQuery: task.originalQuery, goal: task.goal, status: 'COMPLETED' },
      });
    }
    const results: ProviderResults = {};
    const rank = (ids: string[], target: string) => {
      const i = ids.indexOf(target);
      return i === -1 ? null : i + 1;
    };
    for (const mode of MODES) {
      const ranks: Array<number | null> = [];
      for (const q of set.experienceQueries) {
        const data = await run<{ searchExperiences: Array<{ experience: { experienceId: string } }> }>(SEARCH, {
          query: q.text,
          mode,
        });
        ranks.push(
          rank(
            data.searchExperiences.map((hit) => hit.experience.experienceId),
            q.target,
          ),
        );
      }
      results[`experiences.${mode}`] = breakdown(set.experienceQueries, ranks);
    }
    const candidates: Candidate[][] = [];
    for (const q of set.experienceQueries) {
      const data = await run<{
        searchExperiences: Array<{
          vectorScore: number | null;
          keywordScore: number | null;
          experience: { experienceId: string };
        }>;
      }>(CANDIDATES, { query: q.text });
      candidates.push(
        data.searchExperiences.map((hit) => ({
          id: hit.experience.experienceId,
          vector: hit.vectorScore,
          keyword: hit.keywordScore,
        })),
      );
    }
    for (const [name, fusion] of Object.entries(FUSIONS)) {
      const ranks = set.experienceQueries.map((q, i) =>
        rank(fusedIds(candidates[i], fusion).slice(0, LIMIT), q.target),
      );
      results[`fusion.${name}`] = breakdown(set.experienceQueries, ranks);
    }
    const taskRanks: Array<number | null> = [];
    for (const q of set.taskQueries) {
      const data = await run<{ similarTasks: { tasks: Array<{ taskId: string }> } }>(SIMILAR, { query: q.text });
      taskRanks.push(
        rank(
          data.similarTasks.tasks.map((t) => t.taskId),
          q.target,
        ),
      );
    }
    results['tasks.similarTasks'] = breakdown(set.taskQueries, taskRanks);
    // The same texts written as messages (an experience's four texts, one message each, of an agent named after it).
    for (const [mode, ranks] of Object.entries(await messageRanks(set, run)))
      results[`messages.${mode}`] = breakdown(set.experienceQueries, ranks);
    return results;
  });
}

/** Ranking variants compared on the signal database (`ranking` arguments; `{}`: the defaults). */
export const RANKINGS: Record<string, Record<string, unknown>> = {
  'relevance only': { relevanceOnly: true },
  default: {},
  'all 0.02': { recencyWeight: 0.02, outcomeWeight: 0.02, feedbackWeight: 0.02, useWeight: 0.02 },
  'all 0.1 (feedback 0.2)': { recencyWeight: 0.1, outcomeWeight: 0.1, feedbackWeight: 0.2, useWeight: 0.1 },
  'all 0.2 (feedback 0.3)': { recencyWeight: 0.2, outcomeWeight: 0.2, feedbackWeight: 0.3, useWeight: 0.1 },
  ...Object.fromEntries([0.02, 0.1, 0.2].map((w) => [`outcome ${w}`, { outcomeWeight: w }])),
  ...Object.fromEntries([0.02, 0.2, 0.3].map((w) => [`feedback ${w}`, { feedbackWeight: w }])),
  ...Object.fromEntries([0.02, 0.1, 0.2].map((w) => [`recency ${w}`, { recencyWeight: w }])),
  ...Object.fromEntries([30, 365].map((days) => [`half-life ${days}`, { recencyHalfLifeDays: days }])),
};

/** Diversity values compared on the duplicates slice (default ranking). */
export const DIVERSITIES = [0, 0.3, 0.5, 0.7];

/** One ordering slice: queries, the share where the better twin ranked above the worse one, and where either showed. */
export interface PairMetrics {
  queries: number;
  right: number;
  found: number;
}

/** The duplicates slice at one diversity: mean distinct goals in the top 5, and the share with at least 4. */
export interface DiversityMetrics {
  queries: number;
  distinctGoals: number;
  atLeast4: number;
}

export interface SignalResults {
  /** By ranking variant: the relevance slices (the corpus with noisy signals) and the ordering slices. */
  rankings: Record<string, Record<string, Metrics | PairMetrics>>;
  /** By diversity. */
  duplicates: Record<string, DiversityMetrics>;
}

const PAIR_LIMIT = 20;
const RANKED_SEARCH = `query Ranked($query: String!, $limit: Int!, $ranking: RankingInput, $diversity: Float) {
  searchExperiences(query: $query, limit: $limit, ranking: $ranking, diversity: $diversity) {
    experience { experienceId primaryGoalDescription }
  }
}`;
const FEEDBACK = `mutation Feedback($id: ID!) {
  addExperienceFeedback(id: $id, signals: { userRating: 0, correctionNeeded: true }) { experienceId }
}`;

/**
 * Records the signal set (the corpus with noisy signals and the twins of signals.ts) and measures, per ranking variant,
 * the relevance slices (HYBRID, top 10) and the ordering slices (top 20), and the duplicates slice per diversity.
 */
export function evaluateSignals(
  set: EvalSet,
  signals: SignalSet,
  embeddings: EmbeddingProvider,
): Promise<SignalResults> {
  return withServer(embeddings, async (run) => {
    for (let start = 0; start < signals.records.length; start += 500)
      await run(RECORD, { inputs: signals.records.slice(start, start + 500) });
    for (const id of signals.ratedDown) for (let i = 0; i < 3; i++) await run(FEEDBACK, { id });
    type Hits = { searchExperiences: Array<{ experience: { experienceId: string; primaryGoalDescription: string } }> };
    const search = async (query: string, limit: number, ranking: Record<string, unknown>, diversity = 0) =>
      (await run<Hits>(RANKED_SEARCH, { query, limit, ranking, diversity })).searchExperiences.map(
        (hit) => hit.experience,
      );
    const rankings: SignalResults['rankings'] = {};
    for (const [name, ranking] of Object.entries(RANKINGS)) {
      const ranks: Array<number | null> = [];
      for (const q of set.experienceQueries) {
        const ids = (await search(q.text, LIMIT, ranking)).map((e) => e.experienceId);
        const i = ids.indexOf(q.target);
        ranks.push(i === -1 ? null : i + 1);
      }
      const row: Record<string, Metrics | PairMetrics> = breakdown(set.experienceQueries, ranks);
      for (const slice of ['outcome', 'feedback', 'recency'] as const) {
        const pairs = signals.queries.filter((q) => q.slice === slice);
        let right = 0;
        let found = 0;
        for (const q of pairs) {
          const ids = (await search(q.text, PAIR_LIMIT, ranking)).map((e) => e.experienceId);
          const rankOf = (id: string) => (ids.includes(id) ? ids.indexOf(id) : Infinity);
          if (rankOf(q.better) < Infinity || rankOf(q.worse) < Infinity) found++;
          if (rankOf(q.better) < rankOf(q.worse)) right++;
        }
        const share = (n: number) => Math.round((n / (pairs.length || 1)) * 1000) / 1000;
        row[slice] = { queries: pairs.length, right: share(right), found: share(found) };
      }
      rankings[name] = row;
    }
    const duplicates: SignalResults['duplicates'] = {};
    const copies = signals.queries.filter((q) => q.slice === 'duplicates');
    for (const diversity of DIVERSITIES) {
      const distinct: number[] = [];
      for (const q of copies)
        distinct.push(new Set((await search(q.text, 5, {}, diversity)).map((e) => e.primaryGoalDescription)).size);
      const n = distinct.length || 1;
      duplicates[String(diversity)] = {
        queries: distinct.length,
        distinctGoals: Math.round((distinct.reduce((a, b) => a + b, 0) / n) * 1000) / 1000,
        atLeast4: Math.round((distinct.filter((d) => d >= 4).length / n) * 1000) / 1000,
      };
    }
    return { rankings, duplicates };
  });
}
