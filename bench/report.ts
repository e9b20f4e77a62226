/** The benchmark's output: the machine, the tables printed to the console, the Markdown for the README. */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import type { LoadResult } from './load';

export interface Machine {
  cpus: number;
  cpuModel: string;
  memoryGB: number;
  node: string;
  platform: string;
  /** 1-, 5- and 15-minute load averages when the run started and ended: other processes skew every figure. */
  loadAverageAtStart: number[];
  loadAverageAtEnd?: number[];
}

export function describeMachine(): Machine {
  let cpuModel = os.cpus()[0]?.model ?? 'unknown';
  try {
    cpuModel = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? cpuModel;
  } catch {
    // Not Linux: os.cpus() names it.
  }
  return {
    cpus: os.availableParallelism(),
    cpuModel,
    memoryGB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${os.type()} ${os.release()}`,
    loadAverageAtStart: loadAverage(),
  };
}

export function loadAverage(): number[] {
  return os.loadavg().map((load) => Number(load.toFixed(2)));
}

/** One operation on one target: the GraphQL server's figures and, for plain reads, the baseline's. */
export interface OperationResult {
  target: string;
  operation: string;
  description: string;
  kind: 'read' | 'write';
  graphql: LoadResult;
  baseline: LoadResult | null;
  /** GraphQL req/s ÷ baseline req/s. */
  overhead: number | null;
  /** The same GraphQL requests from one connection: latency without queueing (for operations with a latency target). */
  singleClient?: LoadResult;
}

/** The `p` quantile (0–1) of `values`: the value at rank ⌊p·n⌋ of the sorted list. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

const cell = (value: number | null | undefined) =>
  value === null || value === undefined || Number.isNaN(value) ? '–' : String(value);

/** Rows of the main table, one per target and operation. */
export function tableRows(results: OperationResult[]): Array<Record<string, string>> {
  return results.map((result) => ({
    target: result.target,
    operation: result.operation,
    'req/s': cell(result.graphql.reqPerSec),
    'p50 ms': cell(result.graphql.p50Ms),
    'p95 ms': cell(result.graphql.p95Ms),
    'p99 ms': cell(result.graphql.p99Ms),
    'cmds/req': cell(result.graphql.commandsPerRequest),
    'RSS MB': cell(result.graphql.rssMB),
    'baseline req/s': cell(result.baseline?.reqPerSec),
    'baseline p99 ms': cell(result.baseline?.p99Ms),
    'baseline cmds/req': cell(result.baseline?.commandsPerRequest),
    'GraphQL/baseline': cell(result.overhead),
    '1-client p50/p95/p99 ms': result.singleClient
      ? `${result.singleClient.p50Ms} / ${result.singleClient.p95Ms} / ${result.singleClient.p99Ms}`
      : '–',
    failures: cell(result.graphql.failures + (result.baseline?.failures ?? 0)),
  }));
}

/** A Markdown table of rows that share their keys. */
export function markdownTable(rows: Array<Record<string, string | number>>): string {
  if (!rows.length) return '';
  const keys = Object.keys(rows[0]);
  const line = (values: Array<string | number>) => `| ${values.join(' | ')} |`;
  return [line(keys), line(keys.map(() => '---')), ...rows.map((row) => line(keys.map((key) => row[key] ?? '')))].join(
    '\n',
  );
}
