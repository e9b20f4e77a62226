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

/** Records `set` with `embeddings` through the API and measures every query; results by `experiences.<MODE>` and `tasks.similarTasks`. */
export async function evaluate(set: EvalSet, embeddings: EmbeddingProvider): Promise<ProviderResults> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'hindsight-retrieval-'));
  const engine = await startEmbeddedServer({ dataDir: path.join(dataDir, 'engine'), port: 0 });
  const client = new MongoClient(engine.uri, { ignoreUndefined: true });
  try {
    await client.connect();
    const db = client.db('retrieval');
    const config = loadConfig({}, { embeddingsProvider: 'hash', dataDir, port: 0, host: '127.0.0.1' });
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
