/**
 * In-process search benchmark (`npm run build && node dist/bench/search.js`): builds a space of BENCH_SEARCH_COUNT
 * (default 100k) 384-d embedding-like vectors with a BM25 index over 12-word texts (Zipf-distributed words), then measures ANN vs exact
 * search, recall@10, an exact scan over 10k filtered rows, keyword search, build time and memory.
 * Prints one JSON line per measure.
 */
import { HNSW, VectorStore } from '../src/search/vector-store';
import { KeywordIndex } from '../src/search/bm25';
import { EXACT_SEARCH_MAX } from '../src/search/filter';
import { embeddingLikeVectors, seededRandom } from '../test/search/support/vectors';

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

function time<T>(samples: number[], run: () => T): T {
  const started = performance.now();
  const result = run();
  samples.push(performance.now() - started);
  return result;
}

function report(name: string, fields: Record<string, unknown>): void {
  process.stdout.write(JSON.stringify({ bench: name, ...fields }) + '\n');
}

function main(): void {
  const rssBefore = process.memoryUsage().rss;
  const next = embeddingLikeVectors({ dimensions: DIMENSIONS, seed: 2024 });
  const word = zipfWords(seededRandom(7));
  const words = (count: number) => Array.from({ length: count }, word).join(' ');
  const store = new VectorStore(DIMENSIONS);
  const keywords = new KeywordIndex(['text']);
  const started = performance.now();
  const BATCH = 1024;
  for (let from = 0; from < COUNT; from += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, COUNT - from) }, (_, i) => ({ id: `d${from + i}`, vector: next() }));
    store.addMany(batch);
    for (const { id } of batch) {
      keywords.upsert(id, { text: words(12) });
    }
  }
  const buildMs = performance.now() - started;
  const rssMB = (process.memoryUsage().rss - rssBefore) / 2 ** 20;
  report('build', { count: COUNT, dimensions: DIMENSIONS, hnsw: HNSW, seconds: +(buildMs / 1000).toFixed(1), rssIncreaseMB: Math.round(rssMB) });

  const queries = Array.from({ length: QUERIES }, next);
  const exactMs: number[] = [];
  const annMs: number[] = [];
  let found = 0;
  for (const query of queries) {
    const truth = new Set(time(exactMs, () => store.exact(query, K)).map(({ row }) => row));
    const ann = time(annMs, () => store.approximate(query, Math.max(4 * K, HNSW.expansionSearch)).slice(0, K));
    found += ann.filter(({ row }) => truth.has(row)).length;
  }
  report('vector', {
    recallAt10: +(found / (QUERIES * K)).toFixed(4),
    annP50Ms: +percentile(annMs, 0.5).toFixed(3),
    annP95Ms: +percentile(annMs, 0.95).toFixed(3),
    exactP50Ms: +percentile(exactMs, 0.5).toFixed(3),
    speedupP50: +(percentile(exactMs, 0.5) / percentile(annMs, 0.5)).toFixed(1),
  });

  const allowed = Int32Array.from({ length: Math.min(EXACT_SEARCH_MAX, COUNT) }, (_, i) => (i * 7) % COUNT);
  const filteredMs: number[] = [];
  for (const query of queries) time(filteredMs, () => store.exact(query, K, allowed));
  report('vector-exact-over-filter', { rows: allowed.length, p50Ms: +percentile(filteredMs, 0.5).toFixed(3), p95Ms: +percentile(filteredMs, 0.95).toFixed(3) });

  const keywordMs: number[] = [];
  for (let q = 0; q < QUERIES; q++) {
    const text = words(6);
    time(keywordMs, () => keywords.score(text).top(K * 4));
  }
  const commonMs: number[] = [];
  for (let q = 0; q < 20; q++) time(commonMs, () => keywords.score('w0 w1 w2 w3').top(K * 4));
  report('keyword', {
    documents: keywords.size,
    p50Ms: +percentile(keywordMs, 0.5).toFixed(3),
    p95Ms: +percentile(keywordMs, 0.95).toFixed(3),
    fourMostCommonWordsP50Ms: +percentile(commonMs, 0.5).toFixed(3),
  });
}

main();
