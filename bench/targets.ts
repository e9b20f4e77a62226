/**
 * The targets `npm run bench` holds the server to (docs/performance.md), each checked against one run's figures:
 * met, missed, or not measured (its target or phase was not part of the run).
 */
import type { BatchingFigures } from './batching';
import type { InProcessFigures } from './in-process';
import type { OperationResult } from './report';
import type { FilteredSearchFigures } from './search-e2e';
import type { VectorFigures } from './vector';

/** What the checks read of a run (bench/run.ts `Results`). */
export interface RunFigures {
  operations: OperationResult[];
  coldStarts: Array<{ target: string; start: string; ms: number; vsBuild: number | null; rssMB: number | null }>;
  vector: VectorFigures | null;
  batching: BatchingFigures[] | null;
  inProcess: InProcessFigures[] | null;
  filteredSearch: FilteredSearchFigures | null;
}

export interface TargetCheck {
  target: string;
  figure: string;
  /** null: not measured in this run. */
  met: boolean | null;
}

const READS_WITH_BASELINE = ['session', 'sessionsPage', 'toolPerformance', 'experiencesWithSessions'];
const RESTART_MAX_MS = 5000;
const RESTORE_MIN_SPEEDUP = 50;
const RSS_MAX_MB = 1536;

const format = (value: number, digits = 1) => value.toLocaleString('en-US', { maximumFractionDigits: digits });

