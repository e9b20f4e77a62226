/**
 * Embedded engine benchmark (`npm run bench` in this package, `npm run bench:engine` at the repository root):
 * throughput and latency through the official driver (to the engine's Unix socket, or TCP loopback), including the
 * sessions repository's append to 40 KB sessions, one `$set`/`$unset` of 2,000 and 20,000 metadata keys on one
 * document, then restart time with 100k documents of ~1 KB recovered from a snapshot only and from a journal only.
 * Prints a table and writes bench/engine-results.json.
 */
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MongoClient, type Collection } from 'mongodb';
import { startEmbeddedServer, type EmbeddedServer } from '../src';

const PHASE_MS = Number(process.env.BENCH_PHASE_MS ?? 3000);
const RESTART_DOCS = Number(process.env.BENCH_RESTART_DOCS ?? 100_000);
const NEVER_COMPACT = Number.MAX_SAFE_INTEGER;
const PAD = 'x'.repeat(900);

interface BenchDoc {
  _id: number;
  n: number;
  pad: string;
  tags?: string[];
}

interface OpResult {
  op: string;
  concurrency: number;
  ops: number;
  opsPerSec: number;
  p50Ms: number;
  p99Ms: number;
}

interface ManyKeyResult {
  keys: number;
  setMs: number;
  unsetMs: number;
}

interface RestartResult {
  from: 'snapshot' | 'journal';
  documents: number;
  diskMB: number;
  ms: number;
}

// Sessions shaped like the app's (seed 001): 2 agents × 50 messages, about 40 KB each.
const SESSIONS = 1000;
interface Message {
  message_id: number;
  role: string;
  content: { text: string }[];
  created_at: Date;
}
interface SessionDoc {
  _id: number;
  updated_at: Date;
  agents: Record<string, { updated_at: Date; messages: Message[] }>;
}

function session(id: number): SessionDoc {
  const at = new Date();
  const messages = Array.from({ length: 50 }, (_, i) => ({
    message_id: i + 1,
    role: i % 2 ? 'assistant' : 'user',
    content: [{ text: PAD.slice(0, 300) }],
    created_at: at,
  }));
  return { _id: id, updated_at: at, agents: { a: { updated_at: at, messages }, b: { updated_at: at, messages } } };
}

/** The sessions repository's append: one findOneAndUpdate whose pipeline allocates the next message_id, with a size guard. */
function appendMessage(sessions: Collection<SessionDoc>, id: number, text: string): Promise<unknown> {
  const now = new Date();
  const list = '$agents.a.messages';
  return sessions.findOneAndUpdate(
    { _id: id, 'agents.a': { $type: 'object' }, $expr: { $lte: [{ $bsonSize: '$$ROOT' }, 16 * 1024 * 1024 - 1024] } },
    [
      {
        $set: {
          'agents.a.messages': {
            $let: {
              vars: { last: { $ifNull: [{ $max: `${list}.message_id` }, 0] } },
              in: {
                $concatArrays: [
                  { $ifNull: [list, []] },
                  [
                    {
                      message_id: { $add: ['$$last', 1] },
                      role: { $literal: 'user' },
                      content: { $literal: [{ text }] },
                      created_at: { $literal: now },
                    },
                  ],
                ],
              },
            },
          },
          'agents.a.updated_at': { $literal: now },
          updated_at: { $literal: now },
        },
      },
    ],
    { projection: { 'agents.a.updated_at': 1, 'agents.a.messages': { $slice: -1 } }, returnDocument: 'after' },
  );
}

/** Runs `op` from `concurrency` loops for PHASE_MS; every call is timed. */
async function measure(name: string, concurrency: number, op: (i: number) => Promise<unknown>): Promise<OpResult> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  const deadline = started + PHASE_MS;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const t = performance.now();
        await op(next++);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))], 3);
  return {
    op: name,
    concurrency,
    ops: latencies.length,
    opsPerSec: Math.round(latencies.length / elapsed),
    p50Ms: at(0.5),
    p99Ms: at(0.99),
  };
}

async function throughput(dataDir: string): Promise<OpResult[]> {
  const server = await startEmbeddedServer({ dataDir, port: 0 });
  const client = await MongoClient.connect(server.uri, { maxPoolSize: 64 });
  const docs = client.db('bench').collection<BenchDoc>('docs');
  const results: OpResult[] = [];
  let inserted = 0;
  try {
    for (const concurrency of [1, 32]) {
      results.push(
        await measure('insertOne', concurrency, () =>
          docs.insertOne({ _id: inserted, n: inserted++, pad: PAD, tags: [] }),
        ),
      );
    }
    const randomId = () => Math.floor(Math.random() * inserted);
    for (const concurrency of [1, 32]) {
      results.push(await measure('findOne by _id', concurrency, () => docs.findOne({ _id: randomId() })));
    }
    for (const concurrency of [1, 32]) {
      results.push(
        await measure('updateOne $push', concurrency, (i) =>
          docs.updateOne({ _id: randomId() }, { $push: { tags: `t${i}` } }),
        ),
      );
    }
    const sessions = client.db('bench').collection<SessionDoc>('sessions');
    await sessions.insertMany(Array.from({ length: SESSIONS }, (_, i) => session(i)));
    for (const concurrency of [1, 32]) {
      results.push(
        await measure('append to a session', concurrency, (i) => appendMessage(sessions, i % SESSIONS, `message ${i}`)),
      );
    }
  } finally {
    await client.close();
    await server.close();
  }
  return results;
}

