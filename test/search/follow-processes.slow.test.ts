import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { print } from 'graphql';
import { ROOT, spawnServer, type SpawnedServer } from '../support/build';
import type { Operation } from '../support/app';
import { postGraphQL } from '../support/http';
import {
  DeleteExperienceDocument,
  RecordExperienceDocument,
  SearchExperiencesDocument,
  UpdateExperienceDocument,
} from '../support/generated/graphql';

const ENGINE_CLI = path.join(ROOT, 'packages/engine/dist/src/cli.js');

/** `npm run db`: the engine alone on `dataDir`, on `port` (0: any); resolves with its URI once it listens. */
async function startEngine(dataDir: string, port = 0): Promise<{ uri: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [ENGINE_CLI], {
    env: { ...process.env, DATA_DIR: dataDir, DB_PORT: String(port), DB_HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const uri = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      const match = /listening on (mongodb:\/\/\S+)/.exec(output);
      if (match) resolve(match[1]);
    });
    child.stderr!.on('data', (chunk) => (output += chunk));
    child.once('exit', (code) => reject(new Error(`engine exited with ${code}:\n${output}`)));
  });
  return { uri, child };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

async function call<TData>(url: string, document: Operation<TData>, variables: Record<string, unknown>) {
  const { body } = await postGraphQL(url, { query: print(document), variables });
  if (body.errors) throw new Error(JSON.stringify(body.errors));
  return body.data as TData;
}

/**
 * The ids found through `url` both by a hybrid search (the default; minScore 0.5) and a keyword search, `present`
 * telling which side counts: an id counts as found when both find it, as gone when neither does. The keyword search
 * reads the process's BM25 index in both modes; with VECTOR_SEARCH=atlas the database finds the hybrid's vectors
 * whether or not the process follows.
 */
async function found(url: string, query: string, present = true): Promise<string[]> {
  const search = async (mode: 'HYBRID' | 'KEYWORD', minScore?: number) =>
    (
      await call(url, SearchExperiencesDocument, { query, fields: ['PRIMARY_GOAL'], mode, limit: 5, minScore })
    ).searchExperiences.map((hit) => hit.experience.experienceId);
  const [hybrid, keyword] = await Promise.all([search('HYBRID', 0.5), search('KEYWORD')]);
  return present ? hybrid.filter((id) => keyword.includes(id)) : [...new Set([...hybrid, ...keyword])];
}

