/**
 * Driver calls with the answers a standalone mongod 7 gives. The suite runs against the embedded engine by
 * default and against mongod with TEST_TARGET=mongod, so every expectation here is mongod's behaviour.
 */
import {
  BSON,
  Decimal128,
  Long,
  MongoBulkWriteError,
  MongoClient,
  MongoServerError,
  ObjectId,
  ServerApiVersion,
  type Collection,
  type Document,
} from 'mongodb';
import { openTestDatabase, type TestDatabase } from './support/db';

/** Documents of any shape, with any `_id` type (the suite is about the server, not the driver's typings). */
type Doc = any;

let t: TestDatabase;
let seq = 0;
/** A fresh collection per test so tests never see each other's documents. */
const fresh = (): Collection<Doc> => t.db.collection<Doc>(`c${++seq}`);

/** The server error a promise rejects with (fails the test if it resolves). */
async function serverError(promise: Promise<unknown>): Promise<MongoServerError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MongoServerError);
  return error as MongoServerError;
}

/** A document whose chain of non-empty objects is `depth` long, the document itself included: {a: {a: … {a: 1}}}. */
const nested = (depth: number): Doc => {
  let doc: Doc = { a: 1 };
  for (let level = 1; level < depth; level++) doc = { a: doc };
  return doc;
};

beforeAll(async () => {
  t = await openTestDatabase();
});
afterAll(async () => {
  await t.close();
});

