/**
 * End-to-end search benchmark (`npm run build && node dist/bench/search-e2e.js [count]`): seeds `count` (default
 * 100k) experiences with hash embeddings (384-d, the seed's form: arrays of numbers) into the embedded engine running
 * in this process, builds the app's search index over its 4 spaces, then measures, printing one JSON line each.
 * BENCH_CORPUS picks the texts: `templates` (default: the generator of `npm run bench`, bench/seed.ts: templated
 * goals, many near-duplicates) or `zipf` (independent Zipf-distributed pseudo-words: no topical structure, the hard
 * case for a graph index, since every vector is about as far from every other).
 * - `build`: time to build the 4 spaces from MongoDB and the process RSS;
 * - `vector`: ANN against exact search (recall@10, p50 speed-up) in one space, in process;
 * - `keyword`: BM25 top-k in one space, in process;
 * - `graphql`: searchExperiences through Apollo's executeOperation (HYBRID, VECTOR, KEYWORD; limit 10), p50/p95/p99;
 * - `ranking`: searchExperiences HYBRID with the default ranking, RELEVANCE_ONLY and diversity 0.5, interleaved; p95
 *   of each over RELEVANCE_ONLY's (see {@link measureRanking});
 * - `filtered`: searchExperiences HYBRID whose filter (one agent) leaves 1k, 5k, 10k, 20k, 50k experiences, p50/p95
 *   per selectivity and recall@10 of the filtered vector search against an exact scan of exactly the documents that
 *   pass (read from MongoDB), each against its target (see {@link filteredSearchBench}, callable from the main bench);
 * - `restart`: saving the index under DATA_DIR, then a cold start that loads it and catches up with MongoDB after
 *   writes made directly through the driver (inserts, updates, deletes), against the build from MongoDB.
 * BENCH_DATA_DIR keeps the seeded engine and the saved index (reused when it already holds `count` experiences).
 * BENCH_PHASES (comma-separated: vector, keyword, graphql, ranking, filtered, restart; default all) picks what is measured after
 * the build; BENCH_RESTORE=1 restores a saved index instead of building one fresh (then `build` and `restart` compare
 * a restore with a restore).
 */
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MongoClient, type Db } from 'mongodb';
import { createAppDeps, prepareDatabase, type AppDeps } from '../src/app';
import { loadConfig } from '../src/config';
import { createContext } from '../src/context';
import { startEmbeddedServer } from '@hindsight/engine';
import { HashEmbeddingProvider } from '../src/embeddings/hash.provider';
import type { EmbeddingProvider } from '../src/embeddings/provider';
import { fromStoredVector, toStoredVector } from '../src/embeddings/vectors';
import { createLogger, silentLogger, type Logger } from '../src/logger';
import { EXPERIENCE_SPACES } from '../src/modules/experiences/experience.spaces';
import {
  EXPERIENCE_FIELDS,
  EXPERIENCES_COLLECTION,
  ExperienceField,
  embeddingKey,
} from '../src/modules/experiences/experience.document';
import { buildAppSchema } from '../src/schema';
import { readPath } from '../src/search/space';
import type { VectorHit } from '../src/search/types';
import { exactSearch, unitVector } from '../src/search/vector-store';
import { createServer, type HindsightServer } from '../src/http/server';
import { seededRandom } from '../test/support/vectors';
import { agentOf, experienceTexts as templateTexts, pick, writeBehindTheServer } from './seed';

const DIMENSIONS = 384;
const VOCABULARY = 6000;
/** Timed filtered searches per selectivity (after {@link FILTERED_WARMUP} untimed ones). */
const FILTERED_QUERIES = 100;
const FILTERED_WARMUP = 10;
/** Experiences updated, inserted and deleted (each) behind the server's back before the restart. */
const CHANGES_BEHIND = 100;
const SYLLABLES = [
  'ka',
  'lo',
  'mi',
  'ne',
  'ru',
  'sa',
  'ti',
  'vo',
  'pe',
  'da',
  'gu',
  'ho',
  'ji',
  'fe',
  'zo',
  'be',
  'ch',
  'qu',
  'ar',
  'en',
];