/** Every target, checked against `run`. */
export function checkTargets(run: RunFigures): TargetCheck[] {
  const operation = (target: string, name: string) =>
    run.operations.find((result) => result.target === target && result.operation === name);
  const checks: TargetCheck[] = [];
  const add = (target: string, figure: string | null, met: boolean | null) =>
    checks.push({ target, figure: figure ?? 'not measured', met: figure === null ? null : met });

  const search = operation('embedded', 'searchExperiences');
  const single = search?.singleClient;
  add(
    'searchExperiences, one connection (embedded, 100k experiences): p95 ≤ 15 ms',
    single ? `p95 ${single.p95Ms} ms (p50 ${single.p50Ms}, p99 ${single.p99Ms})` : null,
    !!single && single.p95Ms <= 15,
  );
  const inProcess = run.inProcess?.find((figures) => figures.operation === 'searchExperiences');
  add(
    'searchExperiences, one connection: the running server within 2× of the same searches in process',
    single && inProcess
      ? `server p95 ${single.p95Ms} ms, in process ${inProcess.p95Ms} ms (${format(single.p95Ms / inProcess.p95Ms, 2)}×)`
      : null,
    !!single && !!inProcess && single.p95Ms <= 2 * inProcess.p95Ms,
  );
  add(
    'searchExperiences at 50 connections (embedded): ≥ 300 req/s with p99 ≤ 300 ms',
    search ? `${format(search.graphql.reqPerSec, 0)} req/s, p99 ${search.graphql.p99Ms} ms` : null,
    !!search && search.graphql.reqPerSec >= 300 && search.graphql.p99Ms <= 300,
  );
  const similar = operation('embedded', 'similarTasks');
  add(
    'similarTasks at 50 connections (embedded): ≥ 200 req/s',
    similar ? `${format(similar.graphql.reqPerSec, 0)} req/s, p99 ${similar.graphql.p99Ms} ms` : null,
    !!similar && similar.graphql.reqPerSec >= 200,
  );
  const filtered = run.filteredSearch;
  add(
    'Filtered HYBRID search keeping 1k, 5k, 10k, 20k, 50k of 100k: one-connection p95 ≤ 30 ms, recall@10 ≥ 0.95, every hit passing',
    filtered?.figures.length
      ? filtered.figures
          .map((size) => `${format(size.allowed / 1000)}k: p95 ${size.hybridP95Ms} ms, recall ${size.recallAt10}`)
          .join('; ')
      : null,
    !!filtered?.figures.length && filtered.met,
  );
  const restarts = run.coldStarts.filter((start) => start.target === 'embedded' && start.start.startsWith('restart'));
  add(
    `Embedded restart at 100k experiences ≤ ${RESTART_MAX_MS / 1000} s`,
    restarts.length ? restarts.map((start) => `${format(start.ms / 1000)} s`).join(', ') : null,
    restarts.every((start) => start.ms <= RESTART_MAX_MS),
  );
  const restores = run.coldStarts.filter((start) => start.vsBuild !== null);
  add(
    `Search index restored ≥ ${RESTORE_MIN_SPEEDUP}× faster than built, every restart`,
    restores.length ? restores.map((start) => `${start.target} ${start.vsBuild}×`).join(', ') : null,
    restores.every((start) => start.vsBuild! >= RESTORE_MIN_SPEEDUP),
  );
  const shared = READS_WITH_BASELINE.map((name) => operation('shared', name));
  const measuredShared = shared.every((result) => result?.overhead != null);
  add(
    `GraphQL ÷ baseline ≥ 0.7 (shared, 50 connections) for ${READS_WITH_BASELINE.join(', ')}`,
    measuredShared ? shared.map((result) => result!.overhead).join(', ') : null,
    measuredShared && shared.every((result) => result!.overhead! >= 0.7),
  );
  add(
    'p99 ≤ 50 ms at 50 connections (shared) for the same four reads',
    measuredShared ? shared.map((result) => `${result!.graphql.p99Ms} ms`).join(', ') : null,
    measuredShared && shared.every((result) => result!.graphql.p99Ms <= 50),
  );
  const append = operation('embedded', 'appendMessage32');
  add(
    'appendMessage at 32 connections (embedded): ≥ 1,500 req/s with p99 ≤ 50 ms',
    append ? `${format(append.graphql.reqPerSec, 0)} req/s, p99 ${append.graphql.p99Ms} ms` : null,
    !!append && append.graphql.reqPerSec >= 1500 && append.graphql.p99Ms <= 50,
  );
  add(
    'Vector search over 100k vectors: recall@10 ≥ 0.98 against exact search',
    run.vector
      ? `${run.vector.recallAt10} (ANN p50 ${run.vector.annP50Ms} ms, exact ${run.vector.exactP50Ms} ms)`
      : null,
    !!run.vector && run.vector.recallAt10 >= 0.98,
  );
  const embeddedRss = [
    ...run.coldStarts.filter((start) => start.target === 'embedded').map((start) => start.rssMB),
    ...run.operations.filter((result) => result.target === 'embedded').map((result) => result.graphql.rssMB),
  ].filter((rss): rss is number => rss !== null);
  add(
    'Embedded server (engine and API in one process) RSS ≤ 1.5 GB',
    embeddedRss.length ? `at most ${format(Math.max(...embeddedRss), 0)} MB` : null,
    Math.max(...embeddedRss) <= RSS_MAX_MB,
  );
  const batching = run.batching;
  add(
    'A relation of a list is read in a fixed number of database commands, whatever its length',
    batching
      ? `${batching.length} relations: ${Math.min(...batching.map((relation) => relation.batchedCommands))}–` +
          `${Math.max(...batching.map((relation) => relation.batchedCommands))} commands batched, ` +
          `${Math.min(...batching.map((relation) => relation.unbatchedCommands))}–` +
          `${Math.max(...batching.map((relation) => relation.unbatchedCommands))} without`
      : null,
    !!batching && batching.every((relation) => relation.sameData && relation.batchedCommands <= 3),
  );
  return checks;
}

/** The checks as printed rows: met / MISSED / not measured. */
export function targetRows(checks: TargetCheck[]): Array<Record<string, string>> {
  return checks.map((check) => ({
    target: check.target,
    figure: check.figure,
    met: check.met === null ? '–' : check.met ? 'met' : 'MISSED',
  }));
}
