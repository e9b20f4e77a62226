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
});
