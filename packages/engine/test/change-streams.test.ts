/** Change streams through the official driver against the embedded engine, including restarts of its data directory. */
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { BSON } from 'bson';
import {
  MongoClient,
  MongoServerError,
  type ChangeStream,
  type ChangeStreamDocument,
  type Document,
  type ResumeToken,
} from 'mongodb';
import { startEmbeddedServer, type EmbeddedServer, type EngineOptions } from '../src';

/** Test documents: scalar ids, like the seed data. */
interface Item {
  _id: number | string;
  [field: string]: unknown;
}

const dirs: string[] = [];
const open: { server: EmbeddedServer; client: MongoClient }[] = [];

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'change-streams-'));
  dirs.push(dir);
  return dir;
}

/** An engine on `dataDir` and a client of it (both closed after each test). */
async function start(
  dataDir: string,
  options: Partial<EngineOptions> = {},
): Promise<{ server: EmbeddedServer; client: MongoClient; stop: () => Promise<void> }> {
  const server = await startEmbeddedServer({ dataDir, port: 0, ...options });
  const client = await new MongoClient(server.uri, { monitorCommands: true }).connect();
  const entry = { server, client };
  open.push(entry);
  const stop = async (): Promise<void> => {
    open.splice(open.indexOf(entry), 1);
    await client.close();
    await server.close();
  };
  return { server, client, stop };
}

afterEach(async () => {
  for (const { server, client } of open.splice(0)) {
    await client.close();
    await server.close();
  }
});
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** Everything a stream has now, without waiting long for more. */
async function drain(stream: ChangeStream): Promise<ChangeStreamDocument[]> {
  const events: ChangeStreamDocument[] = [];
  for (let event = await stream.tryNext(); event; event = await stream.tryNext()) events.push(event);
  return events;
}

const summary = (events: ChangeStreamDocument[]): [string, unknown][] =>
  events.map((event) => [event.operationType, 'documentKey' in event ? event.documentKey._id : undefined]);

/** The token at the current end of the log, from a fresh stream's first (empty) batch. */
async function tokenNow(client: MongoClient, db: string, coll: string): Promise<ResumeToken> {
  const stream = client.db(db).collection(coll).watch([], { maxAwaitTimeMS: 10 });
  expect(await stream.tryNext()).toBeNull();
  const token = stream.resumeToken;
  await stream.close();
  return token;
}

async function serverError(promise: Promise<unknown>): Promise<MongoServerError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof MongoServerError) return error;
    throw error;
  }
  throw new Error('expected a server error');
}

test('every kind of write makes one event per document, in commit order, with its documentKey', async () => {
  const { client } = await start(await tempDir());
  const coll = client.db('app').collection<Item>('items');
  const other = client.db('app').collection<Item>('other');
  const start0 = await tokenNow(client, 'app', 'items');

  await coll.insertOne({ _id: 1, n: 1 });
  await coll.insertMany([{ _id: 2 }, { _id: 3 }]);
  await other.insertOne({ _id: 'elsewhere' });
  await coll.updateOne({ _id: 1 }, { $set: { n: 2 } });
  await coll.updateOne({ _id: 1 }, { $set: { n: 2 } }); // changes nothing: no event
  await coll.replaceOne({ _id: 2 }, { x: 'replaced' });
  await coll.updateOne({ _id: 4 }, { $set: { n: 4 } }, { upsert: true });
  await coll.findOneAndUpdate({ _id: 3 }, { $set: { n: 3 } });
  await coll.findOneAndReplace({ _id: 3 }, { y: 1 });
  await coll.findOneAndDelete({ _id: 4 });
  await coll.bulkWrite([
    { insertOne: { document: { _id: 5 } } },
    { updateMany: { filter: { _id: { $in: [1, 5] } }, update: { $set: { bulk: true } } } },
    { replaceOne: { filter: { _id: 5 }, replacement: { z: 1 }, upsert: true } },
    { deleteOne: { filter: { _id: 2 } } },
  ]);
  await coll.deleteMany({});

  const stream = coll.watch([], { resumeAfter: start0, maxAwaitTimeMS: 50 });
  const events = await drain(stream);
  await stream.close();
  expect(summary(events)).toEqual([
    ['insert', 1],
    ['insert', 2],
    ['insert', 3],
    ['update', 1],
    ['replace', 2],
    ['insert', 4],
    ['update', 3],
    ['replace', 3],
    ['delete', 4],
    ['insert', 5],
    ['update', 1],
    ['update', 5],
    ['replace', 5],
    ['delete', 2],
    ['delete', 1],
    ['delete', 3],
    ['delete', 5],
  ]);
  for (const event of events) {
    expect(event).toMatchObject({ ns: { db: 'app', coll: 'items' } });
    expect(event.clusterTime?._bsontype).toBe('Timestamp');
    expect((event as { wallTime?: unknown }).wallTime).toBeInstanceOf(Date);
  }
  // Tokens and cluster times increase with the log.
  const tokens = events.map((event) => (event._id as { _data: string })._data);
  expect([...tokens].sort()).toEqual(tokens);
  expect(new Set(tokens).size).toBe(tokens.length);
  const times = events.map((event) => event.clusterTime!);
  for (let i = 1; i < times.length; i++) expect(times[i].compare(times[i - 1])).toBe(1);
});

