/** Unique indexes through the driver: mongod's 11000 errors, with nothing half-applied. Runs on mongod too. */
import { MongoBulkWriteError, MongoServerError, ObjectId, type Collection } from 'mongodb';
import { openTestDatabase, type TestDatabase } from './support/db';

let t: TestDatabase;
let seq = 0;
/** A fresh collection per test; documents of any shape (the suite is about the server, not the typings). */
const fresh = (): Collection<any> => t.db.collection<any>(`dup${++seq}`);

async function rejection<T extends Error>(promise: Promise<unknown>, type: new (...args: any[]) => T): Promise<T> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(type);
  return error as T;
}

beforeAll(async () => {
  t = await openTestDatabase();
});
afterAll(async () => {
  await t.close();
});

test('a duplicate _id fails with 11000, keyPattern/keyValue and mongod errmsg', async () => {
  const c = fresh();
  const id = new ObjectId();
  await c.insertOne({ _id: id, v: 1 });
  const error = await rejection(c.insertOne({ _id: id, v: 2 }), MongoServerError);
  expect(error.code).toBe(11000);
  expect(error.keyPattern).toEqual({ _id: 1 });
  expect(error.keyValue).toEqual({ _id: id });
  expect(error.message).toBe(
    `E11000 duplicate key error collection: ${t.db.databaseName}.${c.collectionName} index: _id_ dup key: { _id: ObjectId('${id.toHexString()}') }`,
  );
  expect(await c.findOne({ _id: id })).toEqual({ _id: id, v: 1 });
});

test('a unique single-field index rejects a duplicate insert with the index name and value', async () => {
  const c = fresh();
  await c.createIndex({ email: 1 }, { unique: true });
  await c.insertOne({ email: 'a@example.com', n: 1 });
  const error = await rejection(c.insertOne({ email: 'a@example.com', n: 2 }), MongoServerError);
  expect(error.code).toBe(11000);
  expect(error.keyPattern).toEqual({ email: 1 });
  expect(error.keyValue).toEqual({ email: 'a@example.com' });
  expect(error.message).toMatch(/index: email_1 dup key: \{ email: "a@example.com" \}$/);
  expect(await c.countDocuments()).toBe(1);
});

test('a unique compound index allows partial overlap and rejects the full key', async () => {
  const c = fresh();
  await c.createIndex({ agent: 1, seq: 1 }, { unique: true, name: 'agent_seq' });
  await c.insertMany([
    { agent: 'a', seq: 1 },
    { agent: 'a', seq: 2 },
    { agent: 'b', seq: 1 },
  ]);
  const error = await rejection(c.insertOne({ agent: 'b', seq: 1, extra: true }), MongoServerError);
  expect(error.code).toBe(11000);
  expect(error.keyPattern).toEqual({ agent: 1, seq: 1 });
  expect(error.keyValue).toEqual({ agent: 'b', seq: 1 });
  expect(error.message).toMatch(/index: agent_seq dup key: \{ agent: "b", seq: 1 \}$/);
  expect(await c.countDocuments()).toBe(3);
});

test('numerically equal keys collide across int and double', async () => {
  const c = fresh();
  await c.createIndex({ n: 1 }, { unique: true });
  await c.insertOne({ n: 1 });
  expect((await rejection(c.insertOne({ n: 1.0 }), MongoServerError)).code).toBe(11000);
});

test('documents missing the field share the null key unless the index is sparse', async () => {
  const plain = fresh();
  await plain.createIndex({ code: 1 }, { unique: true });
  await plain.insertOne({ other: 1 });
  const error = await rejection(plain.insertOne({ other: 2 }), MongoServerError);
  expect(error.keyValue).toEqual({ code: null });
  const sparse = fresh();
  await sparse.createIndex({ code: 1 }, { unique: true, sparse: true });
  await sparse.insertMany([{ other: 1 }, { other: 2 }]);
  expect(await sparse.countDocuments()).toBe(2);
});

test('a partial unique index only constrains matching documents', async () => {
  const c = fresh();
  await c.createIndex({ name: 1 }, { unique: true, partialFilterExpression: { active: true } });
  await c.insertMany([
    { name: 'x', active: false },
    { name: 'x', active: false },
    { name: 'x', active: true },
  ]);
  expect((await rejection(c.insertOne({ name: 'x', active: true }), MongoServerError)).code).toBe(11000);
});

test('array values are indexed per element (multikey uniqueness)', async () => {
  const c = fresh();
  await c.createIndex({ tags: 1 }, { unique: true });
  await c.insertOne({ tags: ['a', 'b'] });
  const error = await rejection(c.insertOne({ tags: ['c', 'b'] }), MongoServerError);
  expect(error.keyValue).toEqual({ tags: 'b' });
  await c.insertOne({ tags: ['c', 'c'] }); // repeats inside one document are not duplicates
});

