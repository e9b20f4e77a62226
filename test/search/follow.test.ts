import { BSON, MongoClient, ObjectId } from 'mongodb';
import { idKey } from '../../src/search/catch-up';
import { createLogger, type Logger } from '../../src/logger';
import { EXPERIENCES_COLLECTION } from '../../src/modules/experiences/experience.document';
import { createTestApp, type TestApp } from '../support/app';
import { startFailPointEngine, type FailPointEngine } from '../support/fail-point';
import { withSeedVectors } from '../support/fixtures/experience-seed';
import { SearchExperiencesDocument, SearchSpacesDocument } from '../support/generated/graphql';
import { IN_PROCESS_INDEX } from '../support/search-path';
import { waitUntil } from '../support/subscriptions';

const GOAL_SPACE = 'experiences.primary_goal_description';

/** A tool writing MongoDB directly: the app learns of its writes only by following the collection. */
async function writeDirectly(app: TestApp, id: string, goal: string): Promise<void> {
  const { embeddings } = app.deps;
  const document = await withSeedVectors(embeddings);
  const [vector] = await embeddings.embed([goal]);
  document.embeddings.primary_goal_description_embedding = Array.from(vector);
  await app.db.collection(EXPERIENCES_COLLECTION).replaceOne(
    { experience_id: id },
    {
      ...document,
      experience_id: id,
      primary_goal_description: goal,
      embedding_model: { provider: embeddings.id, model: embeddings.model, dimensions: embeddings.dimensions },
    },
    { upsert: true },
  );
}

/**
 * The ids a hybrid search (the default) and a keyword search for `query` find. The keyword one reads the in-process
 * BM25 index in both modes: with VECTOR_SEARCH=atlas the database finds the hybrid's vectors whether or not the
 * space follows.
 */
async function foundIds(app: TestApp, query: string): Promise<{ hybrid: string[]; keyword: string[] }> {
  const search = async (mode: 'HYBRID' | 'KEYWORD', minScore?: number) =>
    (
      await app.run(SearchExperiencesDocument, { query, fields: ['PRIMARY_GOAL'], mode, limit: 5, minScore })
    ).searchExperiences.map((hit) => hit.experience.experienceId);
  const [hybrid, keyword] = await Promise.all([search('HYBRID', 0.5), search('KEYWORD')]);
  return { hybrid, keyword };
}

/** Waits until both searches for `query` find (or no longer find) `id`. */
async function until(app: TestApp, query: string, id: string, found: boolean): Promise<void> {
  let ids = await foundIds(app, query);
  const deadline = Date.now() + 5000;
  while (ids.hybrid.includes(id) !== found || ids.keyword.includes(id) !== found) {
    if (Date.now() > deadline)
      throw new Error(`${query}: ${id} ${found ? 'not found' : 'still found'} (${JSON.stringify(ids)})`);
    await new Promise((resolve) => setTimeout(resolve, 20));
    ids = await foundIds(app, query);
  }
}

async function goalSpace(app: TestApp) {
  const { serverInfo } = await app.run(SearchSpacesDocument);
  return serverInfo.search!.find((space) => space.name === GOAL_SPACE)!;
}