test('resumeAfter a token returns only the events after it; later stages filter and reshape events', async () => {
  const { client } = await start(await tempDir());
  const coll = client.db('app').collection<Item>('items');
  const from = await tokenNow(client, 'app', 'items');
  await coll.insertMany([{ _id: 'a' }, { _id: 'b' }, { _id: 'c' }]);
  await coll.deleteOne({ _id: 'a' });

  const all = coll.watch([], { resumeAfter: from, maxAwaitTimeMS: 50 });
  const events = await drain(all);
  await all.close();
  expect(summary(events)).toEqual([
    ['insert', 'a'],
    ['insert', 'b'],
    ['insert', 'c'],
    ['delete', 'a'],
  ]);

  const after = coll.watch([], { resumeAfter: events[1]._id, maxAwaitTimeMS: 50 });
  expect(summary(await drain(after))).toEqual([
    ['insert', 'c'],
    ['delete', 'a'],
  ]);
  await after.close();

  const startAfter = coll.watch([], { startAfter: events[2]._id, maxAwaitTimeMS: 50 });
  expect(summary(await drain(startAfter))).toEqual([['delete', 'a']]);
  await startAfter.close();

  const filtered = coll.watch(
    [{ $match: { operationType: 'insert', 'documentKey._id': { $ne: 'b' } } }, { $project: { documentKey: 1 } }],
    { resumeAfter: from, maxAwaitTimeMS: 50 },
  );
  const kept = await drain(filtered);
  await filtered.close();
  expect(kept.map((event) => Object.keys(event).sort())).toEqual([
    ['_id', 'documentKey'],
    ['_id', 'documentKey'],
  ]);
  expect(kept.map((event) => (event as unknown as { documentKey: { _id: string } }).documentKey._id)).toEqual([
    'a',
    'c',
  ]);
});

test('tryNext on an idle stream waits maxAwaitTimeMS, returns null, and resumeToken is the postBatchResumeToken', async () => {
  const { client } = await start(await tempDir());
  const tokens: unknown[] = [];
  client.on('commandSucceeded', (event) => {
    const token = (event.reply as Document).cursor?.postBatchResumeToken;
    if (token) tokens.push(token);
  });
  const stream = client.db('app').collection<Item>('items').watch([], { maxAwaitTimeMS: 300 });
  let started = Date.now();
  expect(await stream.tryNext()).toBeNull();
  const waited = Date.now() - started;
  expect(waited).toBeGreaterThanOrEqual(250);
  expect(waited).toBeLessThan(3000);
  expect(stream.resumeToken).toEqual(tokens.at(-1));
  const idle = stream.resumeToken;

  // Writes elsewhere move the position on without producing events for this stream.
  await client
    .db('app')
    .collection<Item>('other')
    .insertMany([{ _id: 1 }, { _id: 2 }]);
  started = Date.now();
  expect(await stream.tryNext()).toBeNull();
  expect(Date.now() - started).toBeLessThan(3000);
  expect(stream.resumeToken).toEqual(tokens.at(-1));
  expect(stream.resumeToken).not.toEqual(idle);
  await stream.close();
});

test('a getMore waits for a write made meanwhile and returns it', async () => {
  const { client } = await start(await tempDir());
  const coll = client.db('app').collection<Item>('items');
  await coll.insertOne({ _id: 'early' });
  const stream = coll.watch([], { maxAwaitTimeMS: 5000 });
  const started = Date.now();
  // The stream opens after 'early' with an empty first batch, so its getMore is what has to wait.
  const next = stream.next();
  setTimeout(() => void coll.insertOne({ _id: 'late' }), 300);
  const event = await next;
  const took = Date.now() - started;
  expect(summary([event])).toEqual([['insert', 'late']]);
  expect(took).toBeGreaterThanOrEqual(250);
  expect(took).toBeLessThan(4000);
  await stream.close();
}, 20_000);

