/**
 * Baseline (b): exact search against the in-process ANN index over the seeded vectors (the primary-goal space: the
 * hash embeddings of every seeded experience's goal, as the server holds them), in this process, so that neither
 * HTTP nor the database is in the figures. Also the crossover of filtered searches: the size of the set a filter
 * leaves at which scanning it exactly costs as much as walking the graph until k candidates pass.
 */
import { EmbeddingService } from '../src/embeddings/embedding.service';
import { HashEmbeddingProvider } from '../src/embeddings/hash.provider';
import { EXACT_SEARCH_MAX } from '../src/search/filter';
import { HNSW, VectorStore, unitVector, type ScoredRow } from '../src/search/vector-store';
import { seededRandom } from '../test/support/vectors';
import { timed } from './search-e2e';
import { DIMENSIONS } from './seed';
import { percentile } from './report';

const K = 10;
const QUERIES = 200;
/** Queries per filter size (each exact scan of 100k rows costs tens of milliseconds). */
const FILTER_QUERIES = 50;
const BUILD_BATCH = 1024;

export interface FilteredFigures {
  /** Vectors the filter leaves. */
  rows: number;
  exactP50Ms: number;
  /** Graph walk with growing candidate lists (4k, 16k, …, at least HNSW.expansionSearch) until k pass, as SearchIndex does. */
  annP50Ms: number;
  annRecallAt10: number;
}

export interface VectorFigures {
  vectors: number;
  dimensions: number;
  buildSeconds: number;
  queries: number;
  /** Share of the true top 10 found, counted by score (see `hitsAmong`). */
  recallAt10: number;
  annP50Ms: number;
  annP95Ms: number;
  exactP50Ms: number;
  exactP95Ms: number;
  /** exact p50 / ANN p50. */
  speedupP50: number;
  filtered: FilteredFigures[];
  /** Smallest filtered set size at which the exact scan's p50 passes the graph walk's (interpolated); null if never. */
  crossoverRows: number | null;
  /** The server's rule: filters leaving at most this many vectors are scanned exactly. */
  exactSearchMax: number;
}

const round = (value: number, digits = 3) => Number(value.toFixed(digits));

/** Graph candidates checked against `allowed` in growing lists until k pass (SearchIndex's `firstPassing`, in memory). */
async function filteredApproximate(
  store: VectorStore,
  query: Float32Array,
  allowed: Set<number>,
): Promise<ScoredRow[]> {
  for (let n = 4 * K; ; n *= 4) {
    const ranked = (await store.approximate(query, Math.max(n, HNSW.expansionSearch))).slice(0, n);
    const kept = ranked.filter(({ row }) => allowed.has(row));
    if (kept.length >= K || ranked.length < n) return kept.slice(0, K);
  }
}

/**
 * How many of `found` belong in the true top k: scoring at least the k-th true score. Counted by score, not by row:
 * equal texts have equal vectors, and which of several tied rows an exact scan keeps is arbitrary.
 */
function hitsAmong(truth: ScoredRow[], found: ScoredRow[]): number {
  const kth = truth[truth.length - 1]?.score ?? Infinity;
  return Math.min(truth.length, found.filter(({ score }) => score >= kth - 1e-6).length);
}

/** Builds the space from `texts` (embedded with the server's hash embedder) and measures it with `queryTexts`. */
export async function measureVectors(
  texts: string[],
  queryTexts: string[],
  log: (line: string) => void,
): Promise<VectorFigures> {
  const embedder = new EmbeddingService(new HashEmbeddingProvider(DIMENSIONS), null, { batchSize: 4096 });
  const store = new VectorStore(DIMENSIONS);
  const started = performance.now();
  for (let from = 0; from < texts.length; from += BUILD_BATCH) {
    const batch = texts.slice(from, from + BUILD_BATCH);
    const vectors = await embedder.embed(batch);
    await store.addMany(vectors.map((vector, i) => ({ id: `e${from + i}`, vector })));
  }
  const buildSeconds = round((performance.now() - started) / 1000, 1);
  log(`vector index of ${store.size} vectors built in ${buildSeconds} s`);

  const queries = (await embedder.embed(queryTexts.slice(0, QUERIES)))
    .map((vector) => unitVector(vector)!)
    .filter(Boolean);
  const annMs: number[] = [];
  const exactMs: number[] = [];
  let found = 0;
  // Each kind in a loop of its own, as a server under load runs searches: an exact scan between two walks (23 ms of
  // the API thread streaming the matrix through the caches) left the graph's worker idle and its caches cold, which
  // added 0.2-0.4 ms to the walk that followed.
  const truths: ScoredRow[][] = [];
  for (const query of queries) truths.push(await timed(exactMs, () => store.exact(query, K)));
  for (const [q, query] of queries.entries()) {
    // As the server's unfiltered search asks (SearchIndex.searchVector): max(4k, the beam) candidates, the best k kept.
    found += hitsAmong(
      truths[q],
      await timed(annMs, () => store.approximate(query, Math.max(4 * K, HNSW.expansionSearch), K)),
    );
  }

  const random = seededRandom(11);
  const filtered: FilteredFigures[] = [];
  const sizes = [1000, 2000, 5000, EXACT_SEARCH_MAX, 20_000, 50_000, store.size].filter(
    (rows, i, all) => rows <= store.size && all.indexOf(rows) === i,
  );
  for (const rows of sizes) {
    // A random subset, as a filter on tags or agents leaves one: unrelated to the query's neighbourhood.
    const picked = new Set<number>();
    while (picked.size < rows) picked.add(Math.floor(random() * store.size));
    const list = Int32Array.from(picked);
    const exact: number[] = [];
    const ann: number[] = [];
    let hits = 0;
    for (const query of queries.slice(0, FILTER_QUERIES)) {
      const truth = await timed(exact, () => store.exact(query, K, list));
      hits += hitsAmong(truth, await timed(ann, () => filteredApproximate(store, query, picked)));
    }
    filtered.push({
      rows,
      exactP50Ms: round(percentile(exact, 0.5)),
      annP50Ms: round(percentile(ann, 0.5)),
      annRecallAt10: round(hits / (FILTER_QUERIES * K), 4),
    });
  }

  return {
    vectors: store.size,
    dimensions: DIMENSIONS,
    buildSeconds,
    queries: queries.length,
    recallAt10: round(found / (queries.length * K), 4),
    annP50Ms: round(percentile(annMs, 0.5)),
    annP95Ms: round(percentile(annMs, 0.95)),
    exactP50Ms: round(percentile(exactMs, 0.5)),
    exactP95Ms: round(percentile(exactMs, 0.95)),
    speedupP50: round(percentile(exactMs, 0.5) / percentile(annMs, 0.5), 1),
    filtered,
    crossoverRows: crossover(filtered),
    exactSearchMax: EXACT_SEARCH_MAX,
  };
}

/** Where exact p50 first exceeds the graph walk's p50, interpolated linearly between the measured sizes. */
function crossover(filtered: FilteredFigures[]): number | null {
  for (let i = 0; i < filtered.length; i++) {
    const here = filtered[i];
    if (here.exactP50Ms <= here.annP50Ms) continue;
    if (i === 0) return here.rows;
    const before = filtered[i - 1];
    const gapBefore = before.annP50Ms - before.exactP50Ms;
    const gapHere = here.exactP50Ms - here.annP50Ms;
    return Math.round(before.rows + ((here.rows - before.rows) * gapBefore) / (gapBefore + gapHere));
  }
  return null;
}