describe('handshake and commands', () => {
  test('hello reports a writable standalone (no setName) with wire version >= 9', async () => {
    const hello = await t.db.admin().command({ hello: 1 });
    expect(hello.isWritablePrimary).toBe(true);
    expect(hello.setName).toBeUndefined();
    expect(hello.maxWireVersion).toBeGreaterThanOrEqual(9);
    expect(hello.maxBsonObjectSize).toBe(16 * 1024 * 1024);
    expect(hello.maxMessageSizeBytes).toBe(48_000_000);
  });

  test('a client with serverApi (OP_MSG hello handshake) works too', async () => {
    const client = new MongoClient(t.uri, { serverApi: { version: ServerApiVersion.v1 } });
    try {
      await client.connect();
      expect((await client.db(t.db.databaseName).command({ ping: 1 })).ok).toBe(1);
      await client.db(t.db.databaseName).collection('api').insertOne({ a: 1 });
      expect(await client.db(t.db.databaseName).collection('api').countDocuments()).toBe(1);
    } finally {
      await client.close();
    }
  });

  test('ping and buildInfo answer ok with a version string', async () => {
    expect((await t.db.command({ ping: 1 })).ok).toBe(1);
    const info = await t.db.admin().command({ buildInfo: 1 });
    expect(info.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(info.versionArray).toHaveLength(4);
  });

  test('an unknown command fails with 59 CommandNotFound and keeps the connection usable', async () => {
    const error = await serverError(t.db.command({ frobnicate: 1 }));
    expect(error.code).toBe(59);
    expect(error.codeName).toBe('CommandNotFound');
    expect(error.message).toBe("no such command: 'frobnicate'");
    expect((await serverError(t.db.command({ toString: 1 }))).code).toBe(59);
    expect((await t.db.command({ ping: 1 })).ok).toBe(1);
  });

  test('plain writes carry no txnNumber (standalone topology)', async () => {
    t.commands.reset();
    const c = fresh();
    await c.insertOne({ a: 1 });
    await c.updateOne({ a: 1 }, { $set: { b: 1 } });
    await c.findOneAndUpdate({ a: 1 }, { $set: { c: 1 } });
    await c.deleteOne({ a: 1 });
    expect(t.commands.events.length).toBeGreaterThanOrEqual(4);
    for (const event of t.commands.events) expect(event.command.txnNumber).toBeUndefined();
  });

  test('transactions are rejected as on a standalone mongod (code 20)', async () => {
    const c = fresh();
    await c.insertOne({ a: 1 });
    const session = t.client.startSession();
    try {
      session.startTransaction();
      const read = await serverError(c.findOne({}, { session }));
      expect(read.code).toBe(20);
      expect(read.message).toBe('Transaction numbers are only allowed on a replica set member or mongos');
      await session.abortTransaction().catch(() => undefined);
      session.startTransaction();
      // For writes the driver rewrites code 20 into its retryable-writes message, against mongod too.
      const write = await serverError(c.insertOne({ a: 2 }, { session }));
      expect(write.message).toMatch(/does not support retryable writes/);
      await session.abortTransaction().catch(() => undefined);
    } finally {
      await session.endSession();
    }
    expect(await c.countDocuments()).toBe(1);
  });

  test('a raw command with txnNumber fails with IllegalOperation', async () => {
    const error = await serverError(t.db.command({ find: 'x', filter: {}, txnNumber: Long.fromNumber(1) } as Document));
    expect(error.code).toBe(20);
    expect(error.codeName).toBe('IllegalOperation');
  });
});

describe('CRUD', () => {
  test('insertOne then findOne returns the document with its types', async () => {
    const c = fresh();
    const when = new Date('2024-05-01T10:00:00Z');
    const id = new ObjectId();
    const doc = {
      _id: id,
      s: 'text',
      n: 42,
      f: 1.5,
      d: when,
      b: true,
      nul: null,
      arr: [1, 'two', { three: 3 }],
      sub: { x: { y: 'z' } },
    };
    const result = await c.insertOne(doc);
    expect(result.insertedId).toEqual(id);
    expect(await c.findOne({ _id: id })).toEqual(doc);
    expect(await c.findOne({ 'sub.x.y': 'z' })).toEqual(doc);
  });

  test('_id is generated and placed first when missing', async () => {
    const c = fresh();
    await c.insertMany([{ a: 1 }]);
    await t.db.command({ insert: c.collectionName, documents: [{ b: 2 }] });
    const docs = await c.find({}).toArray();
    expect(docs).toHaveLength(2);
    for (const doc of docs) {
      expect(doc._id).toBeInstanceOf(ObjectId);
      expect(Object.keys(doc)[0]).toBe('_id');
    }
  });

  test('query operators filter as mongod does', async () => {
    const c = fresh();
    await c.insertMany([
      {
        _id: 1,
        n: 1,
        s: 'apple',
        tags: ['a', 'b'],
        sub: { k: 1 },
        items: [
          { k: 1, v: 'x' },
          { k: 2, v: 'y' },
        ],
      },
      { _id: 2, n: 5, s: 'banana', tags: ['b'], sub: { k: 2 }, items: [{ k: 3, v: 'x' }] },
      { _id: 3, n: 10, s: 'cherry', tags: [], sub: null },
      { _id: 4, s: 'date', n: 'five' },
    ]);
    const ids = async (filter: Document) => (await c.find(filter).sort({ _id: 1 }).toArray()).map((d) => d._id);
    expect(await ids({ n: { $gt: 1 } })).toEqual([2, 3]); // strings are not compared with numbers
    expect(await ids({ n: { $gte: 1, $lt: 10 } })).toEqual([1, 2]);
    expect(await ids({ n: { $in: [1, 10, 'five'] } })).toEqual([1, 3, 4]);
    expect(await ids({ n: { $nin: [1, 10] } })).toEqual([2, 4]);
    expect(await ids({ n: { $ne: 5 } })).toEqual([1, 3, 4]);
    expect(await ids({ tags: 'b' })).toEqual([1, 2]);
    expect(await ids({ tags: { $all: ['a', 'b'] } })).toEqual([1]);
    expect(await ids({ tags: { $size: 0 } })).toEqual([3]);
    expect(await ids({ s: { $regex: '^b' } })).toEqual([2]);
    expect(await ids({ s: /RY$/i })).toEqual([3]);
    expect(await ids({ sub: null })).toEqual([3, 4]); // null matches missing too
    expect(await ids({ sub: { $exists: false } })).toEqual([4]);
    expect(await ids({ 'sub.k': 2 })).toEqual([2]);
    expect(await ids({ 'items.v': 'x' })).toEqual([1, 2]);
    expect(await ids({ items: { $elemMatch: { k: 2, v: 'y' } } })).toEqual([1]);
    expect(await ids({ items: { $elemMatch: { k: 3, v: 'y' } } })).toEqual([]);
    expect(await ids({ $or: [{ n: 1 }, { s: 'date' }] })).toEqual([1, 4]);
    expect(await ids({ $and: [{ n: { $type: 'number' } }, { n: { $not: { $gt: 4 } } }] })).toEqual([1]);
    expect(await ids({ $expr: { $eq: ['$n', 5] } })).toEqual([2]);
    expect(await ids({ _id: { $in: [4, 2, 99] } })).toEqual([2, 4]);
  });

  test('numbers compare by value across int, double, Long and Decimal128', async () => {
    const c = fresh();
    await c.insertMany([
      { _id: 1, v: Long.fromString('9007199254740993') },
      { _id: 2, v: Decimal128.fromString('2.5') },
      { _id: 3, v: 3 },
      { _id: 4, v: Long.fromNumber(4) },
    ]);
    const ids = async (filter: Document) => (await c.find(filter).sort({ _id: 1 }).toArray()).map((d) => d._id);
    expect(await ids({ v: { $gt: 2 } })).toEqual([1, 2, 3, 4]);
    expect(await ids({ v: { $lt: 3 } })).toEqual([2]);
    expect(await ids({ v: 4 })).toEqual([4]);
    expect(await ids({ v: Long.fromNumber(3) })).toEqual([3]);
    expect(await ids({ v: { $gt: Long.fromString('9007199254740992') } })).toEqual([1]);
    expect((await c.find({}).sort({ v: 1 }).toArray()).map((d) => d._id)).toEqual([2, 3, 4, 1]);
  });

  test('sort, skip, limit and projection', async () => {
    const c = fresh();
    await c.insertMany([
      { _id: 1, g: 'b', n: 3, x: { y: 1, z: 2 } },
      { _id: 2, g: 'a', n: 2, x: { y: 3, z: 4 } },
      { _id: 3, g: 'b', n: 1, x: { y: 5, z: 6 } },
    ]);
    expect(
      await c
        .find({}, { projection: { n: 1 } })
        .sort({ g: 1, n: -1 })
        .toArray(),
    ).toEqual([
      { _id: 2, n: 2 },
      { _id: 1, n: 3 },
      { _id: 3, n: 1 },
    ]);
    expect(await c.find({}).sort({ n: 1 }).skip(1).limit(1).toArray()).toEqual([
      { _id: 2, g: 'a', n: 2, x: { y: 3, z: 4 } },
    ]);
    expect(await c.findOne({ _id: 1 }, { projection: { 'x.y': 1, _id: 0 } })).toEqual({ x: { y: 1 } });
    expect(await c.findOne({ _id: 1 }, { projection: { x: 0, g: 0 } })).toEqual({ _id: 1, n: 3 });
    expect(await c.findOne({ _id: 1 }, { projection: { 'x.z': 0 } })).toEqual({ _id: 1, g: 'b', n: 3, x: { y: 1 } });
    const error = await serverError(c.findOne({}, { projection: { g: 1, n: 0 } }));
    expect(error.code).toBe(31254);
  });

  test('$slice and $elemMatch projections on nested arrays', async () => {
    const c = fresh();
    const messages = Array.from({ length: 30 }, (_, i) => ({ id: i + 1, text: `m${i + 1}` }));
    await c.insertOne({
      _id: 's1',
      agents: { a1: { messages, agent_data: { role: 'x' } } },
      items: [{ k: 1 }, { k: 2, v: 'b' }],
    });
    const last = await c.findOne({ _id: 's1' }, { projection: { 'agents.a1.messages': { $slice: -1 } } });
    expect(last).toEqual({
      _id: 's1',
      agents: { a1: { messages: [{ id: 30, text: 'm30' }], agent_data: { role: 'x' } } },
      items: [{ k: 1 }, { k: 2, v: 'b' }],
    });
    const page = await c.findOne({ _id: 's1' }, { projection: { 'agents.a1.messages': { $slice: [-20, 20] } } });
    expect(page!.agents.a1.messages.map((m: { id: number }) => m.id)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 11),
    );
    const window = await c.findOne(
      { _id: 's1' },
      { projection: { 'agents.a1.messages': { $slice: [5, 2] }, _id: 0, items: 0 } },
    );
    expect(window).toEqual({
      agents: {
        a1: {
          messages: [
            { id: 6, text: 'm6' },
            { id: 7, text: 'm7' },
          ],
          agent_data: { role: 'x' },
        },
      },
    });
    const first = await c.findOne({ _id: 's1' }, { projection: { 'agents.a1.messages': { $slice: 2 } } });
    expect(first!.agents.a1.messages).toHaveLength(2);
    expect(await c.findOne({ _id: 's1' }, { projection: { items: { $elemMatch: { k: 2 } } } })).toEqual({
      _id: 's1',
      items: [{ k: 2, v: 'b' }],
    });
    expect(await c.findOne({ 'items.k': 2 }, { projection: { 'items.$': 1 } })).toEqual({
      _id: 's1',
      items: [{ k: 2, v: 'b' }],
    });
  });

  test('updateOne, updateMany, replaceOne, deleteOne and deleteMany report counts', async () => {
    const c = fresh();
    await c.insertMany([
      { _id: 1, g: 1 },
      { _id: 2, g: 1 },
      { _id: 3, g: 2 },
    ]);
    const one = await c.updateOne({ g: 1 }, { $set: { x: 1 } });
    expect([one.matchedCount, one.modifiedCount, one.upsertedCount]).toEqual([1, 1, 0]);
    const many = await c.updateMany({ g: 1 }, { $set: { x: 1 } });
    expect([many.matchedCount, many.modifiedCount]).toEqual([2, 1]); // one already had x: 1
    const noop = await c.updateOne({ _id: 1 }, { $set: { x: 1 } });
    expect([noop.matchedCount, noop.modifiedCount]).toEqual([1, 0]);
    const replaced = await c.replaceOne({ _id: 3 }, { g: 3, r: true });
    expect([replaced.matchedCount, replaced.modifiedCount]).toEqual([1, 1]);
    expect(await c.findOne({ _id: 3 })).toEqual({ _id: 3, g: 3, r: true });
    expect((await c.deleteOne({ g: 1 })).deletedCount).toBe(1);
    expect((await c.deleteMany({})).deletedCount).toBe(2);
    expect((await c.deleteMany({})).deletedCount).toBe(0);
  });
});