test('killCursors ends a getMore waiting for events at once with 237 CursorKilled; closing a stream does not wait', async () => {
  const { client } = await start(await tempDir());
  const db = client.db('app');
  const opened = await db.command(
    { aggregate: 'items', pipeline: [{ $changeStream: {} }], cursor: {} },
    { promoteLongs: false },
  );
  const id = opened.cursor.id;
  const started = Date.now();
  // A second client: the driver sends killCursors on another connection while the getMore waits, as a closing stream does.
  const waiting = db.command({ getMore: id, collection: 'items', maxTimeMS: 5000 }).then(
    () => null,
    (error: unknown) => error,
  );
  await new Promise((resolve) => setTimeout(resolve, 100));
  const killed = await db.command({ killCursors: 'items', cursors: [id] });
  expect(killed.cursorsKilled.map(String)).toEqual([String(id)]);
  const error = await waiting;
  expect(error).toBeInstanceOf(MongoServerError);
  expect((error as MongoServerError).code).toBe(237);
  expect(Date.now() - started).toBeLessThan(2000);

  const stream = db.collection<Item>('items').watch([], { maxAwaitTimeMS: 5000 });
  const reading = stream.tryNext().catch(() => null);
  await new Promise((resolve) => setTimeout(resolve, 100));
  const closing = Date.now();
  await stream.close();
  await reading;
  expect(Date.now() - closing).toBeLessThan(2000);
}, 20_000);

test('dropping the collection returns drop then invalidate and closes the stream; startAfter the invalidate goes on', async () => {
  const { client } = await start(await tempDir());
  const coll = client.db('app').collection<Item>('items');
  const from = await tokenNow(client, 'app', 'items');
  await coll.insertOne({ _id: 1 });
  await coll.drop();
  await coll.insertOne({ _id: 2 });

  const stream = coll.watch([], { resumeAfter: from, maxAwaitTimeMS: 50 });
  const events = [await stream.next(), await stream.next(), await stream.next()];
  expect(events.map((event) => event.operationType)).toEqual(['insert', 'drop', 'invalidate']);
  expect(stream.closed).toBe(true);

  const invalidate = events[2]._id;
  const refused = await serverError(coll.watch([], { resumeAfter: invalidate }).tryNext());
  expect(refused.code).toBe(260);
  const after = coll.watch([], { startAfter: invalidate, maxAwaitTimeMS: 50 });
  expect(summary(await drain(after))).toEqual([['insert', 2]]);
  await after.close();

  // Resuming after the drop itself invalidates again, as in mongod.
  const again = coll.watch([], { resumeAfter: events[1]._id, maxAwaitTimeMS: 50 });
  expect((await again.next()).operationType).toBe('invalidate');
});

test('database and cluster streams see every collection; dropDatabase invalidates the database stream only', async () => {
  const { client } = await start(await tempDir());
  const db = client.db('app');
  const from = await tokenNow(client, 'app', 'x');
  await db.collection<Item>('a').insertOne({ _id: 1 });
  await client.db('other').collection<Item>('c').insertOne({ _id: 3 });
  await db.collection<Item>('b').insertOne({ _id: 2 });
  await db.renameCollection('b', 'b2');
  await db.dropDatabase();

  const dbStream = db.watch([], { resumeAfter: from, maxAwaitTimeMS: 50 });
  const dbEvents: ChangeStreamDocument[] = [];
  while (!dbStream.closed) {
    const event = await dbStream.tryNext().catch(() => null);
    if (!event) break;
    dbEvents.push(event);
  }
  expect(dbEvents.map((event) => [event.operationType, 'ns' in event ? event.ns : undefined])).toEqual([
    ['insert', { db: 'app', coll: 'a' }],
    ['insert', { db: 'app', coll: 'b' }],
    ['rename', { db: 'app', coll: 'b' }],
    ['drop', { db: 'app', coll: 'a' }],
    ['drop', { db: 'app', coll: 'b2' }],
    ['dropDatabase', { db: 'app' }],
    ['invalidate', undefined],
  ]);
  expect(dbEvents[2]).toMatchObject({ to: { db: 'app', coll: 'b2' } });

  const cluster = client.watch([], { resumeAfter: from, maxAwaitTimeMS: 50 });
  const clusterEvents = await drain(cluster);
  await cluster.close();
  expect(clusterEvents.map((event) => event.operationType)).toEqual([
    'insert',
    'insert',
    'insert',
    'rename',
    'drop',
    'drop',
    'dropDatabase',
  ]);
});