test('an update that would duplicate a key fails and leaves the document unchanged', async () => {
  const c = fresh();
  await c.createIndex({ email: 1 }, { unique: true });
  await c.insertMany([
    { _id: 1, email: 'a', n: 1 },
    { _id: 2, email: 'b', n: 1 },
  ]);
  const error = await rejection(c.updateOne({ _id: 2 }, { $set: { email: 'a', n: 99 } }), MongoServerError);
  expect(error.code).toBe(11000);
  expect(error.keyValue).toEqual({ email: 'a' });
  expect(await c.findOne({ _id: 2 })).toEqual({ _id: 2, email: 'b', n: 1 });
  const replaced = await rejection(c.replaceOne({ _id: 2 }, { email: 'a' }), MongoServerError);
  expect(replaced.code).toBe(11000);
  const modified = await rejection(c.findOneAndUpdate({ _id: 2 }, { $set: { email: 'a' } }), MongoServerError);
  expect(modified.code).toBe(11000);
  expect(modified.keyValue).toEqual({ email: 'a' });
  expect(await c.findOne({ _id: 2 })).toEqual({ _id: 2, email: 'b', n: 1 });
  await c.updateOne({ _id: 2 }, { $set: { email: 'c' } }); // the old key is released, the new one taken
  await c.insertOne({ email: 'b' });
  expect((await rejection(c.insertOne({ email: 'c' }), MongoServerError)).code).toBe(11000);
});

test('an updateMany stops at the first violation; earlier documents stay updated', async () => {
  const c = fresh();
  await c.createIndex({ k: 1 }, { unique: true });
  await c.insertMany([
    { _id: 1, k: 1, g: 1 },
    { _id: 2, k: 2, g: 1 },
  ]);
  const error = await rejection(c.updateMany({ g: 1 }, { $set: { k: 5 } }), MongoServerError);
  expect(error.code).toBe(11000);
  expect(await c.find({}).sort({ _id: 1 }).toArray()).toEqual([
    { _id: 1, k: 5, g: 1 },
    { _id: 2, k: 2, g: 1 },
  ]);
});

test('an upsert that would duplicate a key inserts nothing', async () => {
  const c = fresh();
  await c.createIndex({ email: 1 }, { unique: true });
  await c.insertOne({ email: 'a', name: 'first' });
  const error = await rejection(
    c.updateOne({ name: 'second' }, { $set: { email: 'a' } }, { upsert: true }),
    MongoServerError,
  );
  expect(error.code).toBe(11000);
  expect(error.keyValue).toEqual({ email: 'a' });
  expect(await c.countDocuments()).toBe(1);
  expect(await c.findOne({})).toMatchObject({ email: 'a', name: 'first' });
});

test('ordered insertMany stops at the first duplicate; unordered inserts the rest', async () => {
  const c = fresh();
  await c.createIndex({ k: 1 }, { unique: true });
  await c.insertOne({ k: 0 });
  const ordered = await rejection(c.insertMany([{ k: 1 }, { k: 0 }, { k: 2 }]), MongoBulkWriteError);
  expect(ordered.code).toBe(11000);
  expect(ordered.result.insertedCount).toBe(1);
  expect(ordered.writeErrors).toHaveLength(1);
  expect(ordered.writeErrors).toMatchObject([{ index: 1, code: 11000 }]);
  expect(await c.countDocuments()).toBe(2);

  const unordered = await rejection(
    c.insertMany([{ k: 3 }, { k: 0 }, { k: 4 }, { k: 1 }, { k: 5 }], { ordered: false }),
    MongoBulkWriteError,
  );
  expect(unordered.result.insertedCount).toBe(3);
  const errors = Array.isArray(unordered.writeErrors) ? unordered.writeErrors : [unordered.writeErrors];
  expect(errors.map((e) => [e.index, e.code])).toEqual([
    [1, 11000],
    [3, 11000],
  ]);
  expect(
    (
      await c
        .find({}, { projection: { _id: 0, k: 1 } })
        .sort({ k: 1 })
        .toArray()
    ).map((d) => d.k),
  ).toEqual([0, 1, 3, 4, 5]);
});

test('building a unique index over duplicates fails with 11000 and creates no index', async () => {
  const c = fresh();
  await c.insertMany([{ k: 1 }, { k: 1 }]);
  const error = await rejection(c.createIndex({ k: 1 }, { unique: true }), MongoServerError);
  expect(error.code).toBe(11000);
  expect((await c.listIndexes().toArray()).map((index) => index.name)).toEqual(['_id_']);
});