describe('update operators', () => {
  async function applied(
    initial: Document,
    update: Document,
    options: { arrayFilters?: Document[]; filter?: Document } = {},
  ) {
    const c = fresh();
    await c.insertOne({ _id: 1, ...initial });
    await c.updateOne({ _id: 1, ...options.filter }, update, { arrayFilters: options.arrayFilters });
    const { _id, ...rest } = (await c.findOne({ _id: 1 }))!;
    return rest;
  }

  test('a pipeline $set merges an embedded document into the stored one (as $addFields does)', async () => {
    const stored = { run: { kept: 1, last: 0 }, other: 2 };
    const set = { run: { last: { $add: ['$run.last', 1] }, added: { deeper: { $literal: 'x' } } } };
    const merged = { run: { kept: 1, last: 1, added: { deeper: 'x' } }, other: 2 };
    expect(await applied(stored, [{ $set: set }])).toEqual(merged);
    // Through mingo (a stage the copy-on-write path leaves to it) as well.
    expect(await applied(stored, [{ $set: set }, { $unset: 'other' }])).toEqual({ run: merged.run });
    // An operator expression is a value: it replaces.
    expect(await applied(stored, [{ $set: { run: { $literal: { only: true } } } }])).toEqual({
      run: { only: true },
      other: 2,
    });
    const c = fresh();
    await c.insertOne({ _id: 1, ...stored });
    expect(await c.aggregate([{ $addFields: set }, { $project: { _id: 0 } }]).toArray()).toEqual([merged]);
  });

  test('$set creates nested paths and $unset removes fields', async () => {
    expect(await applied({ a: 1 }, { $set: { 'b.c.d': 2, a: 3 } })).toEqual({ a: 3, b: { c: { d: 2 } } });
    expect(await applied({ a: 1, b: { c: 1, d: 2 } }, { $unset: { a: '', 'b.c': 1, missing: '' } })).toEqual({
      b: { d: 2 },
    });
    expect(await applied({ arr: [1, 2, 3] }, { $set: { 'arr.1': 9, 'arr.5': 6 } })).toEqual({
      arr: [1, 9, 3, null, null, 6],
    });
    expect(await applied({ arr: [1, 2, 3] }, { $unset: { 'arr.1': '' } })).toEqual({ arr: [1, null, 3] });
  });

  test('$inc, $mul, $min and $max', async () => {
    expect(await applied({ n: 1 }, { $inc: { n: 2, m: -3, 'sub.k': 1 } })).toEqual({ n: 3, m: -3, sub: { k: 1 } });
    expect(await applied({ n: 1.5 }, { $inc: { n: 1 } })).toEqual({ n: 2.5 });
    expect(await applied({ n: 3 }, { $mul: { n: 4, z: 2 } })).toEqual({ n: 12, z: 0 });
    expect(await applied({ n: 5, m: 5 }, { $min: { n: 3, m: 7, k: 1 } })).toEqual({ n: 3, m: 5, k: 1 });
    const early = new Date('2020-01-01');
    const late = new Date('2021-01-01');
    expect(await applied({ d: early }, { $max: { d: late } })).toEqual({ d: late });
    expect(await applied({ d: late }, { $max: { d: early } })).toEqual({ d: late });
  });

  test('$rename, $currentDate and $bit', async () => {
    expect(await applied({ a: 1, b: { c: 2 } }, { $rename: { a: 'z', 'b.c': 'b.d', missing: 'x' } })).toEqual({
      b: { d: 2 },
      z: 1,
    });
    const before = Date.now();
    const stamped = await applied({}, { $currentDate: { at: true, also: { $type: 'date' } } });
    expect(stamped.at).toBeInstanceOf(Date);
    expect(stamped.at.getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(stamped.also).toBeInstanceOf(Date);
    expect(await applied({ f: 13 }, { $bit: { f: { and: 10 } } })).toEqual({ f: 8 });
    expect(await applied({ f: 3 }, { $bit: { f: { or: 5 } } })).toEqual({ f: 7 });
    expect(await applied({ f: 1 }, { $bit: { f: { xor: 5 } } })).toEqual({ f: 4 });
  });

  test('$push with $each, $position, $sort and $slice', async () => {
    expect(await applied({}, { $push: { arr: 1 } })).toEqual({ arr: [1] });
    expect(await applied({ arr: [1] }, { $push: { arr: { $each: [2, 3] } } })).toEqual({ arr: [1, 2, 3] });
    expect(await applied({ arr: [1, 2] }, { $push: { arr: { $each: [9], $position: 0 } } })).toEqual({
      arr: [9, 1, 2],
    });
    expect(await applied({ arr: [1, 2] }, { $push: { arr: { $each: [9], $position: -1 } } })).toEqual({
      arr: [1, 9, 2],
    });
    expect(await applied({ arr: [5, 1] }, { $push: { arr: { $each: [3], $sort: 1 } } })).toEqual({ arr: [1, 3, 5] });
    expect(await applied({ arr: [1, 2, 3] }, { $push: { arr: { $each: [4], $slice: -2 } } })).toEqual({ arr: [3, 4] });
    expect(
      await applied(
        { arr: [{ s: 2 }, { s: 9 }] },
        { $push: { arr: { $each: [{ s: 5 }], $sort: { s: -1 }, $slice: 2 } } },
      ),
    ).toEqual({ arr: [{ s: 9 }, { s: 5 }] });
    expect(await applied({ arr: [1] }, { $push: { arr: [2, 3] } })).toEqual({ arr: [1, [2, 3]] });
  });

  test('$addToSet, $pop, $pull and $pullAll', async () => {
    expect(await applied({ s: [1, 2] }, { $addToSet: { s: 2 } })).toEqual({ s: [1, 2] });
    expect(await applied({ s: [1, 2] }, { $addToSet: { s: { $each: [2, 3, 3] } } })).toEqual({ s: [1, 2, 3] });
    expect(await applied({ s: [{ a: 1, b: 2 }] }, { $addToSet: { s: { b: 2, a: 1 } } })).toEqual({
      s: [
        { a: 1, b: 2 },
        { b: 2, a: 1 },
      ],
    });
    expect(await applied({ s: [1, 2, 3] }, { $pop: { s: 1 } })).toEqual({ s: [1, 2] });
    expect(await applied({ s: [1, 2, 3] }, { $pop: { s: -1 } })).toEqual({ s: [2, 3] });
    expect(await applied({ s: [1, 2, 3, 2] }, { $pull: { s: 2 } })).toEqual({ s: [1, 3] });
    expect(await applied({ s: [1, 5, 8] }, { $pull: { s: { $gte: 5 } } })).toEqual({ s: [1] });
    expect(
      await applied(
        {
          s: [
            { k: 1, v: 'a' },
            { k: 2, v: 'b' },
          ],
        },
        { $pull: { s: { k: 2 } } },
      ),
    ).toEqual({ s: [{ k: 1, v: 'a' }] });
    expect(await applied({ s: [1, 2, 3, 1] }, { $pullAll: { s: [1, 3] } })).toEqual({ s: [2] });
  });

  test('positional $, $[] and $[<id>] with arrayFilters', async () => {
    const items = [
      { k: 1, v: 0 },
      { k: 2, v: 0 },
      { k: 3, v: 0 },
    ];
    expect(await applied({ items }, { $set: { 'items.$.v': 9 } }, { filter: { 'items.k': 2 } })).toEqual({
      items: [
        { k: 1, v: 0 },
        { k: 2, v: 9 },
        { k: 3, v: 0 },
      ],
    });
    expect(await applied({ s: [4, 5, 6] }, { $inc: { 's.$': 10 } }, { filter: { s: 5 } })).toEqual({ s: [4, 15, 6] });
    expect(await applied({ items }, { $inc: { 'items.$[].v': 1 } })).toEqual({
      items: [
        { k: 1, v: 1 },
        { k: 2, v: 1 },
        { k: 3, v: 1 },
      ],
    });
    expect(
      await applied({ items }, { $set: { 'items.$[e].v': 7 } }, { arrayFilters: [{ 'e.k': { $gte: 2 } }] }),
    ).toEqual({
      items: [
        { k: 1, v: 0 },
        { k: 2, v: 7 },
        { k: 3, v: 7 },
      ],
    });
    expect(
      await applied({ g: [[1, 2], [3]] }, { $set: { 'g.$[].$[n]': 0 } }, { arrayFilters: [{ n: { $gt: 1 } }] }),
    ).toEqual({ g: [[1, 0], [0]] });
  });

  test('$inc keeps int64 exact and mixes numeric types', async () => {
    const c = fresh();
    await c.insertOne({ _id: 1, big: Long.fromString('9007199254740993'), d: Decimal128.fromString('1.5'), n: 1 });
    await c.updateOne({ _id: 1 }, { $inc: { big: 1, d: 1, n: Long.fromNumber(2) } });
    const doc = await c.findOne({ _id: 1 }, { promoteLongs: false, promoteValues: false });
    expect(doc!.big).toEqual(Long.fromString('9007199254740994'));
    expect(doc!.d.toString()).toBe('2.5');
    expect(Number(doc!.n)).toBe(3);
  });

  test('pipeline updates compute from the document', async () => {
    expect(
      await applied({ a: 2, b: 3 }, [
        { $set: { sum: { $add: ['$a', '$b'] } } },
        { $unset: 'b' },
      ] as unknown as Document),
    ).toEqual({ a: 2, sum: 5 });
  });

  test('fields are applied in path order, new fields appended', async () => {
    const c = fresh();
    await c.insertOne({ _id: 1, m: 1 });
    await c.updateOne({ _id: 1 }, { $set: { z: 1, b: 1 } });
    expect(Object.keys((await c.findOne({ _id: 1 }))!)).toEqual(['_id', 'm', 'b', 'z']);
  });
});

describe('upserts', () => {
  test('an upsert seeds equality fields from the filter and applies $setOnInsert only on insert', async () => {
    const c = fresh();
    const first = await c.updateOne(
      { name: 'x', 'meta.kind': 'k', n: { $gt: 5 }, tag: { $eq: 't' } },
      { $set: { v: 1 }, $setOnInsert: { created: 'once' } },
      { upsert: true },
    );
    expect(first.upsertedCount).toBe(1);
    expect(first.matchedCount).toBe(0);
    const doc = await c.findOne({ _id: first.upsertedId! });
    expect(doc).toEqual({ _id: first.upsertedId, name: 'x', meta: { kind: 'k' }, tag: 't', v: 1, created: 'once' });
    const second = await c.updateOne(
      { name: 'x' },
      { $set: { v: 2 }, $setOnInsert: { created: 'twice' } },
      { upsert: true },
    );
    expect([second.matchedCount, second.modifiedCount, second.upsertedId]).toEqual([1, 1, null]);
    expect((await c.findOne({ name: 'x' }))!.created).toBe('once');
  });

  test('an upsert takes _id from the filter, for operator and replacement updates', async () => {
    const c = fresh();
    const byOperator = await c.updateOne({ _id: 'a' as never }, { $inc: { n: 1 } }, { upsert: true });
    expect(byOperator.upsertedId).toBe('a');
    const byReplacement = await c.replaceOne({ _id: 'b' as never, ignored: 1 }, { r: 1 }, { upsert: true });
    expect(byReplacement.upsertedId).toBe('b');
    expect(await c.find({}).sort({ _id: 1 }).toArray()).toEqual([
      { _id: 'a', n: 1 },
      { _id: 'b', r: 1 },
    ]);
  });

  test('updateMany with upsert inserts one document', async () => {
    const c = fresh();
    const result = await c.updateMany({ k: 1 }, { $set: { v: 1 } }, { upsert: true });
    expect(result.upsertedCount).toBe(1);
    expect(await c.countDocuments()).toBe(1);
  });
});

describe('storage rules', () => {
  test('a document nested 180 levels is stored; 181 fails with 15 Overflow (insert, update, upsert, findAndModify)', async () => {
    const c = fresh();
    await c.insertOne({ _id: 'max', ...nested(180) });
    expect(await c.countDocuments({ _id: 'max' })).toBe(1);
    // Empty objects and arrays add no level.
    await c.insertOne({ _id: 'empty', ...nested(180), b: nested(179).a, e: {}, l: [] });
    const tooDeep = await serverError(c.insertOne({ _id: 'deep', ...nested(181) }));
    expect(tooDeep.code).toBe(15); // Overflow
    expect(tooDeep.message).toMatch(/nesting depth/);
    expect((await serverError(c.insertOne({ _id: 'list', l: [nested(180)] }))).code).toBe(15);
    expect((await serverError(c.updateOne({ _id: 'max' }, { $set: { b: nested(180) } }))).code).toBe(15);
    expect((await serverError(c.replaceOne({ _id: 'max' }, nested(181)))).code).toBe(15);
    expect((await serverError(c.updateOne({ _id: 'new' }, { $set: { b: nested(180) } }, { upsert: true }))).code).toBe(
      15,
    );
    expect((await serverError(c.findOneAndUpdate({ _id: 'max' }, { $set: { b: nested(180) } }))).code).toBe(15);
    expect(await c.countDocuments({ _id: { $in: ['deep', 'list', 'new'] } })).toBe(0);
    expect(await c.findOne({ _id: 'max' })).toEqual({ _id: 'max', ...nested(180) });
  });

  test('$-prefixed field names are stored, top-level ones too (5.0+, as the CRUD spec says)', async () => {
    const c = fresh();
    await c.insertOne({ _id: 1, $x: 1, a: { $y: [{ $z: 1 }] } });
    expect(await c.findOne({ _id: 1 })).toEqual({ _id: 1, $x: 1, a: { $y: [{ $z: 1 }] } });
  });
});

describe('findAndModify', () => {
  test('findOneAndUpdate returns the document before or after, with projection and sort', async () => {
    const c = fresh();
    await c.insertMany([
      { _id: 1, g: 1, n: 1 },
      { _id: 2, g: 1, n: 2 },
    ]);
    const before = await c.findOneAndUpdate(
      { g: 1 },
      { $inc: { n: 10 } },
      { sort: { n: -1 }, returnDocument: 'before' },
    );
    expect(before).toEqual({ _id: 2, g: 1, n: 2 });
    const after = await c.findOneAndUpdate(
      { g: 1 },
      { $inc: { n: 10 } },
      { sort: { n: 1 }, returnDocument: 'after', projection: { n: 1, _id: 0 } },
    );
    expect(after).toEqual({ n: 11 });
    expect(await c.findOneAndUpdate({ g: 9 }, { $set: { x: 1 } })).toBeNull();
  });

  test('findOneAndUpdate with upsert and includeResultMetadata', async () => {
    const c = fresh();
    const result = await c.findOneAndUpdate(
      { key: 'k' },
      { $set: { v: 1 } },
      { upsert: true, returnDocument: 'after', includeResultMetadata: true },
    );
    expect(result.value).toMatchObject({ key: 'k', v: 1 });
    expect(result.lastErrorObject).toMatchObject({ n: 1, updatedExisting: false });
    expect(result.lastErrorObject!.upserted).toEqual(result.value!._id);
    const again = await c.findOneAndUpdate(
      { key: 'k' },
      { $set: { v: 2 } },
      { upsert: true, includeResultMetadata: true },
    );
    expect(again.lastErrorObject).toEqual({ n: 1, updatedExisting: true });
    expect(again.value).toMatchObject({ v: 1 });
  });

  test('findOneAndReplace and findOneAndDelete', async () => {
    const c = fresh();
    await c.insertMany([
      { _id: 1, a: 1 },
      { _id: 2, a: 2 },
    ]);
    expect(await c.findOneAndReplace({ _id: 1 }, { b: 1 }, { returnDocument: 'after' })).toEqual({ _id: 1, b: 1 });
    expect(await c.findOneAndDelete({}, { sort: { _id: -1 } })).toEqual({ _id: 2, a: 2 });
    expect(await c.countDocuments()).toBe(1);
  });
});

describe('cursors', () => {
  test('find returns every document across getMore batches in order', async () => {
    const c = fresh();
    await c.insertMany(Array.from({ length: 250 }, (_, i) => ({ _id: i, i })));
    t.commands.reset();
    const docs = await c.find({}).sort({ _id: 1 }).batchSize(40).toArray();
    expect(docs.map((d) => d._id)).toEqual(Array.from({ length: 250 }, (_, i) => i));
    expect(t.commands.count('getMore')).toBe(6);
  });

  test('the default first batch is 101 documents and the cursor id is an int64', async () => {
    const c = fresh();
    await c.insertMany(Array.from({ length: 150 }, (_, i) => ({ i })));
    const reply = await t.db.command({ find: c.collectionName, filter: {} }, { promoteLongs: false });
    expect(reply.cursor.firstBatch).toHaveLength(101);
    expect(reply.cursor.id).toBeInstanceOf(Long);
    expect(reply.cursor.id.isZero()).toBe(false);
    const more = await t.db.command(
      { getMore: reply.cursor.id, collection: c.collectionName },
      { promoteLongs: false },
    );
    expect(more.cursor.nextBatch).toHaveLength(49);
    expect(Number(more.cursor.id)).toBe(0);
  });

  test('killCursors closes a cursor; getMore on it then fails with 43 CursorNotFound', async () => {
    const c = fresh();
    await c.insertMany(Array.from({ length: 10 }, (_, i) => ({ i })));
    const reply = await t.db.command({ find: c.collectionName, filter: {}, batchSize: 2 }, { promoteLongs: false });
    const id = reply.cursor.id as Long;
    const killed = await t.db.command({ killCursors: c.collectionName, cursors: [id] }, { promoteLongs: false });
    expect(killed.cursorsKilled.map(String)).toEqual([id.toString()]);
    const error = await serverError(t.db.command({ getMore: id, collection: c.collectionName }));
    expect(error.code).toBe(43);
    expect(error.codeName).toBe('CursorNotFound');
  });

  test('large results are split into batches under 16 MiB', async () => {
    const c = fresh();
    const big = 'x'.repeat(1024 * 1024);
    for (let i = 0; i < 24; i++) await c.insertOne({ i, big });
    const docs = await c.find({}).toArray();
    expect(docs).toHaveLength(24);
    expect(docs.every((d) => d.big.length === big.length)).toBe(true);
  });
});

describe('counting and distinct', () => {
  test('countDocuments, estimatedDocumentCount and distinct', async () => {
    const c = fresh();
    await c.insertMany([
      { g: 'b', tags: ['x', 'y'], n: 1 },
      { g: 'a', tags: ['y'], n: 2 },
      { g: 'b', tags: 'z', n: 3 },
      { g: null },
      { other: 1 },
    ]);
    expect(await c.countDocuments()).toBe(5);
    expect(await c.countDocuments({ g: 'b' })).toBe(2);
    expect(await c.countDocuments({}, { skip: 1, limit: 2 })).toBe(2);
    expect(await c.estimatedDocumentCount()).toBe(5);
    expect(await c.distinct('g')).toEqual([null, 'a', 'b']);
    expect(await c.distinct('tags')).toEqual(['x', 'y', 'z']);
    expect(await c.distinct('tags', { n: { $lt: 3 } })).toEqual(['x', 'y']);
    expect(await fresh().countDocuments()).toBe(0);
  });
});

describe('aggregation', () => {
  let orders: Collection<Doc>;
  beforeAll(async () => {
    orders = fresh();
    await orders.insertMany([
      {
        _id: 1,
        customer: 'ann',
        items: [
          { sku: 'a', qty: 2 },
          { sku: 'b', qty: 1 },
        ],
        meta: { x: 1, y: 2 },
      },
      { _id: 2, customer: 'bob', items: [{ sku: 'a', qty: 5 }], meta: { z: 3 } },
      { _id: 3, customer: 'ann', items: [], meta: {} },
    ]);
  });

  test('$match, $unwind, $group with $sum, $sort', async () => {
    const result = await orders
      .aggregate([
        { $unwind: '$items' },
        { $group: { _id: '$items.sku', total: { $sum: '$items.qty' }, orders: { $sum: 1 } } },
        { $sort: { _id: 1 } },
      ])
      .toArray();
    expect(result).toEqual([
      { _id: 'a', total: 7, orders: 2 },
      { _id: 'b', total: 1, orders: 1 },
    ]);
    expect(await orders.aggregate([{ $match: { customer: 'ann' } }, { $count: 'n' }]).toArray()).toEqual([{ n: 2 }]);
  });

  test('$project with $size, $objectToArray and $map; $skip and $limit', async () => {
    const result = await orders
      .aggregate([
        { $sort: { _id: 1 } },
        { $skip: 1 },
        { $limit: 1 },
        {
          $project: {
            n: { $size: '$items' },
            keys: { $map: { input: { $objectToArray: '$meta' }, as: 'kv', in: '$$kv.k' } },
            kv: { $objectToArray: '$meta' },
          },
        },
      ])
      .toArray();
    expect(result).toEqual([{ _id: 2, n: 1, keys: ['z'], kv: [{ k: 'z', v: 3 }] }]);
  });

  test('$facet and $lookup', async () => {
    const customers = fresh();
    await customers.insertMany([
      { _id: 'ann', city: 'Oslo' },
      { _id: 'bob', city: 'Rome' },
    ]);
    const faceted = await orders
      .aggregate([
        {
          $facet: { count: [{ $count: 'n' }], top: [{ $sort: { _id: -1 } }, { $limit: 1 }, { $project: { _id: 1 } }] },
        },
      ])
      .toArray();
    expect(faceted).toEqual([{ count: [{ n: 3 }], top: [{ _id: 3 }] }]);
    const joined = await orders
      .aggregate([
        { $match: { _id: 2 } },
        { $lookup: { from: customers.collectionName, localField: 'customer', foreignField: '_id', as: 'who' } },
        { $project: { who: 1 } },
      ])
      .toArray();
    expect(joined).toEqual([{ _id: 2, who: [{ _id: 'bob', city: 'Rome' }] }]);
  });

  test('aggregation does not change stored documents', async () => {
    await orders.aggregate([{ $addFields: { 'meta.added': 1 } }, { $unset: 'customer' }]).toArray();
    expect(await orders.findOne({ _id: 1 })).toEqual({
      _id: 1,
      customer: 'ann',
      items: [
        { sku: 'a', qty: 2 },
        { sku: 'b', qty: 1 },
      ],
      meta: { x: 1, y: 2 },
    });
  });

  test('$out and $merge write into collections', async () => {
    const target = fresh();
    await orders
      .aggregate([{ $group: { _id: '$customer', n: { $sum: 1 } } }, { $out: target.collectionName }])
      .toArray();
    expect(await target.find({}).sort({ _id: 1 }).toArray()).toEqual([
      { _id: 'ann', n: 2 },
      { _id: 'bob', n: 1 },
    ]);
    await orders
      .aggregate([
        { $match: { _id: 2 } },
        { $project: { _id: '$customer', last: '$_id' } },
        { $merge: { into: target.collectionName } },
      ])
      .toArray();
    expect(await target.findOne({ _id: 'bob' as never })).toEqual({ _id: 'bob', n: 1, last: 2 });
  });

  test('unknown stages fail with 40324; Atlas full-text search stages are refused', async () => {
    const unknown = await serverError(orders.aggregate([{ $frobnicate: {} }]).toArray());
    expect(unknown.code).toBe(40324);
    // $vectorSearch is answered by the engine (vector-search.test.ts); $search is not.
    const search = await serverError(orders.aggregate([{ $search: { text: { query: 'x', path: 'e' } } }]).toArray());
    expect(search.message).toMatch(/\$search/);
  });
});

describe('indexes and catalog', () => {
  test('createIndex, listIndexes and dropIndex', async () => {
    const c = fresh();
    await c.insertOne({ a: 1, b: 1 });
    expect(await c.createIndex({ a: 1 }, { unique: true })).toBe('a_1');
    expect(await c.createIndex({ a: 1, b: -1 }, { name: 'ab' })).toBe('ab');
    expect(await c.createIndex({ a: 1 }, { unique: true })).toBe('a_1'); // idempotent
    const indexes = await c.listIndexes().toArray();
    expect(indexes.map((index) => [index.name, index.key, index.unique ?? false])).toEqual([
      ['_id_', { _id: 1 }, false],
      ['a_1', { a: 1 }, true],
      ['ab', { a: 1, b: -1 }, false],
    ]);
    expect(await c.indexExists('ab')).toBe(true);
    await c.dropIndex('ab');
    expect((await c.listIndexes().toArray()).map((index) => index.name)).toEqual(['_id_', 'a_1']);
    await c.dropIndexes();
    expect((await c.listIndexes().toArray()).map((index) => index.name)).toEqual(['_id_']);
  });

  test('index conflicts: same name other key (86), same key other name (85), missing index (27)', async () => {
    const c = fresh();
    await c.createIndex({ a: 1 }, { name: 'idx' });
    expect((await serverError(c.createIndex({ b: 1 }, { name: 'idx' }))).code).toBe(86);
    expect((await serverError(c.createIndex({ a: 1 }, { name: 'other' }))).code).toBe(85);
    expect((await serverError(c.dropIndex('nope'))).code).toBe(27);
    expect((await serverError(c.dropIndex('_id_'))).code).toBe(72);
  });

  test("collMod changes a TTL index's expireAfterSeconds, and 27 for a missing index", async () => {
    const c = fresh();
    await c.createIndex({ at: 1 }, { name: 'at_ttl', expireAfterSeconds: 60 });
    const reply = await t.db.command({ collMod: c.collectionName, index: { name: 'at_ttl', expireAfterSeconds: 90 } });
    expect(reply).toMatchObject({ expireAfterSeconds_old: 60, expireAfterSeconds_new: 90, ok: 1 });
    const [, ttl] = await c.listIndexes().toArray();
    expect(ttl).toMatchObject({ name: 'at_ttl', key: { at: 1 }, expireAfterSeconds: 90 });
    // Another expiry through createIndex is an options conflict: collMod is the way to change it.
    expect((await serverError(c.createIndex({ at: 1 }, { name: 'at_ttl', expireAfterSeconds: 30 }))).code).toBe(85);
    const missing = t.db.command({ collMod: c.collectionName, index: { name: 'nope', expireAfterSeconds: 1 } });
    expect((await serverError(missing)).code).toBe(27);
  });

  test('listIndexes on a missing collection fails with 26 NamespaceNotFound', async () => {
    const error = await serverError(t.db.collection('never_created').listIndexes().toArray());
    expect(error.code).toBe(26);
    expect(error.codeName).toBe('NamespaceNotFound');
  });

  test('createCollection, listCollections, drop and NamespaceExists', async () => {
    const name = `made${++seq}`;
    await t.db.createCollection(name);
    const names = (await t.db.listCollections({}, { nameOnly: true }).toArray()).map((info) => info.name);
    expect(names).toContain(name);
    const [info] = await t.db.listCollections({ name }).toArray();
    expect(info).toMatchObject({ name, type: 'collection', options: {} });
    expect((await serverError(t.db.createCollection(name, { validator: { a: { $exists: true } } }))).code).toBe(48);
    expect(await t.db.collection(name).drop()).toBe(true);
    expect((await t.db.listCollections({ name }).toArray()).length).toBe(0);
  });

  test('rename moves documents and indexes; an existing target needs dropTarget', async () => {
    const source = fresh();
    await source.insertMany([
      { _id: 1, k: 'a' },
      { _id: 2, k: 'b' },
    ]);
    await source.createIndex({ k: 1 }, { unique: true });
    const name = `renamed${++seq}`;
    const renamed = await source.rename(name);
    expect(await renamed.find({}).sort({ _id: 1 }).toArray()).toEqual([
      { _id: 1, k: 'a' },
      { _id: 2, k: 'b' },
    ]);
    expect((await renamed.listIndexes().toArray()).map((index) => index.name)).toEqual(['_id_', 'k_1']);
    expect(await source.countDocuments()).toBe(0);
    const other = fresh();
    await other.insertOne({ x: 1 });
    expect((await serverError(other.rename(name))).code).toBe(48);
    await other.rename(name, { dropTarget: true });
    expect(
      await t.db
        .collection(name)
        .find({}, { projection: { _id: 0 } })
        .toArray(),
    ).toEqual([{ x: 1 }]);
  });

  test('a collection validator rejects invalid inserts and updates with 121', async () => {
    const name = `validated${++seq}`;
    await t.db.createCollection(name, { validator: { n: { $gte: 0 } } });
    const c = t.db.collection<Doc>(name);
    await c.insertOne({ _id: 1, n: 1 });
    expect((await serverError(c.insertOne({ _id: 2, n: -1 }))).code).toBe(121);
    expect((await serverError(c.updateOne({ _id: 1 }, { $set: { n: -5 } }))).code).toBe(121);
    expect(await c.find({}).toArray()).toEqual([{ _id: 1, n: 1 }]);
  });

  test('listDatabases includes the database; dropDatabase removes it', async () => {
    const other = t.client.db(`${t.db.databaseName}_x`);
    await other.collection('c').insertOne({ a: 1 });
    const { databases } = await t.db.admin().listDatabases();
    expect(databases.map((db) => db.name)).toEqual(expect.arrayContaining([t.db.databaseName, other.databaseName]));
    expect(await other.dropDatabase()).toBe(true);
    const after = await t.db.admin().listDatabases({ nameOnly: true });
    expect(after.databases.map((db) => db.name)).not.toContain(other.databaseName);
    expect(await other.collection('c').countDocuments()).toBe(0);
  });
});

describe('sorted reads along an index', () => {
  test('find and aggregate sorted along (or against) a compound index with a range and a limit return the full sort', async () => {
    const c = fresh();
    await c.createIndex({ timestamp: 1, experience_id: 1 });
    await c.createIndex({ agent: 1, timestamp: 1 });
    const base = Date.UTC(2025, 0, 1);
    const docs = Array.from({ length: 200 }, (_, n) => ({
      _id: n,
      experience_id: `e${(n * 7919) % 1000}`.padStart(5, '0'),
      timestamp: new Date(base + ((n * 37) % 60) * 60_000),
      agent: `a${n % 3}`,
    }));
    await c.insertMany(docs);
    const cut = new Date(base + 30 * 60_000);
    const newestFirst = (a: Doc, b: Doc) => b.timestamp - a.timestamp || (a.experience_id < b.experience_id ? 1 : -1);
    const expected = docs
      .filter((doc) => doc.timestamp < cut)
      .sort(newestFirst)
      .slice(0, 25)
      .map((doc) => doc._id);
    const found = await c
      .find({ timestamp: { $lt: cut } })
      .sort({ timestamp: -1, experience_id: -1 })
      .limit(25)
      .toArray();
    expect(found.map((doc) => doc._id)).toEqual(expected);
    const pipeline = [
      { $match: { timestamp: { $lt: cut } } },
      { $sort: { timestamp: -1, experience_id: -1 } },
      { $limit: 25 },
      { $project: { _id: 1 } },
    ];
    expect(await c.aggregate(pipeline).toArray()).toEqual(expected.map((_id) => ({ _id })));
    // An equality on the first field of { agent, timestamp } with a sort on the second (then _id, unique).
    const agent = docs
      .filter((doc) => doc.agent === 'a1')
      .sort((a, b) => a.timestamp.getTime() - b.timestamp.getTime() || a._id - b._id);
    expect(
      (await c.find({ agent: 'a1' }).sort({ timestamp: 1, _id: 1 }).skip(4).limit(10).toArray()).map((doc) => doc._id),
    ).toEqual(agent.slice(4, 14).map((doc) => doc._id));
  });
});

describe('null equality and distinct on an indexed field', () => {
  test('find {field: null} and distinct give the same answers with and without the index', async () => {
    const indexed = fresh();
    const plain = fresh();
    await indexed.createIndex({ model: 1 });
    await indexed.createIndex({ lead: 1, n: 1 });
    // A document lacking the field comes first under null's key, before one holding null.
    const models = [{ p: 'hash', d: 384 }, { p: 'local', d: 512 }, undefined, null, 'text', { d: 384, p: 'hash' }];
    const docs = Array.from({ length: 60 }, (_, n) => {
      const doc: Doc = { _id: n, n, lead: n % 5 === 0 ? null : `l${n % 3}` };
      const model = models[n % models.length];
      if (model !== undefined) doc.model = model;
      return doc;
    });
    await indexed.insertMany(docs);
    await plain.insertMany(docs);
    const filters: Doc[] = [
      { model: null },
      { model: { $eq: null } },
      { lead: null },
      { $and: [{ model: null }, { n: { $gt: 20 } }] },
    ];
    for (const filter of filters) {
      const ids = async (c: Collection<Doc>) => (await c.find(filter).sort({ _id: 1 }).toArray()).map((doc) => doc._id);
      const expected = await ids(plain);
      expect(expected.length).toBeGreaterThan(0);
      expect(await ids(indexed)).toEqual(expected);
    }
    // distinct with a condition on the key, which the compound index's first field decides.
    for (const filter of [
      { lead: null },
      { lead: /^l[12]/ },
      { lead: { $in: ['l0', /^l2$/, null] } },
      { lead: 'l1' },
    ]) {
      expect(await indexed.distinct('lead', filter)).toEqual(await plain.distinct('lead', filter));
    }
    expect(await indexed.distinct('lead', { lead: /^l/ })).toEqual(['l0', 'l1', 'l2']);
    const expected = await plain.distinct('model');
    // null (held explicitly by some documents), each subdocument in its own key order, the string.
    expect(expected).toHaveLength(5);
    expect(await indexed.distinct('model')).toEqual(expected);
    // Only documents lacking the field hold null's key: no null among the values.
    await indexed.deleteMany({ model: null, n: { $mod: [6, 3] } });
    await plain.deleteMany({ model: null, n: { $mod: [6, 3] } });
    expect(await plain.distinct('model')).toHaveLength(4);
    expect(await indexed.distinct('model')).toEqual(await plain.distinct('model'));
  });
});

describe('regexes on an indexed field', () => {
  test('find and distinct with regexes in $in give the same documents with and without the index', async () => {
    const indexed = fresh();
    const plain = fresh();
    await indexed.createIndex({ pattern: 1 });
    await indexed.createIndex({ lead: 1, n: 1 });
    const words = ['summarise_x', 'summarise', 'summary', 'plan_y', 'Summarise_z', 'deploy'];
    const docs = Array.from({ length: 60 }, (_, n) => ({
      _id: n,
      n,
      pattern: n % 10 === 0 ? [words[n % 6], 'tail'] : n % 7 === 0 ? n : words[n % 6],
      lead: words[(n + 1) % 6],
    }));
    await indexed.insertMany(docs);
    await plain.insertMany(docs);
    const filters: Doc[] = [
      { pattern: { $in: [/^summarise(_|$)/, /^plan/] } },
      { pattern: { $in: [/^summarise/i, 'deploy', 14] } },
      { pattern: /^sum/ },
      { pattern: { $in: [/^tail$/] } },
      { $and: [{ pattern: { $in: [/^summar/] } }, { n: { $gt: 20 } }] },
      { lead: { $in: [/^plan/, /^deploy$/] } },
    ];
    for (const filter of filters) {
      const ids = async (c: Collection<Doc>) => (await c.find(filter).sort({ _id: 1 }).toArray()).map((doc) => doc._id);
      const expected = await ids(plain);
      expect(expected.length).toBeGreaterThan(0);
      expect(await ids(indexed)).toEqual(expected);
    }
    const prefixes = { pattern: { $in: [/^summarise(_|$)/, /^plan/] } };
    expect((await indexed.distinct('pattern', prefixes)).sort()).toEqual(
      (await plain.distinct('pattern', prefixes)).sort(),
    );
  });

  test('a regex sent with the g flag matches as mongod reads it: dotAll, the same for every document', async () => {
    // The driver sends JavaScript's g as BSON's s (dotAll), which mongod applies to every document alike.
    for (const indexes of [[], [{ text: 1 }]]) {
      const c = fresh();
      for (const key of indexes) await c.createIndex(key);
      const texts = ['a\nb', 'axb', 'ab', 'a\nb', 'axb', 'a\nb', 'axb', 'ab'];
      await c.insertMany(texts.map((text, _id) => ({ _id, text })));
      const matching = texts.flatMap((text, id) => (text === 'ab' ? [] : [id]));
      expect((await c.find({ text: /a.b/g }).sort({ _id: 1 }).toArray()).map((doc) => doc._id)).toEqual(matching);
      expect(
        (
          await c
            .find({ text: { $in: [/a.b/g] } })
            .sort({ _id: 1 })
            .toArray()
        ).map((doc) => doc._id),
      ).toEqual(matching);
      const pipeline = [{ $project: { text: 1 } }, { $match: { text: /a.b/g } }, { $sort: { _id: 1 } }];
      expect((await c.aggregate(pipeline).toArray()).map((doc) => doc._id)).toEqual(matching);
    }
  });
});

describe('errors', () => {
  test('$inc on a string fails with 14 and leaves the document unchanged', async () => {
    const c = fresh();
    await c.insertOne({ _id: 1, s: 'text' });
    const error = await serverError(c.updateOne({ _id: 1 }, { $inc: { s: 1 } }));
    expect(error.code).toBe(14);
    expect(error.message).toMatch(/Cannot apply \$inc to a value of non-numeric type/);
    expect((await serverError(c.updateOne({ _id: 1 }, { $inc: { n: 'x' } as never }))).code).toBe(14);
    expect(await c.findOne({ _id: 1 })).toEqual({ _id: 1, s: 'text' });
  });

  test('invalid updates are refused with mongod codes', async () => {
    const c = fresh();
    await c.insertOne({ _id: 1, a: 1, arr: [1] });
    expect((await serverError(c.updateOne({ _id: 1 }, { $frob: { a: 1 } } as never))).code).toBe(9);
    expect((await serverError(c.updateOne({ _id: 1 }, { $set: { a: 1 }, $inc: { a: 1 } }))).code).toBe(40);
    expect((await serverError(c.updateOne({ _id: 1 }, { $set: { 'a.b': 1 } }))).code).toBe(28);
    expect((await serverError(c.updateOne({ _id: 1 }, { $set: { _id: 2 } }))).code).toBe(66);
    expect((await serverError(c.updateOne({ _id: 1 }, { $push: { a: 1 } } as never))).code).toBe(2);
    expect((await serverError(c.updateOne({ _id: 1 }, { $set: { 'arr.$[x]': 1 } }))).code).toBe(2);
    expect((await serverError(c.updateOne({ _id: 1 }, { $set: { 'arr.$': 1 } }))).code).toBe(2);
    expect(await c.findOne({ _id: 1 })).toEqual({ _id: 1, a: 1, arr: [1] });
  });

  test('appends to a long list by a pipeline still refuse a result too deep, at any level the list moves to', async () => {
    const c = fresh();
    const list = Array.from({ length: 2500 }, (_, n) => ({ n, text: 'x'.repeat(100) }));
    await c.insertOne({ _id: 1, list });
    const append = (item: Doc) => c.updateOne({ _id: 1 }, [{ $set: { list: { $concatArrays: ['$list', [item]] } } }]);
    for (let n = 2500; n < 2505; n++) await append({ n });
    // The document is level 1, the list 2, an item 3: an item nested 178 levels reaches 180, the limit.
    expect((await serverError(append({ $literal: nested(179) }))).code).toBe(15);
    expect((await append({ $literal: nested(178) })).modifiedCount).toBe(1);
    expect((await append({ n: 2506 })).modifiedCount).toBe(1);
    // The same items one level lower are too deep: what was measured of the list holds wherever it moves.
    expect((await serverError(c.updateOne({ _id: 1 }, [{ $set: { wrap: { inner: '$list' } } }]))).code).toBe(15);
    expect((await serverError(c.updateOne({ _id: 1 }, { $set: { 'list.2500': { deeper: nested(178) } } }))).code).toBe(
      15,
    );
    const stored = await c.findOne({ _id: 1 });
    expect(stored.wrap).toBeUndefined();
    expect(stored.list.map((item: Doc) => item.n ?? 'nested')).toEqual([
      ...Array.from({ length: 2505 }, (_, n) => n),
      'nested',
      2506,
    ]);
  });

  test('appends to a document near 16 MiB by a pipeline refuse the one that crosses it; sizes stay exact', async () => {
    const c = fresh();
    const list = Array.from({ length: 2000 }, (_, n) => ({ n, text: 'x'.repeat(8000) }));
    await c.insertOne({ _id: 1, list });
    const append = (text: string) =>
      c.updateOne({ _id: 1 }, [{ $set: { list: { $concatArrays: ['$list', [{ n: -1, text }]] } } }]);
    const size = async () =>
      (await c.aggregate([{ $project: { size: { $bsonSize: '$$ROOT' } } }]).toArray())[0].size as number;
    const measured = async () => BSON.calculateObjectSize((await c.findOne({ _id: 1 }))!);
    expect(await size()).toBe(await measured());
    expect((await append('y'.repeat(100_000))).modifiedCount).toBe(1);
    expect(await size()).toBe(await measured());
    const room = 16 * 1024 * 1024 - (await size());
    expect((await serverError(append('z'.repeat(room)))).code).toBe(17419);
    expect((await append('z'.repeat(room - 100))).modifiedCount).toBe(1);
    expect(await size()).toBe(await measured());
    expect(await c.countDocuments({ 'list.2001.text': { $regex: '^z' } })).toBe(1);
    // Past the limit by a change inside an item the appends measured before.
    expect((await serverError(c.updateOne({ _id: 1 }, { $set: { 'list.0.text': 'w'.repeat(9000) } }))).code).toBe(
      17419,
    );
    expect(await size()).toBe(await measured());
  });

  test('an update that would grow a document past 16 MiB fails with 17419 and changes nothing', async () => {
    const c = fresh();
    const nine = 'x'.repeat(9 * 1024 * 1024);
    await c.insertOne({ _id: 1, a: nine });
    expect((await serverError(c.updateOne({ _id: 1 }, { $set: { b: nine } }))).code).toBe(17419);
    const doc = await c.findOne({ _id: 1 }, { projection: { a: 0 } });
    expect(doc).toEqual({ _id: 1 });
  });

  test('invalid queries fail with BadValue', async () => {
    const c = fresh();
    await c.insertOne({ a: 1 });
    const error = await serverError(c.find({ a: { $frob: 1 } }).toArray());
    expect(error.code).toBe(2);
    expect(error.message).toMatch(/unknown operator: \$frob/);
  });

  test('$text without a text index fails with 27', async () => {
    const c = fresh();
    await c.insertOne({ a: 'hello' });
    expect((await serverError(c.find({ $text: { $search: 'hello' } }).toArray())).code).toBe(27);
  });

  test('ordered and unordered insertMany report write errors by index', async () => {
    const c = fresh();
    const ordered = await c.insertMany([{ _id: 1 }, { _id: 1 }, { _id: 2 }]).then(
      () => undefined,
      (e: unknown) => e as MongoBulkWriteError,
    );
    expect(ordered).toBeInstanceOf(MongoBulkWriteError);
    expect(ordered!.result.insertedCount).toBe(1);
    expect(ordered!.writeErrors).toMatchObject([{ index: 1, code: 11000 }]);
    const unordered = await c.insertMany([{ _id: 3 }, { _id: 1 }, { _id: 4 }], { ordered: false }).then(
      () => undefined,
      (e: unknown) => e as MongoBulkWriteError,
    );
    expect(unordered!.result.insertedCount).toBe(2);
    expect(await c.countDocuments()).toBe(3);
  });
});
