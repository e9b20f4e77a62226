/** Child processes of the benchmark: the engine alone, the server as users run it, the baseline server. */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DIMENSIONS } from './seed';

/** Compiled entry points, relative to the repository root (`npm run bench` builds them first). */
export const ROOT = path.resolve(__dirname, '..', '..');
export const ENGINE_SCRIPT = require.resolve('@hindsight/engine/cli');
export const BASELINE_SCRIPT = path.join(ROOT, 'dist', 'bench', 'baseline-server.js');

const PACKAGE_CONFIG = (
  JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
    config?: { serverNodeFlags?: string; serverEnv?: string; engineNodeFlags?: string };
  }
).config;

/** The node flags `npm start` runs the server with (package.json `config.serverNodeFlags`). */
export const SERVER_NODE_FLAGS: string[] = (PACKAGE_CONFIG?.serverNodeFlags ?? '').split(/\s+/).filter(Boolean);

/** The node flags `npm run db` runs the engine alone with (package.json `config.engineNodeFlags`). */
export const ENGINE_NODE_FLAGS: string[] = (PACKAGE_CONFIG?.engineNodeFlags ?? '').split(/\s+/).filter(Boolean);

/** The environment variables `npm start` sets for the server (package.json `config.serverEnv`, `NAME=value` pairs). */
export const SERVER_ENV: Record<string, string> = Object.fromEntries(
  (PACKAGE_CONFIG?.serverEnv ?? '')
    .split(/\s+/)
    .filter(Boolean)
    .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
);