/** A deterministic vocabulary of pseudo-words (word i is the same on every run). */
const WORDS = Array.from({ length: VOCABULARY }, (_, i) => {
  let word = '';
  let n = i + SYLLABLES.length;
  while (n > 0) {
    word += SYLLABLES[n % SYLLABLES.length];
    n = Math.floor(n / SYLLABLES.length);
  }
  return word;
});

/** Words drawn by a Zipf(1) law over the vocabulary, as word frequencies in text roughly are. */
function zipfWords(random: () => number): (count: number) => string {
  const cumulative = new Float64Array(VOCABULARY);
  let sum = 0;
  for (let rank = 0; rank < VOCABULARY; rank++) cumulative[rank] = sum += 1 / (rank + 1);
  const word = () => {
    const target = random() * sum;
    let low = 0;
    let high = VOCABULARY - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (cumulative[middle] < target) low = middle + 1;
      else high = middle;
    }
    return WORDS[low];
  };
  return (count) => Array.from({ length: count }, word).join(' ');
}

type Corpus = 'templates' | 'zipf';
const CORPUS: Corpus = process.env.BENCH_CORPUS === 'zipf' ? 'zipf' : 'templates';

/** The four texts of generated experience `index` (deterministic). */
export function experienceTexts(index: number, corpus: Corpus = CORPUS): Record<ExperienceField, string> {
  if (corpus === 'templates') {
    const texts = templateTexts(seededRandom(1_000_003 * (index + 1)));
    return {
      [ExperienceField.PRIMARY_GOAL]: texts.primaryGoalDescription,
      [ExperienceField.SUB_TASK]: texts.subTaskDescription,
      [ExperienceField.INPUT_CONTEXT]: texts.inputContextSummary!,
      [ExperienceField.OUTPUT_SUMMARY]: texts.outputSummary!,
    };
  }
  const words = zipfWords(seededRandom(1_000_003 * (index + 1)));
  const random = seededRandom(index + 7);
  const length = (min: number, max: number) => min + Math.floor(random() * (max - min + 1));
  return {
    [ExperienceField.PRIMARY_GOAL]: words(length(8, 14)),
    [ExperienceField.SUB_TASK]: words(length(6, 10)),
    [ExperienceField.INPUT_CONTEXT]: words(length(10, 18)),
    [ExperienceField.OUTPUT_SUMMARY]: words(length(8, 14)),
  };
}

/**
 * Inserts experiences `from .. count-1` straight through the driver, as recordExperiences stores them (seed 000
 * fields, vectors of every embeddable field as arrays of numbers, `embedding_model`), in batches.
 */
export async function seedExperiences(db: Db, embeddings: EmbeddingProvider, count: number, from = 0): Promise<void> {
  const collection = db.collection(EXPERIENCES_COLLECTION);
  const model = { provider: embeddings.id, model: embeddings.model, dimensions: embeddings.dimensions };
  const BATCH = 500;
  for (let start = from; start < count; start += BATCH) {
    const documents = [];
    for (let i = start; i < Math.min(count, start + BATCH); i++) {
      const texts = experienceTexts(i);
      const vectors = await embeddings.embed(EXPERIENCE_FIELDS.map((field) => texts[field]));
      documents.push({
        experience_id: `bench-${i}`,
        ...texts,
        initiating_agent_id: agentOf(i),
        involved_components: [],
        key_decisions_made: [],
        final_outcome: i % 5 === 0 ? 'failure' : 'success',
        timestamp: new Date(Date.UTC(2025, 0, 1) + i * 60_000),
        version: 1,
        tags: [`t${i % 20}`],
        embeddings: Object.fromEntries(
          EXPERIENCE_FIELDS.map((field, f) => [embeddingKey(field), toStoredVector(vectors[f])]),
        ),
        embedding_model: model,
      });
    }
    await collection.insertMany(documents, { ordered: false });
  }
}

/**
 * Search queries like an agent's: half reuse most words of a stored goal; the other half are fresh goals drawn like
 * the stored ones (templates) or fresh Zipf phrases.
 */
