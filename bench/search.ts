/**
 * In-process search benchmark (`npm run build && node dist/bench/search.js`): builds a space of BENCH_SEARCH_COUNT
 * (default 100k) 384-d embedding-like vectors with a BM25 index over 12-word texts (Zipf-distributed words), then
 * measures ANN vs exact search and recall@10; scoped search (exact over the rows a filter leaves against filtered
 * ANN, for growing sizes: the crossover); keyword top-k with and without pruning; build, save and restore times and
 * memory. Prints one JSON line per measure.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HNSW, VectorStore } from '../src/search/vector-store';
import { KeywordIndex } from '../src/search/bm25';
import { firstPassing } from '../src/search/filter';
import { loadSnapshot, saveSnapshot } from '../src/search/persistence';
import { DocumentIds, Fingerprints } from '../src/search/document-ids';
import { embeddingLikeVectors, seededRandom } from '../test/support/vectors';
import { timed } from './search-e2e';

const COUNT = Number(process.env.BENCH_SEARCH_COUNT ?? 100_000);
const DIMENSIONS = 384;
const QUERIES = 200;
const K = 10;
const VOCABULARY = 5000;

/** Word ranks drawn from a Zipf(1) law over VOCABULARY words, as word frequencies in text roughly are. */
function zipfWords(random: () => number): () => string {
  const cumulative = new Float64Array(VOCABULARY);
  let sum = 0;
  for (let rank = 0; rank < VOCABULARY; rank++) cumulative[rank] = sum += 1 / (rank + 1);
  return () => {
    const target = random() * sum;
    let low = 0;
    let high = VOCABULARY - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (cumulative[middle] < target) low = middle + 1;
      else high = middle;
    }
    return `w${low}`;
  };
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

function report(name: string, fields: Record<string, unknown>): void {
  process.stdout.write(JSON.stringify({ bench: name, ...fields }) + '\n');
}

async function main(): Promise<void> {
  const rssBefore = process.memoryUsage().rss;
  const next = embeddingLikeVectors({ dimensions: DIMENSIONS, seed: 2024 });
  const word = zipfWords(seededRandom(7));
  const words = (count: number) => Array.from({ length: count }, word).join(' ');
  const store = new VectorStore(DIMENSIONS);
  const keywords = new KeywordIndex(['text']);
  const started = performance.now();
  const BATCH = 1024;
  for (let from = 0; from < COUNT; from += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, COUNT - from) }, (_, i) => ({
      id: `d${from + i}`,
      vector: next(),
    }));
    await store.addMany(batch);
    for (const { id } of batch) {
      keywords.upsert(id, { text: words(12) });
    }
  }
  const buildMs = performance.now() - started;
  const rssMB = (process.memoryUsage().rss - rssBefore) / 2 ** 20;
  report('build', {
    count: COUNT,
    dimensions: DIMENSIONS,
    hnsw: HNSW,
    seconds: +(buildMs / 1000).toFixed(1),
    rssIncreaseMB: Math.round(rssMB),
  });

  const queries = Array.from({ length: QUERIES }, next);
  const exactMs: number[] = [];
  const annMs: number[] = [];
  let found = 0;
  for (const query of queries) {
    const truth = new Set((await timed(exactMs, () => store.exact(query, K))).map(({ row }) => row));
    const ann = (await timed(annMs, () => store.approximate(query, Math.max(4 * K, HNSW.expansionSearch)))).slice(0, K);
    found += ann.filter(({ row }) => truth.has(row)).length;
  }
  report('vector', {
    recallAt10: +(found / (QUERIES * K)).toFixed(4),
    annP50Ms: +percentile(annMs, 0.5).toFixed(3),
    annP95Ms: +percentile(annMs, 0.95).toFixed(3),
    exactP50Ms: +percentile(exactMs, 0.5).toFixed(3),
    speedupP50: +(percentile(exactMs, 0.5) / percentile(annMs, 0.5)).toFixed(1),
  });

  // Scoped search: exact over the rows the filter leaves, against the graph walked until k candidates pass.
  for (const size of [1000, 2000, 5000, 10_000, 20_000, 50_000]) {
    if (size > COUNT) break;
    const rows = Int32Array.from({ length: size }, (_, i) => Math.floor((i * COUNT) / size));
    const passing = new Set(Array.from(rows, (row) => store.idOf(row)));
    const exactMs: number[] = [];
    const annMs: number[] = [];
    for (const query of queries.slice(0, 50)) {
      await timed(exactMs, () => store.exact(query, K, rows));
      const started = performance.now();
      await firstPassing(
        async (n) =>
          (await store.approximate(query, Math.max(n, HNSW.expansionSearch)))
            .slice(0, n)
            .map(({ row, score }) => ({ id: store.idOf(row), score })),
        K,
        async (ids) => new Set(ids.filter((id) => passing.has(id))),
      );
      annMs.push(performance.now() - started);
    }
    report('scoped', {
      allowed: size,
      exactP50Ms: +percentile(exactMs, 0.5).toFixed(3),
      filteredAnnP50Ms: +percentile(annMs, 0.5).toFixed(3),
    });
  }

  const keywordQueries = Array.from({ length: QUERIES }, () => words(6));
  for (const prune of [true, false]) {
    const keywordMs: number[] = [];
    for (const text of keywordQueries) await timed(keywordMs, () => keywords.top(text, K * 4, { prune }));
    const commonMs: number[] = [];
    for (let q = 0; q < 20; q++) await timed(commonMs, () => keywords.top('w0 w1 w2 w3', K * 4, { prune }));
    report('keyword', {
      documents: keywords.size,
      prune,
      p50Ms: +percentile(keywordMs, 0.5).toFixed(3),
      p95Ms: +percentile(keywordMs, 0.95).toFixed(3),
      fourMostCommonWordsP50Ms: +percentile(commonMs, 0.5).toFixed(3),
    });
  }

  const dir = mkdtempSync(path.join(os.tmpdir(), 'hindsight-search-bench-'));
  try {
    const identity = {
      space: { name: 'bench', collection: 'bench', idField: 'id', vectorPath: 'v', textPaths: ['text'] },
      dimensions: DIMENSIONS,
      model: null,
    };
    const documents = new DocumentIds();
    const fingerprints = new Fingerprints(documents);
    for (let i = 0; i < COUNT; i++) fingerprints.set(`d${i}`, i);
    let begun = performance.now();
    const bytes = await saveSnapshot(dir, identity, {
      vectors: store,
      keywords,
      fingerprints,
      documents,
      position: null,
    });
    const saveMs = performance.now() - begun;
    begun = performance.now();
    const restored = (await loadSnapshot(dir, identity, new DocumentIds()))!;
    const loadMs = performance.now() - begun;
    let same = true;
    for (const query of queries.slice(0, 20))
      same &&=
        JSON.stringify(await restored.vectors.approximate(query, 160)) ===
        JSON.stringify(await store.approximate(query, 160));
    report('snapshot', {
      mb: Math.round(bytes / 2 ** 20),
      saveMs: Math.round(saveMs),
      loadMs: Math.round(loadMs),
      buildMs: Math.round(buildMs),
      sameResults: same,
      loadVsBuild: +(buildMs / loadMs).toFixed(1),
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
