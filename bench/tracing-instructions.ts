/**
 * `npm run bench:tracing-instructions`: what tracing costs a representative read, counted in instructions rather than
 * timed. On a shared machine two processes of one build differ in req/s by several % for as long as they run
 * (bench:tracing's `control`); the instructions a server executes per request do not depend on its neighbours,
 * though they still differ between processes of one build by a few % (CONTROL=1 shows by how much).
 *
 * Servers of this build run under valgrind's callgrind (hash embedder, embedded engine, each its own DATA_DIR, same
 * seed): `off` without OTEL_EXPORTER_OTLP_ENDPOINT and `traced` exporting every request's spans to the stand-in
 * collector (otlp-receiver.ts), which is not counted; `CONTROL=1` adds a second untraced server, which shows how far
 * two identical servers differ by this count. Each gets WARM requests of the read first, uncounted (the JIT keeps
 * compiling for tens of thousands of requests, more for the server with more code), then callgrind counts every
 * instruction of the process (all its threads: the engine's, V8's compiler and collector) over COUNTED requests.
 * Fails when tracing adds more than MAX_COST_PERCENT (issue 28's target, 5%).
 */
import { execFileSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sendRequests } from './load';
import { CONNECTIONS, READ, seed } from './paired';
import { CHILD_WRAPPERS, startReceiver, startServer, type Child } from './processes';

const WARM = Number(process.env.WARM ?? 50_000);
const COUNTED = Number(process.env.COUNTED ?? 3000);
const CONTROL = process.env.CONTROL === '1';
const MAX_COST_PERCENT = 5;

/** The HOST the servers bind: valgrind also names its control pipe by $HOST, so callgrind_control must see the same. */
const HOST = '127.0.0.1';

/** Turns callgrind's counting of process `pid` on or off. */
function instrumentation(pid: number, on: boolean): void {
  execFileSync('callgrind_control', ['-i', on ? 'on' : 'off', String(pid)], {
    env: { ...process.env, HOST },
    stdio: 'ignore',
  });
}

/** The instructions callgrind counted in the process that wrote `file` (its `totals:` line, written at exit). */
async function countedInstructions(file: string): Promise<number> {
  const totals = /^totals:\s+(\d+)/m.exec(await readFile(file, 'utf8'));
  if (!totals) throw new Error(`${file} has no totals`);
  return Number(totals[1]);
}

async function main(): Promise<void> {
  try {
    execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
  } catch {
    throw new Error('valgrind is needed (Debian: apt-get install valgrind)');
  }
  const names = ['off', ...(CONTROL ? ['control'] : []), 'traced'];
  const work = await mkdtemp(path.join(os.tmpdir(), 'hindsight-instructions-'));
  const children: Child[] = [];
  try {
    const receiver = await startReceiver();
    children.push(receiver);
    // The data is recorded once, by a server outside valgrind, and each counted server starts on a copy of it.
    const seeded = path.join(work, 'seeded');
    await mkdir(seeded);
    const seeder = await startServer({
      dataDir: seeded,
      env: { HOST, LOG_LEVEL: 'warn', OTEL_EXPORTER_OTLP_ENDPOINT: '' },
    });
    children.push(seeder);
    await seed(seeder.url);
    await seeder.stop();
    children.splice(children.indexOf(seeder), 1);
    const servers: Record<string, Child> = {};
    for (const name of names) {
      // Counting starts off (--instr-atstart=no): start-up, seeding and the warm-up are not counted.
      CHILD_WRAPPERS.set('server', [
        'valgrind',
        '--tool=callgrind',
        '--smc-check=all-non-file',
        '--instr-atstart=no',
        `--callgrind-out-file=${path.join(work, `${name}.callgrind`)}`,
        '--log-file=/dev/null',
      ]);
      const dataDir = path.join(work, name);
      await cp(seeded, dataDir, { recursive: true });
      servers[name] = await startServer({
        dataDir,
        env: {
          HOST,
          LOG_LEVEL: 'warn',
          OTEL_EXPORTER_OTLP_ENDPOINT: name === 'traced' ? receiver.url : '',
        },
      });
      children.push(servers[name]);
    }
    const results = await Promise.all(
      names.map(async (name) => {
        const server = servers[name];
        const spec = {
          base: server.url.replace(/\/graphql$/, ''),
          connections: CONNECTIONS,
          next: () => ({ path: '/graphql', body: READ }),
        };
        await sendRequests(spec, WARM);
        instrumentation(server.pid, true);
        await sendRequests(spec, COUNTED);
        instrumentation(server.pid, false);
        // Callgrind writes its counts when the process exits.
        await server.stop();
        children.splice(children.indexOf(server), 1);
        return [name, (await countedInstructions(path.join(work, `${name}.callgrind`))) / COUNTED] as const;
      }),
    );
    const perRequest = Object.fromEntries(results);
    const counts = (await (await fetch(`${receiver.url}/counts`)).json()) as { spans: number; rootSpans: number };
    // The seeder was not traced: the receiver's request spans are the traced server's reads.
    if (counts.rootSpans < WARM + COUNTED) throw new Error(`the receiver got ${counts.rootSpans} request spans`);
    const percent = (a: number, b: number) => Math.round((a / b - 1) * 1000) / 10;
    const tracedVsOffPercent = percent(perRequest.traced, perRequest.off);
    console.log(
      JSON.stringify(
        {
          warm: WARM,
          counted: COUNTED,
          instructionsPerRequest: Object.fromEntries(results.map(([name, value]) => [name, Math.round(value)])),
          tracedVsOffPercent,
          ...(CONTROL ? { controlVsOffPercent: percent(perRequest.control, perRequest.off) } : {}),
          spansPerRequestSpan: Math.round((counts.spans / counts.rootSpans) * 100) / 100,
        },
        null,
        2,
      ),
    );
    if (tracedVsOffPercent > MAX_COST_PERCENT) {
      console.error(
        `tracing costs ${tracedVsOffPercent}% more instructions per request (target: ${MAX_COST_PERCENT}%)`,
      );
      process.exitCode = 1;
    }
  } finally {
    for (const child of children) await child.stop();
    await rm(work, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