test('a stream resumes across engine restarts, with a snapshot in between: same events, same tokens', async () => {
  const dir = await tempDir();
  let engine = await start(dir, { compactAfterBytes: 4096 });
  let coll = engine.client.db('app').collection<Item>('items');
  const from = await tokenNow(engine.client, 'app', 'items');
  await coll.insertMany([{ _id: 1 }, { _id: 2 }]);
  await coll.updateOne({ _id: 1 }, { $set: { big: 'x'.repeat(8000) } }); // past compactAfterBytes: a snapshot follows
  await coll.deleteOne({ _id: 2 });
  const live = coll.watch([], { resumeAfter: from, maxAwaitTimeMS: 50 });
  const before = await drain(live);
  expect(summary(before)).toEqual([
    ['insert', 1],
    ['insert', 2],
    ['update', 1],
    ['delete', 2],
  ]);
  await engine.stop();
  const files = await readdir(dir);
  expect(files.some((name) => /^snapshot-\d+\.bson$/.test(name))).toBe(true);
  expect(files).not.toContain('journal-000000000001.log'); // the early events come from the snapshot

  engine = await start(dir, { compactAfterBytes: 4096 });
  coll = engine.client.db('app').collection<Item>('items');
  await coll.insertOne({ _id: 3 });
  const resumed = coll.watch([], { resumeAfter: from, maxAwaitTimeMS: 50 });
  const after = await drain(resumed);
  await resumed.close();
  const identity = (event: ChangeStreamDocument) => [
    event._id,
    (event as { wallTime?: Date }).wallTime,
    event.clusterTime,
  ];
  expect(after.slice(0, 4).map(identity)).toEqual(before.map(identity));
  expect(summary(after.slice(4))).toEqual([['insert', 3]]);

  // Once more, from the journal alone (no snapshot since the last restart's writes).
  await engine.stop();
  engine = await start(dir, { compactAfterBytes: 1 << 30 });
  coll = engine.client.db('app').collection<Item>('items');
  const third = coll.watch([], { resumeAfter: before[3]._id, maxAwaitTimeMS: 50 });
  const rest = await drain(third);
  await third.close();
  expect(rest.map((event) => event._id)).toEqual([after[4]._id]);
}, 30_000);

test('an open stream carries on after the engine restarts (the driver resumes from its token)', async () => {
  const dir = await tempDir();
  const first = await start(dir);
  const stream = first.client.db('app').collection<Item>('items').watch([], { maxAwaitTimeMS: 50 });
  await stream.tryNext();
  await first.client.db('app').collection<Item>('items').insertOne({ _id: 1 });
  expect(summary([(await stream.tryNext())!])).toEqual([['insert', 1]]);
  await first.server.close();
  const second = await start(dir);
  await second.client.db('app').collection<Item>('items').insertOne({ _id: 2 });
  let event: ChangeStreamDocument | null = null;
  for (let attempt = 0; attempt < 20 && !event; attempt++) event = await stream.tryNext().catch(() => null);
  expect(event && summary([event])).toEqual([['insert', 2]]);
  await stream.close();
  await first.client.close();
}, 30_000);

test('a token from another data directory is refused with InvalidResumeToken', async () => {
  const a = await start(await tempDir());
  await a.client.db('app').collection<Item>('items').insertOne({ _id: 1 });
  const token = await tokenNow(a.client, 'app', 'items');
  const b = await start(await tempDir());
  await b.client.db('app').collection<Item>('items').insertOne({ _id: 1 });
  const error = await serverError(
    b.client.db('app').collection<Item>('items').watch([], { resumeAfter: token }).tryNext(),
  );
  expect(error.code).toBe(260);
  expect(error.message).toMatch(/different data directory/);
  const garbage = await serverError(
    b.client
      .db('app')
      .collection<Item>('items')
      .watch([], { resumeAfter: { _data: 'not-a-token' } })
      .tryNext(),
  );
  expect(garbage.code).toBe(260);
});

test('a resume point older than the retained history fails with ChangeStreamHistoryLost (286)', async () => {
  const { client } = await start(await tempDir(), { changeLogEvents: 5 });
  const coll = client.db('app').collection<Item>('items');
  const old = await tokenNow(client, 'app', 'items');
  await coll.insertMany([{ _id: 1 }, { _id: 2 }]);
  const kept = await tokenNow(client, 'app', 'items');
  await coll.insertMany([{ _id: 3 }, { _id: 4 }, { _id: 5 }]);
  // Exactly the last 5 events are kept: resuming after event 2 still works...
  const stream = coll.watch([], { resumeAfter: kept, maxAwaitTimeMS: 50 });
  expect(summary(await drain(stream))).toEqual([
    ['insert', 3],
    ['insert', 4],
    ['insert', 5],
  ]);
  await stream.close();
  await coll.insertOne({ _id: 6 });
  // ...until one more event pushes event 1 out; resuming from before it can no longer be answered.
  const lost = await serverError(coll.watch([], { resumeAfter: old }).tryNext());
  expect(lost.code).toBe(286);
  expect(lost.codeName).toBe('ChangeStreamHistoryLost');
  const stillKept = coll.watch([], { resumeAfter: kept, maxAwaitTimeMS: 50 });
  expect(summary(await drain(stillKept))).toEqual([
    ['insert', 3],
    ['insert', 4],
    ['insert', 5],
    ['insert', 6],
  ]);
  await stillKept.close();
});