export function benchQueries(count: number, corpus: number, seed = 99): string[] {
  const random = seededRandom(seed);
  const words = zipfWords(random);
  return Array.from({ length: count }, (_, q) => {
    if (q % 2 === 1) return CORPUS === 'templates' ? templateTexts(random).primaryGoalDescription : words(5);
    const goal = experienceTexts(Math.floor(random() * corpus))[ExperienceField.PRIMARY_GOAL].split(' ');
    return [...goal.filter(() => random() < 0.7), CORPUS === 'templates' ? pick(random, goal) : words(1)].join(' ');
  });
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

const ms = (value: number) => +value.toFixed(3);
const mb = (bytes: number) => Math.round(bytes / 2 ** 20);

function report(name: string, fields: Record<string, unknown>): void {
  process.stdout.write(JSON.stringify({ bench: name, ...fields }) + '\n');
}

/** Runs `run`, adding its duration (ms) to `samples`. */
export async function timed<T>(samples: number[], run: () => T | Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await run();
  samples.push(performance.now() - started);
  return result;
}

const SEARCH = `query Search($query: String!, $mode: SearchMode!, $filter: ExperienceFilter, $ranking: RankingInput, $diversity: Float) {
  searchExperiences(query: $query, mode: $mode, limit: 10, filter: $filter, ranking: $ranking, diversity: $diversity) { score vectorScore keywordScore matchedField experience { experienceId } }
}`;

export interface App {
  deps: AppDeps;
  server: HindsightServer;
  search(variables: Record<string, unknown>): Promise<Array<{ experience: { experienceId: string } }>>;
}

export async function startApp(db: Db, client: MongoClient, dataDir: string, logger: Logger): Promise<App> {
  const config = loadConfig({}, { embeddingsProvider: 'hash', dataDir, port: 0, host: '127.0.0.1' });
  const embeddings = new HashEmbeddingProvider(DIMENSIONS);
  const deps = createAppDeps({
    config,
    logger,
    database: { kind: 'EMBEDDED', version: 'bench', client, db },
    embeddings,
  });
  await prepareDatabase(deps, db);
  return appOf(deps, await createServer(deps, await buildAppSchema()));
}

/** An app over `deps` and `server` whose `search` runs searchExperiences through executeOperation. */
export function appOf(deps: AppDeps, server: HindsightServer): App {
  return {
    deps,
    server,
    async search(variables) {
      const response = await server.apollo.executeOperation(
        { query: SEARCH, variables },
        { contextValue: createContext(deps) },
      );
      if (response.body.kind !== 'single') throw new Error('unexpected incremental response');
      const { data, errors } = response.body.singleResult;
      if (errors?.length) throw new Error(JSON.stringify(errors));
      return (data as { searchExperiences: Array<{ experience: { experienceId: string } }> }).searchExperiences;
    },
  };
}

type Index = ReturnType<AppDeps['search']['forDb']>;

/** ANN against exact search (recall@10, speed-up) in one space, in process. */
async function measureVector(index: Index, space: string, vectors: Float32Array[]): Promise<void> {
  const annMs: number[] = [];
  const exactMs: number[] = [];
  let sameIds = 0;
  let tieAware = 0;
  for (const vector of vectors) {
    const truth = await timed(exactMs, () => index.searchVector(space, { vector, k: 10, exact: true }));
    const ann = await timed(annMs, () => index.searchVector(space, { vector, k: 10 }));
    const recall = recallOf(ann, truth);
    sameIds += recall.sameIds;
    tieAware += recall.tieAware;
  }
  report('vector', {
    space,
    recallAt10: +(sameIds / (vectors.length * 10)).toFixed(4),
    recallAt10TieAware: +(tieAware / (vectors.length * 10)).toFixed(4),
    annP50Ms: ms(percentile(annMs, 0.5)),
    annP95Ms: ms(percentile(annMs, 0.95)),
    exactP50Ms: ms(percentile(exactMs, 0.5)),
    speedupP50: +(percentile(exactMs, 0.5) / percentile(annMs, 0.5)).toFixed(1),
  });
}

/**
 * Hits of `found` among the exact top `truth`: `sameIds` counts the same ids; `tieAware` counts a hit scoring at least
 * the exact last score − 1e-6 (templated texts embed to many identical vectors: which of them make the exact top 10
 * is a matter of order, so the id overlap understates).
 */
function recallOf(found: VectorHit[], truth: VectorHit[]): { sameIds: number; tieAware: number } {
  const ids = new Set(truth.map((hit) => hit.id));
  const last = truth[truth.length - 1]?.score ?? -Infinity;
  return {
    sameIds: found.filter((hit) => ids.has(hit.id)).length,
    tieAware: Math.min(truth.length, found.filter((hit) => hit.score >= last - 1e-6).length),
  };
}

/** searchExperiences through executeOperation in each mode, no filter. */
async function measureGraphql(app: App, queries: string[]): Promise<void> {
  for (const mode of ['HYBRID', 'VECTOR', 'KEYWORD']) {
    const samples: number[] = [];
    for (const query of queries.slice(0, 20)) await app.search({ query, mode }); // warm-up
    for (const query of queries) await timed(samples, () => app.search({ query, mode }));
    report('graphql', {
      operation: 'searchExperiences',
      mode,
      limit: 10,
      p50Ms: ms(percentile(samples, 0.5)),
      p95Ms: ms(percentile(samples, 0.95)),
      p99Ms: ms(percentile(samples, 0.99)),
    });
  }
}

/** The ranking variants the `ranking` phase compares (searchExperiences' `ranking` and `diversity` arguments). */
const RANKING_VARIANTS: Record<string, Record<string, unknown>> = {
  'relevance only': { ranking: { relevanceOnly: true } },
  default: {},
  'default, diversity 0.5': { diversity: 0.5 },
};

/**
 * searchExperiences HYBRID (limit 10, one at a time) with the default ranking against RELEVANCE_ONLY (and with
 * diversity), interleaved query by query so that the machine's other load falls on every variant alike; p50/p95/p99
 * per variant and each one's p95 over relevance only's (the target: default ≤ 1.10).
 */
async function measureRanking(app: App, queries: string[]): Promise<void> {
  const names = Object.keys(RANKING_VARIANTS);
  const samples = new Map(names.map((name) => [name, [] as number[]]));
  for (const query of queries.slice(0, 20))
    for (const name of names) await app.search({ query, mode: 'HYBRID', ...RANKING_VARIANTS[name] }); // warm-up
  for (const [q, query] of queries.entries())
    for (let v = 0; v < names.length; v++) {
      // Each query rotates which variant goes first.
      const name = names[(q + v) % names.length];
      await timed(samples.get(name)!, () => app.search({ query, mode: 'HYBRID', ...RANKING_VARIANTS[name] }));
    }
  const baseline = percentile(samples.get('relevance only')!, 0.95);
  for (const name of names) {
    const times = samples.get(name)!;
    report('ranking', {
      operation: 'searchExperiences',
      mode: 'HYBRID',
      limit: 10,
      variant: name,
      p50Ms: ms(percentile(times, 0.5)),
      p95Ms: ms(percentile(times, 0.95)),
      p99Ms: ms(percentile(times, 0.99)),
      p95OverRelevanceOnly: Math.round((percentile(times, 0.95) / baseline) * 1000) / 1000,
    });
  }
}

/** The filtered-search targets of issue 40: filters keeping these many of 100k experiences (one agent's share each). */
export const FILTERED_SHARES = [1000, 5000, 10_000, 20_000, 50_000] as const;
/** Per selectivity: HYBRID p95 through one connection, recall@10 of the filtered vector search against exact. */
export const FILTERED_TARGETS = { hybridP95Ms: 30, recallAt10: 0.95 } as const;

/** One selectivity measured by {@link measureFilteredSearch}. */
export interface FilteredSearchFigure {
  /** Experiences that pass the filter (`initiatingAgentId` of an agent holding that many). */
  allowed: number;
  /** The first HYBRID search with this filter, which resolves it (ms). */
  firstMs: number;
  /** searchExperiences HYBRID, limit 10, through Apollo's executeOperation, one at a time (ms). */
  hybridP50Ms: number;
  hybridP95Ms: number;
  /**
   * Recall@10 of searchVector (primary goal space, k = 10, with the filter) against an exact scan over the documents
   * that pass it, read from MongoDB: tie-aware (see `recallOf`), the figure held against the target.
   */
  recallAt10: number;
  /** The same by ids alone. */
  recallAt10SameIds: number;
  /** Every result of every filtered search (HYBRID and vector) passed the filter. */
  allPassed: boolean;
  p95Met: boolean;
  recallMet: boolean;
}

export interface FilteredSearchFigures {
  /** Experiences in the collection. */
  count: number;
  /** Timed queries per selectivity. */
  queries: number;
  targets: typeof FILTERED_TARGETS;
  figures: FilteredSearchFigure[];
  /** Every selectivity met both targets and every result passed its filter. */
  met: boolean;
}

/**
 * Filtered search at each of {@link FILTERED_SHARES} (those the corpus is large enough for): HYBRID p50/p95 through
 * GraphQL and the vector side's recall@10 against exact search over exactly the documents that pass.
 */
export async function measureFilteredSearch(
  app: App,
  db: Db,
  embeddings: EmbeddingProvider,
  count: number,
  queries = benchQueries(FILTERED_WARMUP + FILTERED_QUERIES, count),
  vectors?: Float32Array[],
): Promise<FilteredSearchFigures> {
  vectors ??= await embeddings.embed(queries);
  const index = app.deps.search.forDb(db);
  const space = EXPERIENCE_SPACES[ExperienceField.PRIMARY_GOAL].name;
  const vectorPath = `embeddings.${embeddingKey(ExperienceField.PRIMARY_GOAL)}`;
  const figures: FilteredSearchFigure[] = [];
  for (const share of FILTERED_SHARES) {
    if (share > count) break;
    const agent = `scope-${share}`;
    // Timed first: the truth read below (every passing document's vector) leaves garbage for the collector.
    global.gc?.();
    const variables = (query: string) => ({ query, mode: 'HYBRID', filter: { initiatingAgentId: agent } });
    const first: number[] = [];
    const hybridMs: number[] = [];
    const returned = new Set<string>();
    for (let q = 0; q < queries.length; q++) {
      const hits = await timed(q === 0 ? first : q < FILTERED_WARMUP ? [] : hybridMs, () =>
        app.search(variables(queries[q])),
      );
      for (const hit of hits) returned.add(hit.experience.experienceId);
    }

    // The truth, read straight from MongoDB: the documents that pass and their vectors.
    const passing = await db
      .collection(EXPERIENCES_COLLECTION)
      .find({ initiating_agent_id: agent }, { projection: { _id: 0, experience_id: 1, [vectorPath]: 1 } })
      .toArray();
    const ids: string[] = [];
    const units: Float32Array[] = [];
    for (const document of passing) {
      const unit = unitVector(fromStoredVector(readPath(document, vectorPath)) ?? new Float32Array(0));
      if (unit?.length !== DIMENSIONS) continue;
      ids.push(document.experience_id as string);
      units.push(unit);
    }
    const matrix = new Float32Array(units.length * DIMENSIONS);
    units.forEach((unit, i) => matrix.set(unit, i * DIMENSIONS));
    const allowed = new Set(passing.map((document) => document.experience_id as string));
    let allPassed = [...returned].every((id) => allowed.has(id));

    let sameIds = 0;
    let tieAware = 0;
    let expected = 0;
    for (const vector of vectors) {
      const found = await index.searchVector(space, { vector, k: 10, filter: { initiating_agent_id: agent } });
      if (!found.every((hit) => allowed.has(hit.id))) allPassed = false;
      const unit = unitVector(vector)!;
      const truth = exactSearch(matrix, unit, 10).map(({ row, score }) => ({ id: ids[row], score }));
      const recall = recallOf(found, truth);
      sameIds += recall.sameIds;
      tieAware += recall.tieAware;
      expected += truth.length;
    }
    const hybridP95Ms = ms(percentile(hybridMs, 0.95));
    const recallAt10 = +(tieAware / expected).toFixed(4);
    figures.push({
      allowed: allowed.size,
      firstMs: ms(first[0]),
      hybridP50Ms: ms(percentile(hybridMs, 0.5)),
      hybridP95Ms,
      recallAt10,
      recallAt10SameIds: +(sameIds / expected).toFixed(4),
      allPassed,
      p95Met: hybridP95Ms <= FILTERED_TARGETS.hybridP95Ms,
      recallMet: recallAt10 >= FILTERED_TARGETS.recallAt10,
    });
  }
  return {
    count,
    queries: Math.max(0, queries.length - FILTERED_WARMUP),
    targets: FILTERED_TARGETS,
    figures,
    met: figures.every((figure) => figure.p95Met && figure.recallMet && figure.allPassed),
  };
}

/**
 * The filtered-search benchmark on its own, for the main bench: an embedded engine under `dataDir` (a temporary
 * directory when unset, removed after), seeded with `count` experiences (default 100k; those already there are
 * kept), the app's search index restored from `dataDir` when saved there, else built, then
 * {@link measureFilteredSearch}. With `dataDir`, the index is saved for the next call.
 */
export async function filteredSearchBench(
  options: { count?: number; dataDir?: string; logger?: Logger } = {},
): Promise<FilteredSearchFigures> {
  const count = options.count ?? 100_000;
  const dataDir = options.dataDir ?? mkdtempSync(path.join(os.tmpdir(), 'hindsight-filtered-'));
  const engine = await startEmbeddedServer({ dataDir: path.join(dataDir, 'engine'), port: 0 });
  const client = new MongoClient(engine.uri, { ignoreUndefined: true });
  try {
    await client.connect();
    const db = client.db('bench_search');
    const embeddings = new HashEmbeddingProvider(DIMENSIONS);
    const present = await db.collection(EXPERIENCES_COLLECTION).countDocuments();
    await seedExperiences(db, embeddings, count, Math.min(present, count));
    const app = await startApp(db, client, dataDir, options.logger ?? silentLogger);
    try {
      return await measureFilteredSearch(app, db, embeddings, count);
    } finally {
      if (options.dataDir) await app.deps.search.save();
      await app.deps.search.close();
      await app.server.stop();
    }
  } finally {
    await client.close();
    await engine.close();
    if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
}

/** One line per selectivity: its figures and met / missed against the targets. */
export function filteredSearchTable({ figures, targets }: FilteredSearchFigures): string {
  const verdict = (met: boolean) => (met ? 'met' : 'MISSED');
  return [
    `filtered HYBRID search (targets: p95 <= ${targets.hybridP95Ms} ms, recall@10 >= ${targets.recallAt10})`,
    ...figures.map(
      (f) =>
        `  ${String(f.allowed).padStart(6)} pass: p50 ${f.hybridP50Ms.toFixed(1)} ms, p95 ${f.hybridP95Ms.toFixed(1)} ms ` +
        `${verdict(f.p95Met)}; recall@10 ${f.recallAt10.toFixed(3)} (same ids ${f.recallAt10SameIds.toFixed(3)}) ` +
        `${verdict(f.recallMet)}; first search ${f.firstMs.toFixed(0)} ms` +
        `${f.allPassed ? '' : '; A RESULT FAILED THE FILTER'}`,
    ),
  ].join('\n');
}

async function main(): Promise<void> {
  const count = Number(process.argv[2] ?? process.env.BENCH_SEARCH_COUNT ?? 100_000);
  const phases = new Set(
    (process.env.BENCH_PHASES ?? 'vector,keyword,graphql,ranking,filtered,restart')
      .split(',')
      .map((phase) => phase.trim()),
  );
  const keep = process.env.BENCH_DATA_DIR;
  const dataDir = keep ?? mkdtempSync(path.join(os.tmpdir(), 'hindsight-search-e2e-'));
  const logger = process.env.BENCH_LOG ? createLogger('info') : silentLogger;
  const rss0 = process.memoryUsage().rss;
  const engine = await startEmbeddedServer({ dataDir: path.join(dataDir, 'engine'), port: 0 });
  const client = new MongoClient(engine.uri, { ignoreUndefined: true });
  await client.connect();
  const db = client.db('bench_search');
  const embeddings = new HashEmbeddingProvider(DIMENSIONS);
  try {
    const present = await db.collection(EXPERIENCES_COLLECTION).countDocuments();
    if (present > count) throw new Error(`${dataDir} holds ${present} experiences, more than ${count}`);
    let started = performance.now();
    await seedExperiences(db, embeddings, count, present);
    if (process.env.BENCH_RESTORE !== '1') rmSync(path.join(dataDir, 'search'), { recursive: true, force: true }); // a fresh build first
    report('seed', {
      count,
      seeded: count - present,
      seconds: +((performance.now() - started) / 1000).toFixed(1),
      rssMB: mb(process.memoryUsage().rss),
    });
    global.gc?.();
    const rssSeeded = process.memoryUsage().rss;

    started = performance.now();
    const app = await startApp(db, client, dataDir, logger);
    const buildMs = performance.now() - started;
    global.gc?.();
    const memory = process.memoryUsage();
    report('build', {
      count,
      spaces: EXPERIENCE_FIELDS.length,
      seconds: +(buildMs / 1000).toFixed(1),
      rssMB: mb(memory.rss),
      rssBeforeEngineMB: mb(rss0),
      rssAfterSeedMB: mb(rssSeeded),
      searchRssMB: mb(memory.rss - rssSeeded),
      heapUsedMB: mb(memory.heapUsed),
      arrayBuffersMB: mb(memory.arrayBuffers),
    });

    const index = app.deps.search.forDb(db);
    const queries = benchQueries(200, count);
    const vectors = await embeddings.embed(queries);
    const space = EXPERIENCE_SPACES[ExperienceField.PRIMARY_GOAL].name;
    if (phases.has('vector')) await measureVector(index, space, vectors);
    if (phases.has('keyword')) {
      const keywordMs: number[] = [];
      for (const text of queries) await timed(keywordMs, () => index.searchKeyword(space, { text, k: 50 }));
      report('keyword', {
        space,
        k: 50,
        p50Ms: ms(percentile(keywordMs, 0.5)),
        p95Ms: ms(percentile(keywordMs, 0.95)),
      });
    }
    if (phases.has('graphql')) await measureGraphql(app, queries);
    if (phases.has('ranking')) await measureRanking(app, queries);
    if (phases.has('filtered')) {
      const filtered = await measureFilteredSearch(app, db, embeddings, count);
      for (const figure of filtered.figures) report('filtered', { ...figure });
      process.stderr.write(filteredSearchTable(filtered) + '\n');
    }

    if (!phases.has('restart')) {
      if (keep) await app.deps.search.save();
      await app.deps.search.close();
      await app.server.stop();
      return;
    }
    // Restart: save, write behind the server's back, then a cold start that restores and catches up.
    let begun = performance.now();
    await app.deps.search.save();
    const saveMs = performance.now() - begun;
    await app.server.stop();
    const changed = await writeBehindTheServer(db, CHANGES_BEHIND);
    global.gc?.();
    const rssBeforeRestart = process.memoryUsage().rss;
    const restoredSpaces: Array<Record<string, unknown>> = [];
    const capture = createLogger('info', (line) => {
      const entry = JSON.parse(line) as Record<string, unknown>;
      if (entry.message === 'search space restored') restoredSpaces.push(entry);
      else if (String(entry.message).startsWith('search')) process.stderr.write(line + '\n');
    });
    begun = performance.now();
    const restarted = await startApp(db, client, dataDir, capture);
    const restoreMs = performance.now() - begun;
    global.gc?.();
    report('restart', {
      buildSeconds: +(buildMs / 1000).toFixed(1),
      saveSeconds: +(saveMs / 1000).toFixed(2),
      restoreSeconds: +(restoreMs / 1000).toFixed(2),
      restoreVsBuild: +(buildMs / restoreMs).toFixed(1),
      writtenBehind: changed,
      spacesRestored: restoredSpaces.length,
      caughtUp: restoredSpaces.map(({ space, updated, removed, ms }) => ({ space, updated, removed, ms })),
      rssMB: mb(process.memoryUsage().rss),
      searchRssMB: mb(process.memoryUsage().rss - rssBeforeRestart),
    });
    const samples: number[] = [];
    for (const query of queries) await timed(samples, () => restarted.search({ query, mode: 'HYBRID' }));
    report('graphql', {
      operation: 'searchExperiences',
      after: 'restart',
      mode: 'HYBRID',
      limit: 10,
      p50Ms: ms(percentile(samples, 0.5)),
      p95Ms: ms(percentile(samples, 0.95)),
      p99Ms: ms(percentile(samples, 0.99)),
    });
    await restarted.deps.search.close();
    await restarted.server.stop();
  } finally {
    await client.close();
    await engine.close();
    if (!keep) rmSync(dataDir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
}