describe('a search space follows writes made behind the server’s back', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(() => app.close());

  it('finds a document inserted, updated and deleted by another writer', async () => {
    await writeDirectly(app, 'direct-1', 'Calibrate the telescope mirror before the meteor shower.');
    await until(app, 'calibrate the telescope mirror', 'direct-1', true);

    await writeDirectly(app, 'direct-1', 'Repaint the lighthouse stairs with marine varnish.');
    await until(app, 'repaint the lighthouse stairs', 'direct-1', true);
    await until(app, 'calibrate the telescope mirror', 'direct-1', false);

    await app.db.collection(EXPERIENCES_COLLECTION).deleteOne({ experience_id: 'direct-1' });
    await until(app, 'repaint the lighthouse stairs', 'direct-1', false);
  });

  it('serverInfo.search gives each space’s size, backend, following, position and lag', async () => {
    await writeDirectly(app, 'direct-2', 'Tune the church organ pipes after the renovation.');
    await until(app, 'tune the church organ pipes', 'direct-2', true);
    const space = await goalSpace(app);
    const backend = IN_PROCESS_INDEX ? 'IN_PROCESS' : 'ATLAS';
    expect(space).toMatchObject({ backend, following: 'CHANGE_STREAM', size: 1 });
    expect(Date.parse(space.position!)).toBeGreaterThan(Date.now() - 60_000);
    expect(space.lagSeconds).toBeGreaterThanOrEqual(0);
    expect(app.deps.search.forDb(app.db).followStatus(GOAL_SPACE).mode).toBe('changeStream');
  });

  it('applies every write of a burst, whether its _id is an ObjectId or a string', async () => {
    const collection = app.db.collection<{ _id: string | ObjectId; [field: string]: unknown }>(EXPERIENCES_COLLECTION);
    const index = app.deps.search.forDb(app.db);
    const before = index.stats(GOAL_SPACE).documents;
    const seeded = await withSeedVectors(app.deps.embeddings);
    // Odd ones with a string _id, even ones with an ObjectId: both are matched with what is read back.
    const burst = Array.from({ length: 200 }, (_, i) => ({
      ...seeded,
      _id: i % 2 ? `burst-${i}` : new ObjectId(),
      experience_id: `burst-${i}`,
      primary_goal_description: `Sort the burst parcels, batch ${i}.`,
    }));
    await collection.insertMany(burst);
    await collection.updateOne({ _id: 'burst-1' }, { $set: { primary_goal_description: 'Whittle a spoon.' } });
    await collection.updateOne({ experience_id: 'burst-2' }, { $set: { primary_goal_description: 'Carve a bowl.' } });
    await collection.deleteOne({ _id: 'burst-3' });
    await collection.deleteOne({ experience_id: 'burst-4' });
    // 200 inserted, 2 deleted; the 2 updated ones found by their new words only.
    await waitUntil(() => index.stats(GOAL_SPACE).documents === before + 198, 5000);
    const keyword = async (query: string) =>
      (
        await app.run(SearchExperiencesDocument, { query, fields: ['PRIMARY_GOAL'], mode: 'KEYWORD', limit: 10 })
      ).searchExperiences
        .map((hit) => hit.experience.experienceId)
        .sort();
    for (const deadline = Date.now() + 5000; (await keyword('whittle carve')).length < 2 && Date.now() < deadline;)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await keyword('whittle carve')).toEqual(['burst-1', 'burst-2']);
    expect(await keyword('parcels batch 1')).not.toContain('burst-1');
    // The count passes 198 at the 198th insert, before the deletes: caught up means no event left to apply.
    for (const deadline = Date.now() + 5000; (await goalSpace(app)).lagSeconds > 0 && Date.now() < deadline;)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await goalSpace(app)).lagSeconds).toBe(0);
    expect(index.stats(GOAL_SPACE).documents).toBe(before + 198);
  });

  it('follows on after the collection is dropped (its stream invalidated), and keeps the event loop free', async () => {
    await writeDirectly(app, 'direct-3', 'Restring the harp in the concert hall.');
    await until(app, 'restring the harp', 'direct-3', true);
    await app.db.collection(EXPERIENCES_COLLECTION).drop();
    // A follower reading on from its closed stream would spin without a round trip: no timer would fire again.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await until(app, 'restring the harp', 'direct-3', false);
    await writeDirectly(app, 'direct-4', 'Glaze the pottery for the village market.');
    await until(app, 'glaze the pottery', 'direct-4', true);
  });
});

