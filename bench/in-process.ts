/**
 * The running server against the same work done in process: each operation with a one-connection latency target
 * (`singleClient`) is executed through Apollo's `executeOperation` in this process, over the same data (the engine on
 * the embedded target's DATA_DIR, its saved search index restored), one request at a time with the variables the
 * server's one-connection run drew. What the server adds beyond the in-process figure is the HTTP, fast-path and
 * engine-thread cost of the running server, plus whatever the earlier phases left behind in it: a gap of several
 * times is a finding, not noise.
 */
import 'reflect-metadata';
import { MongoClient } from 'mongodb';
import { createAppDeps, prepareDatabase } from '../src/app';
import { loadConfig } from '../src/config';
import { createContext } from '../src/context';
import { createEmbeddingProvider } from '../src/embeddings';
import { silentLogger } from '../src/logger';
import { buildAppSchema } from '../src/schema';
import { createServer } from '../src/http/server';
import { percentile } from './report';
import { appOf, measureFilteredSearch, type FilteredSearchFigures } from './search-e2e';
import { variableStream, type Operation } from './operations';

/** What the in-process phase measured: the one-connection operations, and filtered searches. */
export interface InProcessResults {
  operations: InProcessFigures[];
  /** HYBRID searches whose filter keeps each agent's share of the experiences (bench/seed.ts `AGENT_SHARES`). */
  filtered: FilteredSearchFigures;
}

export interface InProcessFigures {
  operation: string;
  requests: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
}

/** Seconds of unmeasured requests first: V8 compiles the hot paths of a fresh app over the first thousands. */
const WARMUP_SECONDS = 5;

/**
 * Runs each of `ops` that has `singleClient` for `seconds` in process against `uri` (a database served from
 * `dataDir`, holding `experiences` experiences), with the variable stream `seedOf(operation)` draws; then the filtered
 * searches of bench/search-e2e.ts over the same data.
 */
export async function measureInProcess(
  uri: string,
  dataDir: string,
  ops: Operation[],
  seedOf: (operation: Operation) => number,
  seconds: number,
  experiences: number,
): Promise<InProcessResults> {
  const config = loadConfig({}, { embeddingsProvider: 'hash', dataDir, port: 0, host: '127.0.0.1' });
  const client = await MongoClient.connect(uri, { ignoreUndefined: true });
  const embeddings = await createEmbeddingProvider(config);
  const deps = createAppDeps({
    config,
    logger: silentLogger,
    database: { kind: 'EXTERNAL', version: 'bench', client, db: client.db() },
    embeddings,
  });
  try {
    await prepareDatabase(deps, client.db());
    const server = await createServer(deps, await buildAppSchema());
    try {
      const figures: InProcessFigures[] = [];
      for (const operation of ops.filter((candidate) => candidate.singleClient)) {
        const next = variableStream(operation, seedOf(operation));
        const execute = async () => {
          const response = await server.apollo.executeOperation(
            { query: operation.query, variables: next() },
            { contextValue: createContext(deps) },
          );
          if (response.body.kind !== 'single') throw new Error('unexpected incremental response');
          const { errors } = response.body.singleResult;
          if (errors?.length) throw new Error(`${operation.name} in process: ${JSON.stringify(errors[0])}`);
        };
        const warmEnd = performance.now() + WARMUP_SECONDS * 1000;
        while (performance.now() < warmEnd) await execute();
        const latencies: number[] = [];
        const end = performance.now() + seconds * 1000;
        while (performance.now() < end) {
          const start = performance.now();
          await execute();
          latencies.push(performance.now() - start);
        }
        const ms = (p: number) => Number(percentile(latencies, p).toFixed(2));
        figures.push({
          operation: operation.name,
          requests: latencies.length,
          p50Ms: ms(0.5),
          p95Ms: ms(0.95),
          p99Ms: ms(0.99),
        });
      }
      const filtered = await measureFilteredSearch(appOf(deps, server), client.db(), embeddings, experiences);
      return { operations: figures, filtered };
    } finally {
      await server.stop();
    }
  } finally {
    await deps.search.close();
    await client.close();
  }
}
