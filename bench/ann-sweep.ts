/**
 * ANN parameter sweep (`npm run build && node --expose-gc dist/bench/ann-sweep.js [count] [field ...]`): embeds the
 * texts of `count` (default 100k) generated experiences with the hash embedder (384-d) exactly as bench/search-e2e.ts
 * seeds them (no database), plus its 200 benchmark queries, then measures configurations of the vector index against
 * the exact scan, printing one JSON line per configuration and beam width:
 * - `store`: {@link VectorStore} as the server builds it (addMany in batches of 512, sized for count × 1.05);
 * - `raw`: a usearch graph over the f32 rows with the given connectivity, expansion_add and quantisation, optionally
 *   over distinct vectors only (`dedupe`: a duplicate is stored once and the search expands it to every id holding
 *   it), candidates re-scored exactly from the f32 rows as the store does.
 * Measured: build seconds, recall@10 against the exact top 10 (plain: same ids; tie-aware: an ANN hit scoring at
 * least the exact 10th score − 1e-6 counts), ANN p50/p95, exact p50, and the memory the index holds (RSS and
 * arrayBuffers deltas after global.gc). Each configuration runs in its own process, so freed native memory of one
 * does not hide the next one's; the vectors are generated once into a file in the temporary directory. Fields: primary_goal_description, sub_task_description, input_context_summary,
 * output_summary, or `embedding-like` (Gaussian vectors of a 32-d latent space, no duplicates). ANN_SWEEP_CONFIGS
 * (comma-separated names) picks configurations.
 */
import 'reflect-metadata';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { Index, MetricKind, ScalarKind } from 'usearch';
import { HashEmbeddingProvider } from '../src/embeddings/hash.provider';
import { ExperienceField } from '../src/modules/experiences/experience.type';
import { VectorStore, exactSearch, rowDot, unitVector } from '../src/search/vector-store';
import { TopK } from '../src/search/top-k';
import { embeddingLikeVectors } from '../test/support/vectors';
import { benchQueries, experienceTexts, percentile } from './search-e2e';

const DIMENSIONS = 384;
const K = 10;
const QUERIES = 200;
const BUILD_BATCH = 512;

interface RawConfig {
  kind: 'raw';
  name: string;
  dedupe: boolean;
  quantization: 'f32' | 'f16' | 'i8';
  connectivity: number;
  expansionAdd: number;
}
type Config = RawConfig | { kind: 'store'; name: string };

/** Beam widths (graph candidates per search) measured for each built index. */
const CANDIDATES = [160, 200, 320];

const raw = (
  name: string,
  dedupe: boolean,
  quantization: RawConfig['quantization'],
  connectivity = 24,
  expansionAdd = 64,
): RawConfig => ({
  kind: 'raw',
  name,
  dedupe,
  quantization,
  connectivity,
  expansionAdd,
});

const CONFIGS: Config[] = [
  { kind: 'store', name: 'store' },
  raw('f16-m24', false, 'f16'),
  raw('f16-m24-add128', false, 'f16', 24, 128),
  raw('f32-m24', false, 'f32'),
  raw('dedupe-f16-m24', true, 'f16'),
  raw('dedupe-i8-m24', true, 'i8'),
  raw('dedupe-f32-m24', true, 'f32'),
  raw('dedupe-f16-m16', true, 'f16', 16, 64),
  raw('dedupe-f16-m24-add128', true, 'f16', 24, 128),
  raw('dedupe-i8-m32-add128', true, 'i8', 32, 128),
];

const SCALARS = { f32: ScalarKind.F32, f16: ScalarKind.F16, i8: ScalarKind.I8 } as const;
const mb = (bytes: number) => Math.round(bytes / 2 ** 20);
const ms = (value: number) => +value.toFixed(3);

/** Unit vectors of `field` for experiences 0 .. count-1 and of the benchmark queries. */
async function generate(field: string, count: number): Promise<{ data: Float32Array[]; queries: Float32Array[] }> {
  if (field === 'embedding-like') {
    const next = embeddingLikeVectors({ dimensions: DIMENSIONS, seed: 2024 });
    return { data: Array.from({ length: count }, next), queries: Array.from({ length: QUERIES }, next) };
  }
  const embedder = new HashEmbeddingProvider(DIMENSIONS);
  const data = await embedder.embed(
    Array.from({ length: count }, (_, i) => experienceTexts(i)[field as ExperienceField]),
  );
  // The queries of search-e2e are goal-like texts; they are searched in every field, as a hybrid search does.
  const queries = await embedder.embed(benchQueries(QUERIES, count));
  const units = (vectors: Float32Array[]) =>
    vectors.map((vector) => unitVector(vector)).filter((vector): vector is Float32Array => vector !== null);
  return { data: units(data), queries: units(queries) };
}