describe('following when the stream cannot serve it', () => {
  let engine: FailPointEngine;
  let admin: MongoClient;
  beforeAll(async () => {
    engine = await startFailPointEngine();
    admin = await new MongoClient(engine.uri).connect();
  });
  afterAll(async () => {
    await admin.close();
    await engine.close();
  });

  it('compares the whole collection when the stream’s position is lost (ChangeStreamHistoryLost)', async () => {
    const warnings: string[] = [];
    const app = await createTestApp({
      databaseUri: engine.uri,
      logger: silentLoggerWith(warnings),
    });
    try {
      // Following has begun: its stream is open and the gap before it caught up.
      await waitUntil(() => app.deps.search.forDb(app.db).followStatus(GOAL_SPACE).position !== null);
      // Every wait for events fails from now on: no event reaches the space, only the comparisons after each loss.
      await admin.db('admin').command({
        configureFailPoint: 'failCommand',
        mode: 'alwaysOn',
        data: { failCommands: ['getMore'], errorCode: 286 },
      });
      await writeDirectly(app, 'lost-1', 'Catalogue the seed bank by germination rate.');
      await until(app, 'catalogue the seed bank', 'lost-1', true);
      expect(warnings).toContain('change stream cannot resume from its position; reopening from now');
    } finally {
      await admin.db('admin').command({ configureFailPoint: 'failCommand', mode: 'off' });
      await app.close();
    }
  });

  it('polls every SEARCH_POLL_MS where the database has no change streams, and says so', async () => {
    const warnings: string[] = [];
    // The first aggregate is the check for change streams, answered as a standalone mongod answers it.
    await engine.failNext(['aggregate'], 1, 40573);
    const app = await createTestApp({
      databaseUri: engine.uri,
      config: { searchPollMs: 50 },
      logger: silentLoggerWith(warnings),
    });
    try {
      expect(await goalSpace(app)).toMatchObject({ following: 'POLLING' });
      expect(warnings).toContain(
        'search: the database has no change streams; spaces compare their collection with it periodically',
      );
      await writeDirectly(app, 'polled-1', 'Index the herbarium sheets by collector.');
      await until(app, 'index the herbarium sheets', 'polled-1', true);
      await app.db.collection(EXPERIENCES_COLLECTION).deleteOne({ experience_id: 'polled-1' });
      await until(app, 'index the herbarium sheets', 'polled-1', false);
    } finally {
      await app.close();
    }
  });
});

(IN_PROCESS_INDEX ? describe.skip : describe)('with VECTOR_SEARCH=atlas', () => {
  it('the keyword index alone follows: no vector is held in process', async () => {
    const app = await createTestApp();
    try {
      await writeDirectly(app, 'atlas-1', 'Thatch the barn roof with reed bundles.');
      await until(app, 'thatch the barn roof', 'atlas-1', true);
      expect(app.deps.search.forDb(app.db).stats(GOAL_SPACE)).toMatchObject({ vectors: 0, documents: 1 });
      expect(await goalSpace(app)).toMatchObject({ backend: 'ATLAS', following: 'CHANGE_STREAM', size: 1 });
    } finally {
      await app.close();
    }
  });
});

describe('idKey: how followed writes are matched with the documents read back', () => {
  it('is equal for equal _ids, as the stream and the raw reader decode them, and distinct for distinct ones', () => {
    const id = new ObjectId();
    // Another copy of the bson package's ObjectId (as a second driver copy would give).
    const foreign = { _bsontype: 'ObjectId', toHexString: () => id.toHexString() };
    expect(idKey(foreign)).toBe(idKey(new ObjectId(id.toHexString())));
    const ids = [
      id,
      new ObjectId(),
      id.toHexString(),
      `o${id.toHexString()}`,
      's1',
      '1',
      1,
      { a: 1 },
      { a: '1' },
      null,
    ];
    expect(new Set(ids.map(idKey)).size).toBe(ids.length);
    expect(ids.map(idKey)).toEqual(ids.map((value) => idKey(BSON.deserialize(BSON.serialize({ value })).value)));
  });
});

/** A logger that records the messages of warnings. */
function silentLoggerWith(warnings: string[]): Logger {
  return createLogger('warn', (line) => {
    const { level, message } = JSON.parse(line) as { level: string; message: string };
    if (level === 'warn') warnings.push(message);
  });
}
