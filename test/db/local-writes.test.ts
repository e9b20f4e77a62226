import { MongoClient, type Db } from 'mongodb';
import { ChangeFollower, type ChangeFeed } from '../../src/db/change-follower';
import { reportingWrites } from '../../src/db/local-writes';
import { silentLogger } from '../../src/logger';
import { startFailPointEngine, type FailPointEngine } from '../support/fail-point';

/** Reads `feed` in the background; `drain()` takes what arrived (events are dispatched as the write returns). */
function collect(feed: ChangeFeed): { drain(): Promise<string[]> } {
  const events: string[] = [];
  void (async () => {
    for await (const event of feed) events.push(`${event.operationType} ${String(event.id)}`);
  })();
  return {
    async drain() {
      await new Promise((resolve) => setTimeout(resolve, 50));
      return events.splice(0);
    },
  };
}

describe('reportingWrites: every write reaches the follower when there are no change streams', () => {
  let engine: FailPointEngine;
  let client: MongoClient;
  let follower: ChangeFollower;
  let db: Db;
  let events: { drain(): Promise<string[]> };

  beforeAll(async () => {
    engine = await startFailPointEngine();
    client = new MongoClient(engine.uri);
    const raw = client.db('local_writes');
    follower = new ChangeFollower(raw, silentLogger);
    await engine.failNext(['aggregate'], 1, 40573);
    expect(await follower.source()).toBe('LOCAL_WRITES');
    db = reportingWrites(raw, follower);
    events = collect(await follower.follow(db, 'things'));
  });
  afterAll(async () => {
    await follower.close();
    await client.close();
    await engine.close();
  });

  it('reports each write method with the ids it wrote', async () => {
    const things = db.collection<{ _id: string; n: number }>('things');
    await things.insertOne({ _id: 'a', n: 1 });
    await things.insertMany([
      { _id: 'b', n: 2 },
      { _id: 'c', n: 2 },
    ]);
    await things.updateOne({ n: 1 }, { $set: { x: 1 } });
    await things.updateMany({ n: 2 }, { $set: { x: 2 } });
    await things.updateOne({ _id: 'd' }, { $set: { n: 3 } }, { upsert: true });
    await things.replaceOne({ _id: 'd' }, { n: 4 });
    await things.findOneAndUpdate({ _id: 'a' }, { $inc: { n: 1 } });
    await things.findOneAndUpdate({ _id: 'e' }, { $set: { n: 5 } }, { upsert: true });
    await things.updateOne({ _id: 'none' }, { $set: { n: 0 } });
    expect(await events.drain()).toEqual([
      'insert a',
      'insert b',
      'insert c',
      'update a',
      'update b',
      'update c',
      'insert d',
      'update d',
      'update a',
      'insert e',
    ]);

    await things.findOneAndDelete({ _id: 'e' });
    await things.deleteOne({ n: 4 });
    // a's n is 2 since its $inc.
    await things.deleteMany({ n: 2 });
    await things.deleteOne({ _id: 'none' });
    expect(await events.drain()).toEqual(['delete e', 'delete d', 'delete a', 'delete b', 'delete c']);
  });

  it('reports nothing for a collection nobody follows, nor for writes not made through the handle', async () => {
    await db.collection('unfollowed').insertOne({ _id: 'x' } as never);
    await client
      .db('local_writes')
      .collection('things')
      .insertOne({ _id: 'raw' } as never);
    expect(await events.drain()).toEqual([]);
  });
});