const cacheFile = (field: string, count: number) => path.join(os.tmpdir(), `ann-sweep-${field}-${count}.f32`);

/**
 * Writes the vectors of `field` (data, then queries) to a file in the temporary directory, once. A configuration's
 * process reads them as one buffer: generating them there would leave freed memory that the index under test reuses,
 * hiding its RSS.
 */
async function cache(field: string, count: number): Promise<void> {
  if (existsSync(cacheFile(field, count))) return;
  const { data, queries } = await generate(field, count);
  const header = Uint32Array.of(data.length, queries.length);
  writeFileSync(
    cacheFile(field, count),
    Buffer.concat(
      [header, ...data, ...queries].map((array) => new Uint8Array(array.buffer, array.byteOffset, array.byteLength)),
    ),
  );
}

function vectorsOf(field: string, count: number): { all: Float32Array; data: Float32Array[]; queries: Float32Array[] } {
  const bytes = readFileSync(cacheFile(field, count));
  const [rows, queryRows] = new Uint32Array(bytes.buffer, bytes.byteOffset, 2);
  const floats = new Float32Array(bytes.buffer, bytes.byteOffset + 8, (rows + queryRows) * DIMENSIONS);
  const row = (i: number) => floats.subarray(i * DIMENSIONS, (i + 1) * DIMENSIONS);
  return {
    all: floats.subarray(0, rows * DIMENSIONS),
    data: Array.from({ length: rows }, (_, i) => row(i)),
    queries: Array.from({ length: queryRows }, (_, q) => row(rows + q)),
  };
}

/** The index under test: build it, then search (returns the top K ids, i.e. experience numbers). */
interface Built {
  search(
    query: Float32Array,
    candidates: number,
  ): Promise<Array<{ id: number; score: number }>> | Array<{ id: number; score: number }>;
  distinct: number;
}

async function buildStore(data: Float32Array[]): Promise<Built> {
  const store = new VectorStore(DIMENSIONS, Math.max(1024, Math.ceil(data.length * 1.05)));
  for (let from = 0; from < data.length; from += BUILD_BATCH) {
    await store.addMany(data.slice(from, from + BUILD_BATCH).map((vector, i) => ({ id: String(from + i), vector })));
  }
  return {
    distinct: data.length,
    search: async (query, candidates) =>
      (await store.approximate(query, candidates))
        .slice(0, K)
        .map(({ row, score }) => ({ id: Number(store.idOf(row)), score })),
  };
}

function buildRaw(config: RawConfig, data: Float32Array[]): Built {
  // Groups of identical vectors (one when not deduplicating): matrix row g holds the vector of group g.
  const groupOf = new Int32Array(data.length);
  const firstOfGroup: number[] = [];
  const byHash = new Map<number, number[]>();
  const same = (a: Float32Array, b: Float32Array) => a.every((value, i) => value === b[i]);
  data.forEach((vector, i) => {
    if (config.dedupe) {
      const hash = crc32(new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength));
      const candidates = byHash.get(hash);
      const found = candidates?.find((group) => same(data[firstOfGroup[group]], vector));
      if (found !== undefined) {
        groupOf[i] = found;
        return;
      }
      if (candidates) candidates.push(firstOfGroup.length);
      else byHash.set(hash, [firstOfGroup.length]);
    }
    groupOf[i] = firstOfGroup.length;
    firstOfGroup.push(i);
  });
  byHash.clear();
  const groups = firstOfGroup.length;
  const matrix = new Float32Array(groups * DIMENSIONS);
  firstOfGroup.forEach((i, group) => matrix.set(data[i], group * DIMENSIONS));
  // Members of each group in id order (CSR): a search expands a group to all of them.
  const starts = new Int32Array(groups + 1);
  for (let i = 0; i < data.length; i++) starts[groupOf[i] + 1]++;
  for (let g = 0; g < groups; g++) starts[g + 1] += starts[g];
  const members = new Int32Array(data.length);
  const fill = starts.slice(0, groups);
  for (let i = 0; i < data.length; i++) members[fill[groupOf[i]]++] = i;

  const graph = new Index({
    dimensions: DIMENSIONS,
    metric: MetricKind.Cos,
    quantization: SCALARS[config.quantization],
    connectivity: config.connectivity,
    expansion_add: config.expansionAdd,
    expansion_search: 64,
    multi: false,
  });
  for (let from = 0; from < groups; from += BUILD_BATCH) {
    const to = Math.min(groups, from + BUILD_BATCH);
    const keys = BigUint64Array.from({ length: to - from }, (_, i) => BigInt(from + i));
    graph.add(keys, matrix.subarray(from * DIMENSIONS, to * DIMENSIONS), os.availableParallelism());
  }
  return {
    distinct: groups,
    search(query, candidates) {
      const top = new TopK(K);
      for (const key of graph.search(query, candidates, 1).keys) {
        const group = Number(key);
        const score = rowDot(matrix, group, query);
        if (score < top.threshold) continue;
        for (let m = starts[group]; m < starts[group + 1]; m++) top.offer(members[m], score);
      }
      return top.drain().map(({ item, score }) => ({ id: item, score }));
    },
  };
}