export interface Child {
  name: string;
  pid: number;
  /** What the ready pattern captured: the URL the process printed. */
  url: string;
  /** Milliseconds from spawn to the ready line (a cold start when the process loads data). */
  startMs: number;
  /** The stdout lines printed before the ready line, each with the milliseconds from spawn to its arrival. */
  startup: Array<{ ms: number; line: string }>;
  /** Resident and peak resident memory of the process, from /proc (null where there is no /proc). */
  memory(): { rssMB: number; peakMB: number } | null;
  /** SIGTERM (a graceful stop: servers drain and close their database), then SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * A command a child of this name runs under (its arguments before node's), e.g. `taskset -c 0` to keep what a
 * benchmark measures apart from the processes that load and observe it (bench:tracing's PIN), or valgrind to count
 * its instructions (bench:tracing-instructions). Each execs node in the same process: the pid is the server's.
 */
export const CHILD_WRAPPERS = new Map<string, string[]>();

/** Lines kept from a child's output, shown when it fails. */
const KEPT_LINES = 40;

/** Children not yet exited: killed when the benchmark exits, whichever way it does. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/**
 * Spawns `node script` with `env` added to this process's environment and resolves once a line of its stdout matches
 * `ready` (group 1 is the URL). Fails with the child's last output when it exits first or after `timeoutMs`.
 */
export function startChild(
  name: string,
  script: string,
  env: Record<string, string>,
  ready: RegExp,
  timeoutMs: number,
  nodeFlags: string[] = [],
): Promise<Child> {
  const started = performance.now();
  const [command, ...args] = [...(CHILD_WRAPPERS.get(name) ?? []), process.execPath, ...nodeFlags, script];
  const child = spawn(command, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  const lines: string[] = [];
  const keep = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) lines.push(line);
    lines.splice(0, Math.max(0, lines.length - KEPT_LINES));
  };
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  return new Promise<Child>((resolve, reject) => {
    const fail = (why: string) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${name} ${why}. Its last output:\n${lines.join('\n')}`));
    };
    const timer = setTimeout(() => fail(`was not ready within ${timeoutMs / 1000} s`), timeoutMs);
    const early = (code: number | null, signal: string | null) =>
      fail(`exited (${signal ?? code}) before it was ready`);
    child.once('exit', early);
    let pending = '';
    const startup: Array<{ ms: number; line: string }> = [];
    const onData = (chunk: Buffer) => {
      keep(chunk);
      // A line may arrive in pieces: match with the unfinished line of the previous chunk in front.
      const text = pending + chunk.toString('utf8');
      pending = text.slice(text.lastIndexOf('\n') + 1);
      const ms = performance.now() - started;
      for (const line of text.split('\n').slice(0, -1)) startup.push({ ms, line });
      const match = ready.exec(text);
      if (!match) return;
      child.stdout!.off('data', onData);
      child.stdout!.on('data', keep);
      clearTimeout(timer);
      child.off('exit', early);
      resolve(handle(name, child, match[1], performance.now() - started, startup, exited));
    };
    child.stdout!.on('data', onData);
  });
}

function handle(
  name: string,
  child: ChildProcess,
  url: string,
  startMs: number,
  startup: Child['startup'],
  exited: Promise<void>,
): Child {
  return {
    name,
    pid: child.pid!,
    url,
    startMs,
    startup,
    memory: () => processMemory(child.pid!),
    async stop(graceMs = 120_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * CPU time a process (all its threads) has used, in ms, from /proc (null where there is none). Per request, this
 * compares builds on a busy machine better than req/s, which other processes' load moves by a factor of two. With
 * `thread`, that thread's only (the main thread's id is the pid).
 */
export function processCpuMs(pid: number, thread?: number): number | null {
  try {
    const stat = thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`;
    const fields = readFileSync(stat, 'utf8').split(') ')[1].split(' ');
    // utime and stime (fields 14 and 15 of stat; 12 and 13 after the command name), in clock ticks of 10 ms.
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

/** VmRSS and VmHWM (peak) of a process, in MiB. */
export function processMemory(pid: number): { rssMB: number; peakMB: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? NaN);
    return { rssMB: Math.round(kb('VmRSS') / 1024), peakMB: Math.round(kb('VmHWM') / 1024) };
  } catch {
    return null;
  }
}

/**
 * The engine alone (`npm run db`) on `dataDir`, on a free port. `compactAfterBytes` overrides the journal size
 * after which it snapshots (ENGINE_COMPACT_AFTER_BYTES; unset: its default). `script`: the engine CLI of another
 * build, to compare with.
 */
export function startEngine(dataDir: string, compactAfterBytes?: number, script = ENGINE_SCRIPT): Promise<Child> {
  const env: Record<string, string> = { DATA_DIR: dataDir, DB_PORT: '0', DB_HOST: '127.0.0.1' };
  if (compactAfterBytes !== undefined) env.ENGINE_COMPACT_AFTER_BYTES = String(compactAfterBytes);
  return startChild('engine', script, env, /listening on (mongodb:\/\/\S+)/, 1_800_000, ENGINE_NODE_FLAGS);
}

/**
 * The server as users run it (`node dist/src/main.js`) with the hash embedder: on the embedded engine under
 * `dataDir`, or on `mongodbUri`. Resolves when it printed its URL, i.e. after its search index is loaded.
 */
export function startServer(options: {
  dataDir: string;
  mongodbUri?: string;
  /** Another checkout's root, to run its build (default: this one). */
  root?: string;
  /** Variables set over the defaults below. */
  env?: Record<string, string>;
}): Promise<Child> {
  const env: Record<string, string> = {
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: options.dataDir,
    EMBEDDINGS_PROVIDER: 'hash',
    EMBEDDING_DIMENSIONS: String(DIMENSIONS),
    VECTOR_SEARCH: 'memory',
    API_KEYS: '',
    // info: the startup lines tell how long the engine's recovery and each search space's load took.
    LOG_LEVEL: 'info',
    // Empty: the embedded engine (an inherited MONGODB_URI must not redirect the benchmark).
    MONGODB_URI: options.mongodbUri ?? '',
  };
  const root = options.root ?? ROOT;
  return startChild(
    root === ROOT ? 'server' : path.basename(root),
    path.join(root, 'dist', 'src', 'main.js'),
    { ...SERVER_ENV, ...env, ...options.env },
    /GraphQL API:\s+(http:\/\/\S+)/,
    1_800_000,
    SERVER_NODE_FLAGS,
  );
}

/** The stand-in OpenTelemetry collector (bench/otlp-receiver.ts) on a free port; `/counts` tells what it received. */
export function startReceiver(): Promise<Child> {
  return startChild(
    'otlp-receiver',
    path.join(ROOT, 'dist', 'bench', 'otlp-receiver.js'),
    {},
    /listening on (http:\/\/\S+)/,
    30_000,
  );
}

/** The baseline (bench/baseline-server.ts) on `mongodbUri`, with the server's node flags and environment so that only the code differs. */
export function startBaseline(mongodbUri: string): Promise<Child> {
  return startChild(
    'baseline',
    BASELINE_SCRIPT,
    { ...SERVER_ENV, MONGODB_URI: mongodbUri },
    /listening on (http:\/\/\S+)/,
    60_000,
    SERVER_NODE_FLAGS,
  );
}