/** Milliseconds until the search through `url` finds (or no longer finds) `id`; fails after `timeoutMs`. */
async function msUntil(url: string, query: string, id: string, present: boolean, timeoutMs: number): Promise<number> {
  const started = Date.now();
  // A server that has not seen the database back yet (after its restart) answers SERVICE_UNAVAILABLE meanwhile.
  const ids = () =>
    found(url, query, present).catch((error: Error) =>
      /SERVICE_UNAVAILABLE/.test(error.message) ? null : Promise.reject(error),
    );
  for (let now = await ids(); now?.includes(id) !== present; now = await ids()) {
    if (Date.now() - started > timeoutMs)
      throw new Error(`${query}: ${id} ${present ? 'not found' : 'still found'} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return Date.now() - started;
}

function experience(id: string, goal: string) {
  return {
    input: {
      experienceId: id,
      primaryGoalDescription: goal,
      subTaskDescription: 'Follow-up step.',
      initiatingAgentId: 'agent-a',
      finalOutcome: 'SUCCESS',
    },
  };
}

describe('two servers on one engine (npm run db): what A writes, B searches', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'hindsight-follow-'));
  let engine: { uri: string; child: ChildProcess };
  let a: SpawnedServer;
  let b: SpawnedServer;
  let aUrl: string;
  let bUrl: string;
  const startB = () => spawnServer(path.join(root, 'b'), { MONGODB_URI: engine.uri, MONGODB_DB: 'follow' });

  beforeAll(async () => {
    engine = await startEngine(path.join(root, 'engine'));
    a = spawnServer(path.join(root, 'a'), { MONGODB_URI: engine.uri, MONGODB_DB: 'follow' });
    b = startB();
    [aUrl, bUrl] = await Promise.all([a.ready, b.ready]);
    // The first search of a process compiles its path: what is timed below is the following.
    await found(bUrl, 'warm up');
  }, 120_000);
  afterAll(async () => {
    for (const server of [a, b]) if (server) await stopChild(server.child);
    if (engine) await stopChild(engine.child);
    rmSync(root, { recursive: true, force: true });
  });

  it('an insert, an update of the searched field and a delete through A are seen through B within 1 s', async () => {
    await call(aUrl, RecordExperienceDocument, experience('x-1', 'Prune the apple orchard before the frost.'));
    expect(await msUntil(bUrl, 'prune the apple orchard', 'x-1', true, 1000)).toBeLessThan(1000);

    await call(aUrl, UpdateExperienceDocument, {
      id: 'x-1',
      input: { primaryGoalDescription: 'Restring the cello for the spring concert.' },
    });
    expect(await msUntil(bUrl, 'restring the cello', 'x-1', true, 1000)).toBeLessThan(1000);
    expect(await found(bUrl, 'prune the apple orchard', false)).not.toContain('x-1');

    await call(aUrl, DeleteExperienceDocument, { id: 'x-1' });
    expect(await msUntil(bUrl, 'restring the cello', 'x-1', false, 1000)).toBeLessThan(1000);
  }, 60_000);

  it('an engine restart is survived: nothing written before it is missed, a write after it is seen within seconds', async () => {
    await call(aUrl, RecordExperienceDocument, experience('e-1', 'Splice the rigging of the schooner mast.'));
    await msUntil(bUrl, 'splice the rigging', 'e-1', true, 5000);
    // Written just before the engine stops: B may not have applied it yet.
    await call(aUrl, RecordExperienceDocument, experience('e-2', 'Candle the eggs in the hatchery incubator.'));
    await stopChild(engine.child);
    engine = await startEngine(path.join(root, 'engine'), Number(new URL(engine.uri).port));

    // A answers SERVICE_UNAVAILABLE until its driver sees the engine back.
    const deadline = Date.now() + 15_000;
    for (;;) {
      try {
        await call(aUrl, RecordExperienceDocument, experience('e-3', 'Varnish the oak tiller of the sailing dinghy.'));
        break;
      } catch (error) {
        if (!/SERVICE_UNAVAILABLE/.test((error as Error).message) || Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    expect(await msUntil(bUrl, 'varnish the oak tiller', 'e-3', true, 5000)).toBeLessThan(5000);
    await msUntil(bUrl, 'candle the eggs', 'e-2', true, 1000);
  }, 60_000);

  it('B restarted while A writes misses nothing', async () => {
    await call(aUrl, RecordExperienceDocument, experience('r-1', 'Sharpen the chisels in the workshop.'));
    await call(aUrl, RecordExperienceDocument, experience('r-2', 'Glaze the pottery for the kiln firing.'));
    await msUntil(bUrl, 'glaze the pottery', 'r-2', true, 5000);
    await stopChild(b.child);
    // While B is down: an insert, an update of the searched field, a delete.
    await call(aUrl, RecordExperienceDocument, experience('r-3', 'Weave the linen on the floor loom.'));
    await call(aUrl, UpdateExperienceDocument, {
      id: 'r-1',
      input: { primaryGoalDescription: 'Calibrate the brass sextant for navigation.' },
    });
    await call(aUrl, DeleteExperienceDocument, { id: 'r-2' });
    const restarting = startB();
    // And while it starts.
    await call(aUrl, RecordExperienceDocument, experience('r-4', 'Bind the manuscripts in goatskin leather.'));
    b = restarting;
    bUrl = await b.ready;
    await msUntil(bUrl, 'weave the linen', 'r-3', true, 5000);
    await msUntil(bUrl, 'calibrate the brass sextant', 'r-1', true, 5000);
    await msUntil(bUrl, 'bind the manuscripts', 'r-4', true, 5000);
    expect(await found(bUrl, 'sharpen the chisels', false)).not.toContain('r-1');
    expect(await found(bUrl, 'glaze the pottery', false)).not.toContain('r-2');
  }, 120_000);
});