test('options the engine does not implement are refused with mongod codes', async () => {
  const { client } = await start(await tempDir());
  const coll = client.db('app').collection<Item>('items');
  const refusal = async (pipeline: Document[], options: Document = {}): Promise<number | undefined> =>
    (await serverError(coll.watch(pipeline, { maxAwaitTimeMS: 10, ...options }).tryNext())).code as number | undefined;
  expect(await refusal([], { fullDocument: 'updateLookup' })).toBe(238);
  expect(await refusal([], { fullDocumentBeforeChange: 'required' })).toBe(238);
  expect(await refusal([], { startAtOperationTime: new (await import('bson')).Timestamp({ t: 1, i: 1 }) })).toBe(238);
  expect(await refusal([{ $group: { _id: null } }])).toBe(20);
  const coded = await serverError(
    client.db('app').command({ aggregate: 'items', pipeline: [{ $match: {} }, { $changeStream: {} }], cursor: {} }),
  );
  expect(coded.code).toBe(40602);
  // Changing the resume token breaks resumability: mongod fails the stream with ChangeStreamFatalError.
  const stream = coll.watch([{ $project: { _id: 0 } }], { maxAwaitTimeMS: 10 });
  await stream.tryNext();
  await coll.insertOne({ _id: 1 });
  expect((await serverError(stream.tryNext())).code).toBe(280);
});

/** A record of the engine's file framing: `[u32 length][u32 crc32][body]`. */
function record(...parts: Uint8Array[]): Buffer {
  const body = Buffer.concat(parts);
  const head = Buffer.alloc(8);
  head.writeUInt32LE(body.length, 0);
  head.writeUInt32LE(crc32(body), 4);
  return Buffer.concat([head, body]);
}

test('a data directory written before the change log loads; its log starts empty and fills from the journal', async () => {
  const dir = await tempDir();
  const kind = (letter: string) => Buffer.from(letter);
  // Snapshot and journal exactly as the engine wrote them before change streams: no sidecar, no clock ops.
  await writeFile(
    path.join(dir, 'snapshot-000000000002.bson'),
    Buffer.concat([
      record(kind('H'), BSON.serialize({ format: 1, seq: 2 })),
      record(kind('B'), BSON.serialize({ name: 'app' })),
      record(
        kind('C'),
        BSON.serialize({ db: 'app', name: 'items', options: {}, indexes: [{ v: 2, key: { _id: 1 }, name: '_id_' }] }),
      ),
      record(kind('D'), BSON.serialize({ _id: 's1' }), BSON.serialize({ _id: 's2' })),
      record(kind('E'), BSON.serialize({ databases: 1, collections: 1, documents: 2 })),
    ]),
  );
  await writeFile(
    path.join(dir, 'journal-000000000002.log'),
    record(BSON.serialize({ t: 'put', db: 'app', coll: 'items', doc: { _id: 'j1' } })),
  );

  let engine = await start(dir);
  let coll = engine.client.db('app').collection<Item>('items');
  expect(
    await coll
      .find()
      .map((doc) => doc._id)
      .toArray(),
  ).toEqual(['s1', 's2', 'j1']);
  const atStart = await tokenNow(engine.client, 'app', 'items');
  await coll.insertOne({ _id: 'new' });
  await engine.stop();

  engine = await start(dir);
  coll = engine.client.db('app').collection<Item>('items');
  const stream = coll.watch([], { resumeAfter: atStart, maxAwaitTimeMS: 50 });
  expect(summary(await drain(stream))).toEqual([['insert', 'new']]);
  await stream.close();
  // The replayed old journal record was event 1: resuming from before it still works, nothing older exists.
  const zero = { _data: `${(atStart as { _data: string })._data.slice(0, 34)}${'0'.repeat(14)}00` };
  const all = coll.watch([], { resumeAfter: zero, maxAwaitTimeMS: 50 });
  expect(summary(await drain(all))).toEqual([
    ['insert', 'j1'],
    ['insert', 'new'],
  ]);
  await all.close();
});