/**
 * One `$set`, then one `$unset`, of `keys` fields under `metadata` of one document: what `updateSessionMetadata` and
 * `deleteSessionMetadataKeys` send. Linear in the number of keys: 20,000 should take about ten times 2,000.
 */
async function manyKeyUpdates(dataDir: string): Promise<ManyKeyResult[]> {
  const server = await startEmbeddedServer({ dataDir, port: 0 });
  const client = await MongoClient.connect(server.uri);
  const docs = client.db('bench').collection<{ _id: number }>('metadata');
  const results: ManyKeyResult[] = [];
  try {
    for (const keys of [2_000, 20_000]) {
      await docs.insertOne({ _id: keys });
      const names = Array.from({ length: keys }, (_, i) => `metadata.key_${i}`);
      let started = performance.now();
      await docs.updateOne({ _id: keys }, { $set: Object.fromEntries(names.map((name, i) => [name, `value ${i}`])) });
      const setMs = performance.now() - started;
      started = performance.now();
      await docs.updateOne({ _id: keys }, { $unset: Object.fromEntries(names.map((name) => [name, ''])) });
      results.push({ keys, setMs: round(setMs, 0), unsetMs: round(performance.now() - started, 0) });
    }
  } finally {
    await client.close();
    await server.close();
  }
  return results;
}

/** Fills a fresh data dir with RESTART_DOCS documents of ~1 KB through the driver, never compacting. */
async function fill(dataDir: string): Promise<void> {
  const server = await startEmbeddedServer({ dataDir, port: 0, compactAfterBytes: NEVER_COMPACT });
  const client = await MongoClient.connect(server.uri);
  try {
    const docs = client.db('bench').collection<BenchDoc>('restart');
    const batch = 100;
    for (let start = 0; start < RESTART_DOCS; start += batch) {
      await docs.insertMany(
        Array.from({ length: Math.min(batch, RESTART_DOCS - start) }, (_, i) => ({
          _id: start + i,
          n: start + i,
          pad: PAD,
        })),
      );
    }
  } finally {
    await client.close();
    await server.close();
  }
}

/** Time to start the engine on `dataDir` (open + recover) until it serves a query, checked for completeness. */
async function restart(dataDir: string, compactAfterBytes: number): Promise<{ ms: number; server: EmbeddedServer }> {
  const started = performance.now();
  const server = await startEmbeddedServer({ dataDir, port: 0, compactAfterBytes });
  const ms = performance.now() - started;
  const client = await MongoClient.connect(server.uri);
  try {
    const count = await client.db('bench').collection('restart').estimatedDocumentCount();
    if (count !== RESTART_DOCS) throw new Error(`restart recovered ${count} documents, expected ${RESTART_DOCS}`);
  } finally {
    await client.close();
  }
  return { ms, server };
}

async function diskMB(dataDir: string, prefix: string): Promise<number> {
  let bytes = 0;
  for (const name of await readdir(dataDir))
    if (name.startsWith(prefix)) bytes += (await stat(path.join(dataDir, name))).size;
  return round(bytes / 2 ** 20, 1);
}

async function restarts(dataDir: string): Promise<RestartResult[]> {
  await fill(dataDir);
  const fromJournal = await restart(dataDir, NEVER_COMPACT);
  await fromJournal.server.close();
  const journal: RestartResult = {
    from: 'journal',
    documents: RESTART_DOCS,
    diskMB: await diskMB(dataDir, 'journal-'),
    ms: round(fromJournal.ms, 0),
  };

  // A threshold of 1 byte makes the engine compact right after recovery; close() waits for the snapshot.
  const compacting = await restart(dataDir, 1);
  await compacting.server.close();
  const fromSnapshot = await restart(dataDir, NEVER_COMPACT);
  await fromSnapshot.server.close();
  const snapshot: RestartResult = {
    from: 'snapshot',
    documents: RESTART_DOCS,
    diskMB: await diskMB(dataDir, 'snapshot-'),
    ms: round(fromSnapshot.ms, 0),
  };
  return [snapshot, journal];
}

const round = (value: number, digits: number) => Number(value.toFixed(digits));

async function main(): Promise<void> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'hindsight-bench-engine-'));
  try {
    const ops = await throughput(path.join(root, 'ops'));
    console.log(
      `Through the driver (to the engine's Unix socket where there is one, else TCP loopback), ${PHASE_MS} ms per row, fsync on every commit:`,
    );
    console.table(ops);
    const manyKeys = await manyKeyUpdates(path.join(root, 'many-keys'));
    console.log('One update of many metadata keys on one document (ms, through the driver, fsync included):');
    console.table(manyKeys);
    const restart = await restarts(path.join(root, 'restart'));
    console.log(`Restart (open + recover) with ${RESTART_DOCS} documents of ~1 KB:`);
    console.table(restart);
    console.log(
      `load average ${os
        .loadavg()
        .map((load) => load.toFixed(2))
        .join(' ')} on ${os.cpus().length} CPUs`,
    );
    const results = {
      date: new Date().toISOString(),
      node: process.version,
      cpus: os.cpus().length,
      cpu: os.cpus()[0]?.model,
      // Other processes on the machine skew every figure; the 1-minute load average says how much.
      loadAverage: os.loadavg().map((load) => round(load, 2)),
      phaseMs: PHASE_MS,
      ops,
      manyKeys,
      restart,
    };
    await writeFile(
      path.join(__dirname, '..', '..', 'bench', 'engine-results.json'),
      `${JSON.stringify(results, null, 2)}\n`,
    );
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
