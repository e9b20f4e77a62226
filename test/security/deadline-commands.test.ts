import { boundToRequest, RequestLifetime } from '../../src/db/request-bound';
import { openTestDatabase, type TestDatabase } from '../support/db';

const TIMEOUT_MS = 5000;

describe('reads through a request-bound handle send maxTimeMS no later than the deadline', () => {
  let database: TestDatabase;
  let lifetime: RequestLifetime;

  beforeAll(async () => {
    database = await openTestDatabase();
    await database.db.collection('items').insertMany([{ a: 1 }, { a: 2 }]);
  });
  afterAll(() => database.close());
  beforeEach(() => {
    lifetime = new RequestLifetime(TIMEOUT_MS);
    database.commands.reset();
  });
  afterEach(() => lifetime.release());

  const reads: Array<[string, string, (db: ReturnType<typeof boundToRequest>) => Promise<unknown>]> = [
    ['find', 'find', (db) => db.collection('items').find({ a: 1 }).toArray()],
    ['findOne', 'find', (db) => db.collection('items').findOne({ a: 1 })],
    [
      'aggregate',
      'aggregate',
      (db) =>
        db
          .collection('items')
          .aggregate([{ $match: { a: 1 } }])
          .toArray(),
    ],
    ['countDocuments', 'aggregate', (db) => db.collection('items').countDocuments({ a: 1 })],
    ['distinct', 'distinct', (db) => db.collection('items').distinct('a')],
    ['estimatedDocumentCount', 'count', (db) => db.collection('items').estimatedDocumentCount()],
  ];

  it.each(reads)('%s sends maxTimeMS within what is left of the deadline', async (_name, command, read) => {
    const before = Date.now();
    await read(boundToRequest(database.db, lifetime));
    const sent = database.commands.events.filter((event) => event.commandName === command);
    expect(sent).toHaveLength(1);
    const maxTimeMS = sent[0].command.maxTimeMS as number;
    expect(maxTimeMS).toBeGreaterThan(0);
    expect(maxTimeMS).toBeLessThanOrEqual(lifetime.deadline - before);
  });

  it('keeps a caller’s shorter maxTimeMS and caps a longer one at the deadline', async () => {
    const db = boundToRequest(database.db, lifetime);
    await db.collection('items').find({}, { maxTimeMS: 100 }).toArray();
    await db
      .collection('items')
      .find({}, { maxTimeMS: 10 * TIMEOUT_MS })
      .toArray();
    const sent = database.commands.events.map((event) => event.command.maxTimeMS as number);
    expect(sent[0]).toBe(100);
    expect(sent[1]).toBeLessThanOrEqual(TIMEOUT_MS);
  });

  it('sends nothing once the request has ended', async () => {
    lifetime.cancel();
    await expect(boundToRequest(database.db, lifetime).collection('items').findOne({})).rejects.toMatchObject({
      extensions: { code: 'REQUEST_CANCELLED' },
    });
    expect(database.commands.count()).toBe(0);
  });
});
