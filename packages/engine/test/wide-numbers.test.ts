/** Expressions over int64 and decimal values that another driver stored: results as mongod 7 gives them. */
import { Decimal128, Long } from 'mongodb';
import { openTestDatabase, type TestDatabase } from './support/db';

let t: TestDatabase;
beforeAll(async () => {
  t = await openTestDatabase();
});
afterAll(() => t.close());

const RAW = { promoteLongs: false, promoteValues: false } as const;

describe('int64 and decimal in expressions', () => {
  test('an update pipeline adds to an int64 id the way an append allocates the next message id', async () => {
    const c = t.db.collection<any>('append');
    await c.insertOne({ _id: 1, messages: [{ message_id: Long.fromNumber(0) }, { message_id: Long.fromNumber(1) }] });
    await c.updateOne({ _id: 1 }, [
      {
        $set: {
          messages: {
            $concatArrays: ['$messages', [{ message_id: { $add: [{ $max: '$messages.message_id' }, 1] } }]],
          },
        },
      },
    ]);
    const doc = await c.findOne({ _id: 1 }, RAW);
    expect(doc!.messages.map((m: any) => m.message_id)).toEqual([0, 1, 2].map((n) => Long.fromNumber(n)));
  });

  test('arithmetic keeps int64 exact beyond 2^53 and makes decimal win', async () => {
    const c = t.db.collection<any>('arith');
    await c.insertOne({ _id: 1, big: Long.fromString('9007199254740993'), n: Long.fromNumber(5), d: 2 });
    await c.updateOne({ _id: 1 }, [
      {
        $set: {
          add: { $add: ['$big', 1] },
          sub: { $subtract: ['$n', 1] },
          mul: { $multiply: ['$n', 2] },
          frac: { $add: ['$n', 0.5] },
          dec: { $add: [Decimal128.fromString('1.5'), '$n'] },
        },
      },
    ]);
    const doc = await c.findOne({ _id: 1 }, RAW);
    expect(doc).toMatchObject({
      add: Long.fromString('9007199254740994'),
      sub: Long.fromNumber(4),
      mul: Long.fromNumber(10),
      dec: Decimal128.fromString('6.5'),
    });
    expect(doc!.frac.valueOf()).toBe(5.5);
  });

  test('comparisons, $max, $min and $sum order int64 by value', async () => {
    const c = t.db.collection<any>('cmp');
    await c.insertOne({ _id: 1, n: Long.fromNumber(5), list: [Long.fromNumber(3), 7, Long.fromNumber(2)] });
    await c.updateOne({ _id: 1 }, [
      {
        $set: {
          gt: { $gt: ['$n', 4] },
          lt: { $lt: ['$n', 4] },
          eq: { $eq: ['$n', 5] },
          max: { $max: ['$n', 9] },
          maxList: { $max: '$list' },
          minList: { $min: '$list' },
          sum: { $sum: ['$n', 2] },
          sumList: { $sum: '$list' },
        },
      },
    ]);
    const doc = await c.findOne({ _id: 1 }, RAW);
    expect(doc).toMatchObject({ gt: true, lt: false, eq: true, minList: Long.fromNumber(2) });
    expect([doc!.max, doc!.maxList].map(Number)).toEqual([9, 7]);
    expect(doc!.sum).toEqual(Long.fromNumber(7));
    expect(doc!.sumList).toEqual(Long.fromNumber(12));
  });

  test('$group accumulators still sum plain and int64 values', async () => {
    const c = t.db.collection<any>('group');
    await c.insertMany([
      { _id: 1, k: 'a', v: Long.fromNumber(2) },
      { _id: 2, k: 'a', v: 3 },
    ]);
    const [row] = await c.aggregate([{ $group: { _id: '$k', total: { $sum: '$v' }, top: { $max: '$v' } } }]).toArray();
    expect(row).toEqual({ _id: 'a', total: 5, top: 3 });
  });

  test('$divide, $mod, $abs, $ceil, $floor and $trunc keep int64 exact and decimals exact', async () => {
    const c = t.db.collection<any>('divide');
    await c.insertOne({
      _id: 1,
      n: Long.fromNumber(5),
      big: Long.fromString('9007199254740993'),
      neg: Long.fromString('-9007199254740993'),
      d: Decimal128.fromString('7.5'),
      dneg: Decimal128.fromString('-1.1'),
      max: Long.MAX_VALUE,
    });
    await c.updateOne({ _id: 1 }, [
      {
        $set: {
          div: { $divide: ['$n', 2] },
          divDec: { $divide: ['$d', 2] },
          divThird: { $divide: [Decimal128.fromString('1'), 3] },
          mod: { $mod: ['$n', 3] },
          modBig: { $mod: ['$big', 10] },
          modDec: { $mod: ['$d', 2] },
          abs: { $abs: '$neg' },
          absDec: { $abs: '$dneg' },
          ceilDec: { $ceil: '$dneg' },
          floorDec: { $floor: '$dneg' },
          truncDec: { $trunc: '$d' },
          floorBig: { $floor: '$big' },
          exactDec: { $add: [Decimal128.fromString('2.2'), Decimal128.fromString('1.1')] },
          overflow: { $add: ['$max', 1] },
        },
      },
    ]);
    const doc = await c.findOne({ _id: 1 }, RAW);
    expect(doc).toMatchObject({
      divDec: Decimal128.fromString('3.75'),
      divThird: Decimal128.fromString('0.3333333333333333333333333333333333'),
      mod: Long.fromNumber(2),
      modBig: Long.fromNumber(3),
      modDec: Decimal128.fromString('1.5'),
      abs: Long.fromString('9007199254740993'),
      absDec: Decimal128.fromString('1.1'),
      ceilDec: Decimal128.fromString('-1'),
      floorDec: Decimal128.fromString('-2'),
      truncDec: Decimal128.fromString('7'),
      floorBig: Long.fromString('9007199254740993'),
      exactDec: Decimal128.fromString('3.3'),
    });
    // A quotient is a double, and an int64 overflow in an expression becomes one, as in mongod.
    expect(doc!.div.valueOf()).toBe(2.5);
    expect(doc!.overflow.valueOf()).toBe(2 ** 63);
    await expect(c.updateOne({ _id: 1 }, [{ $set: { zero: { $divide: ['$n', Long.ZERO] } } }])).rejects.toThrow(
      /divide by zero/,
    );
    await expect(c.updateOne({ _id: 1 }, [{ $set: { minAbs: { $abs: Long.MIN_VALUE } } }])).rejects.toThrow(
      /\$abs of long long min/,
    );
  });

  test('$inc and $mul keep int64 exact, add decimals exactly, and refuse an int64 overflow', async () => {
    const c = t.db.collection<any>('inc');
    await c.insertOne({ _id: 1, n: Long.fromString('9007199254740993'), i: 3, d: Decimal128.fromString('2.2') });
    await c.updateOne({ _id: 1 }, { $inc: { n: 1, i: Long.fromNumber(1), d: Decimal128.fromString('1.1') } });
    await c.updateOne({ _id: 1 }, { $mul: { i: 2 }, $max: { m: Long.fromNumber(1) } });
    expect(await c.findOne({ _id: 1 }, { ...RAW, projection: { _id: 0 } })).toEqual({
      n: Long.fromString('9007199254740994'),
      i: Long.fromNumber(8),
      d: Decimal128.fromString('3.3'),
      m: Long.fromNumber(1),
    });
    await c.updateOne({ _id: 1 }, { $set: { max: Long.MAX_VALUE } });
    const before = await c.findOne({ _id: 1 }, RAW);
    await expect(c.updateOne({ _id: 1 }, { $inc: { max: 1 } })).rejects.toThrow(/Failed to apply \$inc/);
    await expect(c.updateOne({ _id: 1 }, { $mul: { max: 2 } })).rejects.toThrow(/Failed to apply \$mul/);
    expect(await c.findOne({ _id: 1 }, RAW)).toEqual(before);
  });
});