/** Runs one configuration on one field and prints its lines. */
async function runOne(field: string, count: number, config: Config): Promise<void> {
  const { all, data, queries } = vectorsOf(field, count);
  const exactMs: number[] = [];
  const truth = queries.map((query) => {
    const started = performance.now();
    const top = exactSearch(all, query, K);
    exactMs.push(performance.now() - started);
    return top;
  });

  global.gc?.();
  const before = process.memoryUsage();
  const started = performance.now();
  const built = config.kind === 'store' ? await buildStore(data) : buildRaw(config, data);
  const buildSeconds = (performance.now() - started) / 1000;
  global.gc?.();
  const after = process.memoryUsage();

  for (const candidates of CANDIDATES) {
    const annMs: number[] = [];
    let plain = 0;
    let tieAware = 0;
    for (const [q, query] of queries.entries()) {
      const begun = performance.now();
      const ann = await built.search(query, candidates);
      annMs.push(performance.now() - begun);
      const ids = new Set(truth[q].map(({ row }) => row));
      plain += ann.filter(({ id }) => ids.has(id)).length;
      const tenth = truth[q][truth[q].length - 1]?.score ?? -Infinity;
      tieAware += Math.min(truth[q].length, ann.filter(({ score }) => score >= tenth - 1e-6).length);
    }
    process.stdout.write(
      JSON.stringify({
        field,
        count: data.length,
        distinct: built.distinct,
        config: config.name,
        ...(config.kind === 'raw'
          ? {
              dedupe: config.dedupe,
              quantization: config.quantization,
              connectivity: config.connectivity,
              expansionAdd: config.expansionAdd,
            }
          : {}),
        candidates,
        recallAt10: +(plain / (queries.length * K)).toFixed(4),
        recallAt10TieAware: +(tieAware / (queries.length * K)).toFixed(4),
        annP50Ms: ms(percentile(annMs, 0.5)),
        annP95Ms: ms(percentile(annMs, 0.95)),
        exactP50Ms: ms(percentile(exactMs, 0.5)),
        buildSeconds: +buildSeconds.toFixed(1),
        rssMB: mb(after.rss - before.rss),
        arrayBuffersMB: mb(after.arrayBuffers - before.arrayBuffers),
      }) + '\n',
    );
  }
}

async function main(): Promise<void> {
  const [countArg, ...rest] = process.argv.slice(2);
  const count = Number(countArg ?? 100_000);
  const one = process.env.ANN_SWEEP_ONE;
  if (one) {
    const [field, name] = one.split('|');
    await runOne(
      field,
      count,
      CONFIGS.find((config) => config.name === name)!,
    );
    return;
  }
  const fields = rest.length ? rest : [ExperienceField.PRIMARY_GOAL, ExperienceField.SUB_TASK];
  const names = process.env.ANN_SWEEP_CONFIGS?.split(',');
  const configs = CONFIGS.filter((config) => !names || names.includes(config.name));
  for (const field of fields) {
    await cache(field, count);
    for (const config of configs) {
      // A process per configuration: memory one released (native heaps keep it) would blur the next one's delta.
      execFileSync(process.execPath, [...process.execArgv, __filename, String(count)], {
        env: { ...process.env, ANN_SWEEP_ONE: `${field}|${config.name}` },
        stdio: 'inherit',
      });
    }
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
