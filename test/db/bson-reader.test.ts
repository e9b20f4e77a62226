import { BSON, Binary, DBRef, Decimal128, Long, ObjectId, Timestamp, type Document } from 'mongodb';
import { aggregateDocuments, decodeDocument, findDocuments } from '../../src/db/bson-reader';
import { openTestDatabase, type TestDatabase } from '../support/db';
import { seedExperience } from '../support/fixtures/experience-seed';
import { sessionAlice } from '../support/fixtures/session-alice';

/** What the driver hands over for these bytes with its default options (what `decodeDocument` must match). */
const driverDecode = (bytes: Buffer) =>
  BSON.deserialize(bytes, {
    promoteLongs: true,
    promoteValues: true,
    promoteBuffers: false,
    bsonRegExp: false,
    validation: { utf8: true },
  });

function expectSameAsDriver(document: Document): void {
  const bytes = Buffer.from(BSON.serialize(document));
  const decoded = decodeDocument(bytes);
  expect(decoded).toStrictEqual(driverDecode(bytes));
  // Twice: the second decode reads the field names from the cache.
  expect(decodeDocument(bytes)).toStrictEqual(decoded);
}

describe('decodeDocument', () => {
  test('decodes the seed documents as the driver does', () => {
    expectSameAsDriver(sessionAlice);
    expectSameAsDriver(seedExperience);
  });

  test('decodes every type it reads itself as the driver does', () => {
    expectSameAsDriver({
      text: 'plain',
      empty: '',
      short: 'ab',
      unicode: 'naïve café – 日本語 🙂',
      double: 1.5,
      negativeZero: -0,
      infinity: -Infinity,
      notANumber: NaN,
      int: -7,
      longs: [Long.fromNumber(2 ** 40), Long.fromNumber(-(2 ** 52)), Long.fromNumber(2 ** 53 - 1)],
      dates: [new Date('2024-01-15T09:00:00.123Z'), new Date('1901-05-03T00:00:00Z'), new Date(-1)],
      flags: [true, false],
      nothing: null,
      id: new ObjectId('65a4f0c2e4b0a1b2c3d4e5f6'),
      nested: { deeper: { list: [[1, 2], [], [{ a: 'b' }]] }, 'naïve key': 1, 'a.b': 2 },
    });
  });

  test('hands the types it does not read itself to the full decoder', () => {
    expectSameAsDriver({
      binary: new Binary(Buffer.from([1, 2, 3])),
      decimal: Decimal128.fromString('1.10'),
      timestamp: new Timestamp({ t: 1, i: 2 }),
      regex: /a+b/i,
      longOutOfRange: Long.fromString('9007199254740993'),
      longAtTheBound: Long.fromNumber(2 ** 53),
      undefinedValue: undefined,
    });
    expectSameAsDriver({ ref: new DBRef('sessions', new ObjectId('65a4f0c2e4b0a1b2c3d4e5f7')) });
    expectSameAsDriver({ $literal: 1 });
    const proto = Buffer.from(BSON.serialize(JSON.parse('{"__proto__": {"polluted": true}, "x": 1}')));
    const decoded = decodeDocument<Document>(proto);
    expect(decoded).toStrictEqual(driverDecode(proto));
    expect(Object.getPrototypeOf(decoded)).toBe(Object.prototype);
  });

  test('many distinct names of one length decode right, past the bound of the names cache', () => {
    const names = Array.from({ length: 6000 }, (_, i) => `f${String(i).padStart(5, '0')}`);
    const document = Object.fromEntries(names.map((name, i) => [name, i]));
    expectSameAsDriver(document);
  });

  test('rejects invalid UTF-8 and truncated documents as the driver does', () => {
    const bytes = Buffer.from(BSON.serialize({ text: 'abcd' }));
    bytes[bytes.indexOf('abcd') + 1] = 0xff;
    expect(() => driverDecode(bytes)).toThrow(BSON.BSONError);
    expect(() => decodeDocument(bytes)).toThrow(BSON.BSONError);

    const whole = Buffer.from(BSON.serialize({ text: 'abcdef', n: 1 }));
    const truncated = whole.subarray(0, whole.length - 3);
    expect(() => decodeDocument(truncated)).toThrow(BSON.BSONError);
  });
});

describe('findDocuments and aggregateDocuments', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await openTestDatabase();
  });
  afterAll(async () => {
    await t.close();
  });

  test("read every document, past the first batch, as the driver's cursors do", async () => {
    const collection = t.db.collection<{ _id: number; n: number; text: string; at: Date }>('reader');
    // 250 documents of ~1 KB: past the first batch's 101 documents, so the rest comes by getMore.
    await collection.insertMany(
      Array.from({ length: 250 }, (_, n) => ({ _id: n, n, text: 'x'.repeat(1000), at: new Date(n) })),
    );
    const viaCursor = await collection
      .find({ n: { $gte: 10 } }, { projection: { text: 0 } })
      .sort({ n: -1 })
      .toArray();
    t.commands.reset();
    const found = await findDocuments<Document>(
      t.db,
      'reader',
      { n: { $gte: 10 } },
      { projection: { text: 0 }, sort: { n: -1 } },
    );
    expect(found).toStrictEqual(viaCursor);
    expect(found).toHaveLength(240);
    expect(t.commands.events.map((event) => event.commandName)).toEqual(['find', 'getMore']);
    expect(await findDocuments(t.db, 'reader', {}, { sort: { n: 1 }, limit: 3 })).toStrictEqual(
      await collection.find({}).sort({ n: 1 }).limit(3).toArray(),
    );
    const pipeline = [{ $match: { n: { $lt: 200 } } }, { $project: { n: 1, at: 1 } }];
    expect(await aggregateDocuments(t.db, 'reader', pipeline)).toStrictEqual(
      await collection.aggregate(pipeline).toArray(),
    );
  });

  test("a server error rejects as the driver's cursor would", async () => {
    await expect(aggregateDocuments(t.db, 'reader', [{ $nope: 1 }])).rejects.toMatchObject({
      code: expect.any(Number),
    });
  });
});
