import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Document } from 'mongodb';
import { createAppDeps, prepareDatabase } from '../../src/app';
import { createContext } from '../../src/context';
import { toStoredVector } from '../../src/embeddings/vectors';
import { createLogger, silentLogger, type Logger } from '../../src/logger';
import { EXPERIENCE_FIELDS, embeddingKey } from '../../src/modules/experiences/experience.type';
import { buildAppSchema } from '../../src/schema';
import { readManifest, snapshotDir, writeManifest } from '../../src/search/persistence';
import { SearchIndexes, type SearchIndex } from '../../src/search/search-index';
import type { SpaceDefinition } from '../../src/search/space';
import { createServer } from '../../src/http/server';
import { createTestApp } from '../support/app';
import { openTestDatabase, type TestDatabase } from '../support/db';
import { describeInProcessIndex } from '../support/search-path';
import { testTarget } from '../support/target';
import { embeddingLikeVectors } from '../support/vectors';

const DIMENSIONS = 16;
const COUNT = 1000;
const SPACE: SpaceDefinition = {
  name: 'items.text',
  collection: 'items',
  idField: 'item_id',
  vectorPath: 'embeddings.text',
  textPaths: ['text'],
};
const OTHER: SpaceDefinition = { ...SPACE, name: 'items.title', vectorPath: 'embeddings.title', textPaths: ['title'] };
/** The embedded engine has change streams; the mongod of `npm run test:mongod` is a standalone, which has none. */
const CHANGE_STREAMS = testTarget() === 'embedded';
const CAUGHT_UP_BY = CHANGE_STREAMS ? 'change stream' : 'comparing the collection';

/** What a restart logged for each restored space: [space, how it caught up, updated, removed]. */
function restoredLines(lines: Array<Record<string, unknown>>): unknown[][] {
  return lines
    .filter((line) => line.message === 'search space restored')
    .map((line) => [line.space, line.caughtUpBy, line.updated, line.removed]);
}

/** Makes the snapshots under `dataDir` look saved where there are no change streams: no position in their manifests. */
function forgetPositions(dataDir: string, db: string): void {
  for (const space of [SPACE, OTHER]) {
    const dir = snapshotDir(dataDir, db, space.name);
    const manifest = readManifest(dir);
    expect(manifest.position ?? null).toEqual(CHANGE_STREAMS ? expect.any(String) : null);
    writeManifest(dir, { ...manifest, position: null });
  }
}

/** What a logger wrote, as parsed lines. */
function capturingLogger(): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  return { logger: createLogger('info', (line) => lines.push(JSON.parse(line))), lines };
}

describeInProcessIndex('search index snapshots under DATA_DIR', () => {
  let database: TestDatabase;
  let dataDir: string;
  const next = embeddingLikeVectors({ dimensions: DIMENSIONS, seed: 21, latent: 8 });
  const queries = Array.from({ length: 8 }, next);
  const words = ['alpha', 'beta', 'gamma', 'delta', 'omega', 'sigma', 'kappa', 'theta', 'zeta', 'lambda'];
  const textOf = (i: number) => `${words[i % 10]} ${words[(i * 7) % 10]} item${i}`;

  /** The app's search subsystem as a fresh process would have it (the same DATA_DIR, unless `persistDir` says otherwise). */
  function searchIndexes(options: { logger?: Logger; persistDir?: string | null; model?: string } = {}): SearchIndexes {
    const search = new SearchIndexes({
      mode: 'memory',
      dimensions: DIMENSIONS,
      logger: options.logger ?? silentLogger,
      persistDir: options.persistDir === null ? undefined : (options.persistDir ?? dataDir),
      model: options.model ?? 'test/model-a',
    });
    search.defineSpace(SPACE, OTHER);
    return search;
  }

  async function loaded(search: SearchIndexes): Promise<SearchIndex> {
    const index = search.forDb(database.db);
    await index.buildAll();
    return index;
  }

  /** Every answer the index gives for the test queries, in both spaces, by vector (ANN and exact) and by keyword. */
  async function answers(index: SearchIndex): Promise<unknown[]> {
    const results: unknown[] = [];
    for (const space of [SPACE.name, OTHER.name]) {
      for (const vector of queries) {
        results.push(await index.searchVector(space, { vector, k: 10 }));
        results.push(await index.searchVector(space, { vector, k: 10, exact: true }));
      }
      for (const text of ['alpha', 'beta gamma', 'omega item7 item8', 'theta zeta lambda'])
        results.push(await index.searchKeyword(space, { text, k: 20 }));
    }
    return results;
  }

  beforeAll(async () => {
    database = await openTestDatabase();
    const documents = Array.from({ length: COUNT }, (_, i) => ({
      item_id: `i${i}`,
      text: textOf(i),
      title: `title ${words[(i * 3) % 10]} ${i}`,
      embeddings: { text: Array.from(next()), title: Array.from(next()) },
    }));
    await database.db.collection('items').insertMany(documents);
    await database.db.collection('items').createIndex({ item_id: 1 }, { unique: true });
  });

  beforeEach(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'hindsight-snapshots-'));
  });

  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));
  afterAll(() => database?.close());

  it('a restart restores the saved spaces and answers exactly as before, reading no document when nothing changed', async () => {
    const first = await loaded(searchIndexes());
    const before = await answers(first);
    await first.saveSpaces(() => true);

    const { logger, lines } = capturingLogger();
    database.commands.reset();
    const restarted = await loaded(searchIndexes({ logger }));
    const finds = database.commands.events.filter((event) => event.commandName === 'find');
    const resumed = database.commands.events.filter((event) => event.command.pipeline?.[0]?.$changeStream?.startAfter);
    expect(restoredLines(lines)).toEqual([
      [SPACE.name, CAUGHT_UP_BY, 0, 0],
      [OTHER.name, CAUGHT_UP_BY, 0, 0],
    ]);
    expect(lines.some((line) => line.message === 'search space built')).toBe(false);
    expect(await answers(restarted)).toEqual(before);
    expect(restarted.stats(SPACE.name)).toEqual(first.stats(SPACE.name));
    // With change streams: one read of the stream for both spaces, and no document read.
    if (CHANGE_STREAMS) expect([finds.length, resumed.length]).toEqual([0, 1]);
  });

  it("an update that changes a document's id: the old id leaves the index, the new one joins it", async () => {
    const first = await loaded(searchIndexes());
    await first.saveSpaces(() => true);
    const items = database.db.collection('items');
    await items.updateOne({ item_id: 'i20' }, { $set: { item_id: 'i20-renamed' } });
    try {
      const { logger, lines } = capturingLogger();
      const restarted = await loaded(searchIndexes({ logger }));
      expect(restoredLines(lines)).toEqual([
        [SPACE.name, CAUGHT_UP_BY, 1, 1],
        [OTHER.name, CAUGHT_UP_BY, 1, 1],
      ]);
      expect((await restarted.searchKeyword(SPACE.name, { text: 'item20', k: 5 })).map((hit) => hit.id)).toEqual([
        'i20-renamed',
      ]);
      expect(restarted.stats(SPACE.name)).toEqual(first.stats(SPACE.name));
    } finally {
      await items.updateOne({ item_id: 'i20-renamed' }, { $set: { item_id: 'i20' } });
    }
  });

  (CHANGE_STREAMS ? it : it.skip)(
    'a save first takes in what others wrote meanwhile, and saves the position after it',
    async () => {
      const index = await loaded(searchIndexes());
      const items = database.db.collection('items');
      // Written by someone else while the server runs: the index does not see it...
      const behind = next();
      await items.insertOne({
        item_id: 'behind',
        text: 'written elsewhere',
        title: 'elsewhere',
        embeddings: { text: Array.from(behind), title: Array.from(next()) },
      });
      expect((await index.searchKeyword(SPACE.name, { text: 'elsewhere', k: 5 })).map((hit) => hit.id)).toEqual([]);
      // ...until a save, which follows the change stream before writing the snapshot.
      await index.saveSpaces(() => true);
      try {
        expect((await index.searchKeyword(SPACE.name, { text: 'elsewhere', k: 5 })).map((hit) => hit.id)).toEqual([
          'behind',
        ]);
        expect((await index.searchVector(SPACE.name, { vector: behind, k: 1 }))[0].id).toBe('behind');
        const { logger, lines } = capturingLogger();
        database.commands.reset();
        const restarted = await loaded(searchIndexes({ logger }));
        // The saved position is after that insert: nothing to read back.
        expect(restoredLines(lines)).toEqual([
          [SPACE.name, 'change stream', 0, 0],
          [OTHER.name, 'change stream', 0, 0],
        ]);
        expect(database.commands.count('find')).toBe(0);
        expect(restarted.stats(SPACE.name)).toEqual(index.stats(SPACE.name));
      } finally {
        await items.deleteOne({ item_id: 'behind' });
      }
    },
  );

  it('without a saved position (no change streams) a restart compares the collection, reading only fingerprints', async () => {
    const first = await loaded(searchIndexes());
    const before = await answers(first);
    await first.saveSpaces(() => true);
    forgetPositions(dataDir, database.db.databaseName);

    const { logger, lines } = capturingLogger();
    database.commands.reset();
    const restarted = await loaded(searchIndexes({ logger }));
    expect(restoredLines(lines)).toEqual([
      [SPACE.name, 'comparing the collection', 0, 0],
      [OTHER.name, 'comparing the collection', 0, 0],
    ]);
    // One pass over the collection for both spaces, reading the first vector components only.
    const finds = database.commands.events.filter((event) => event.commandName === 'find');
    expect(finds).toHaveLength(1);
    expect(finds[0].command.projection).toEqual({
      _id: 1, // the document keys
      item_id: 1,
      text: 1,
      title: 1,
      'embeddings.text': { $slice: 4 },
      'embeddings.title': { $slice: 4 },
    });
    expect(await answers(restarted)).toEqual(before);
    expect(restarted.stats(SPACE.name)).toEqual(first.stats(SPACE.name));
    // Where there are change streams, the next save records a position, so the next restart can follow them.
    await restarted.saveSpaces(() => true);
    const saved = JSON.parse(
      readFileSync(path.join(snapshotDir(dataDir, database.db.databaseName, SPACE.name), 'snapshot.json'), 'utf8'),
    );
    expect(saved.position ?? null).toEqual(CHANGE_STREAMS ? expect.any(String) : null);
    if (!CHANGE_STREAMS) return;
    // The pass over the collection read the documents' keys: a deletion is then looked up, not listed.
    const items = database.db.collection('items');
    await items.deleteOne({ item_id: 'i50' });
    try {
      database.commands.reset();
      const again = await loaded(searchIndexes());
      expect(
        database.commands.events
          .filter((event) => event.commandName === 'find')
          .map((event) => Object.keys(event.command.filter ?? {})),
      ).toEqual([['item_id']]);
      expect(again.stats(SPACE.name).vectors).toBe(COUNT - 1);
    } finally {
      await items.insertOne({
        item_id: 'i50',
        text: textOf(50),
        title: 'restored',
        embeddings: { text: Array.from(next()), title: Array.from(next()) },
      });
    }
  });

  (CHANGE_STREAMS ? it : it.skip)(
    'finds the documents deleted behind its back by their keys, without listing the collection',
    async () => {
      const index = await loaded(searchIndexes());
      const items = database.db.collection('items');
      // Written as a service writes (MongoDB, then the index): the save reads it back and learns its _id.
      const own = {
        item_id: 'own',
        text: 'own words',
        title: 'own title',
        embeddings: { text: Array.from(next()), title: Array.from(next()) },
      };
      await items.insertOne({ ...own });
      index.upsert(SPACE.name, 'own', Float32Array.from(own.embeddings.text), own.text);
      index.upsert(OTHER.name, 'own', Float32Array.from(own.embeddings.title), own.title);
      await index.saveSpaces(() => true);
      await items.deleteMany({ item_id: { $in: ['own', 'i30'] } });
      // Deleted, then inserted again under the same id (another _id): it stays.
      const again = (await items.findOneAndDelete({ item_id: 'i31' }, { projection: { _id: 0 } }))!;
      await items.insertOne({ ...again });
      try {
        const { logger, lines } = capturingLogger();
        database.commands.reset();
        const restarted = await loaded(searchIndexes({ logger }));
        expect(restoredLines(lines)).toEqual([
          [SPACE.name, 'change stream', 0, 2], // i31 read back, unchanged; own and i30 removed
          [OTHER.name, 'change stream', 0, 2],
        ]);
        expect(database.commands.count('distinct')).toBe(0);
        // The document written (i31) is read back once, whole, while the snapshots load.
        const readBacks = database.commands.events.filter(
          (event) => event.commandName === 'find' && event.command.filter?._id?.$in,
        );
        expect(readBacks.map((event) => event.command.projection?.['embeddings.text'])).toEqual([1]);
        // One lookup by id: the candidates the deleted _ids' keys point at, not the collection's 1,000 ids.
        const lookups = database.commands.events.filter(
          (event) => event.commandName === 'find' && event.command.filter?.item_id?.$in,
        );
        expect(lookups).toHaveLength(1);
        expect(lookups[0].command.filter.item_id.$in).toEqual(expect.arrayContaining(['own', 'i30']));
        expect(lookups[0].command.filter.item_id.$in.length).toBeLessThan(5);
        expect((await restarted.searchKeyword(SPACE.name, { text: 'own', k: 5 })).map((hit) => hit.id)).toEqual([]);
        expect((await restarted.searchKeyword(SPACE.name, { text: 'item30', k: 5 })).map((hit) => hit.id)).toEqual([]);
        expect((await restarted.searchKeyword(SPACE.name, { text: 'item31', k: 5 })).map((hit) => hit.id)).toEqual([
          'i31',
        ]);
        expect(restarted.stats(SPACE.name).vectors).toBe(COUNT - 1);
        expect(restarted.stats(OTHER.name).vectors).toBe(COUNT - 1);
      } finally {
        await items.deleteOne({ item_id: 'own' });
        await items.insertOne({
          item_id: 'i30',
          text: textOf(30),
          title: 'restored',
          embeddings: { text: Array.from(next()), title: Array.from(next()) },
        });
      }
    },
  );

  (CHANGE_STREAMS ? it : it.skip)(
    'a save after more of its own writes than a restore follows keeps its position, reading back only fingerprints',
    async () => {
      const index = await loaded(searchIndexes());
      const items = database.db.collection('items');
      // More writes than a restore would follow (a tenth of the collection, at least 1,000), made as a service makes them.
      const written = Array.from({ length: 1100 }, (_, i) => ({
        item_id: `own${i}`,
        text: `own words ${i}`,
        title: `own ${i}`,
        embeddings: { text: Array.from(next()), title: Array.from(next()) },
      }));
      await items.insertMany(written.map((document) => ({ ...document })));
      for (const document of written) {
        index.upsert(SPACE.name, document.item_id, Float32Array.from(document.embeddings.text), document.text);
        index.upsert(OTHER.name, document.item_id, Float32Array.from(document.embeddings.title), document.title);
      }
      try {
        database.commands.reset();
        await index.saveSpaces(() => true);
        // The index already holds these documents: their fingerprints match, so no vector is read back.
        const finds = database.commands.events.filter((event) => event.commandName === 'find');
        expect(finds.length).toBeGreaterThan(0);
        expect(finds.filter((event) => event.command.projection?.['embeddings.text'] === 1)).toEqual([]);
        const manifest = JSON.parse(
          readFileSync(path.join(snapshotDir(dataDir, database.db.databaseName, SPACE.name), 'snapshot.json'), 'utf8'),
        );
        expect(manifest.position).toEqual(expect.any(String));
        const { logger, lines } = capturingLogger();
        const restarted = await loaded(searchIndexes({ logger }));
        expect(restoredLines(lines)).toEqual([
          [SPACE.name, 'change stream', 0, 0],
          [OTHER.name, 'change stream', 0, 0],
        ]);
        expect(restarted.stats(SPACE.name).vectors).toBe(COUNT + 1100);
      } finally {
        await items.deleteMany({ item_id: { $regex: '^own' } });
      }
    },
  );

  (CHANGE_STREAMS ? it : it.skip)(
    'a snapshot saved without document keys (an older version) still finds the deleted documents, listing the ids',
    async () => {
      const index = await loaded(searchIndexes());
      await index.saveSpaces(() => true);
      for (const space of [SPACE, OTHER]) {
        const dir = snapshotDir(dataDir, database.db.databaseName, space.name);
        const manifest = readManifest(dir);
        writeManifest(dir, {
          ...manifest,
          sections: manifest.sections.filter((section) => section.name !== 'fingerprints.documentKeys'),
        });
      }
      const items = database.db.collection('items');
      await items.deleteOne({ item_id: 'i40' });
      try {
        const { logger, lines } = capturingLogger();
        database.commands.reset();
        const restarted = await loaded(searchIndexes({ logger }));
        // Every id is a candidate: the collection's ids are listed (with their _ids) instead of looked up.
        const listings = () =>
          database.commands.events.filter(
            (event) =>
              event.commandName === 'find' && event.command.projection?._id === 1 && !event.command.filter?.item_id,
          );
        expect(listings()).toHaveLength(1);
        expect(restoredLines(lines)).toEqual([
          [SPACE.name, 'change stream', 0, 1],
          [OTHER.name, 'change stream', 0, 1],
        ]);
        expect((await restarted.searchKeyword(SPACE.name, { text: 'item40', k: 5 })).map((hit) => hit.id)).toEqual([]);
        expect(restarted.stats(SPACE.name).vectors).toBe(COUNT - 1);
        // The listing read the keys: saved again, the next restart looks the candidates up.
        await restarted.saveSpaces(() => true);
        await items.deleteOne({ item_id: 'i41' });
        database.commands.reset();
        const again = await loaded(searchIndexes());
        expect(listings()).toHaveLength(0);
        expect(
          database.commands.events.filter(
            (event) => event.commandName === 'find' && event.command.filter?.item_id?.$in,
          ),
        ).toHaveLength(1);
        expect(again.stats(SPACE.name).vectors).toBe(COUNT - 2);
      } finally {
        for (const i of [40, 41]) {
          await items.insertOne({
            item_id: `i${i}`,
            text: textOf(i),
            title: 'restored',
            embeddings: { text: Array.from(next()), title: Array.from(next()) },
          });
        }
      }
    },
  );

  it.each([
    ['from the change stream', CAUGHT_UP_BY],
    ['by comparing the collection', 'comparing the collection'],
  ])(
    'catches up %s with writes made through the driver while it was down: inserts, updates, vector-only updates, deletes',
    async (_how, caughtUpBy) => {
      const first = await loaded(searchIndexes());
      await first.saveSpaces(() => true);
      if (caughtUpBy !== CAUGHT_UP_BY) forgetPositions(dataDir, database.db.databaseName);
      const items = database.db.collection('items');
      const fresh = next();
      const moved = next();
      const revectored = next();
      await items.insertOne({
        item_id: 'new-one',
        text: 'brandnew words',
        title: 'new title',
        embeddings: { text: Array.from(fresh), title: Array.from(next()) },
      });
      await items.updateOne(
        { item_id: 'i10' },
        { $set: { text: 'rewritten wholly', 'embeddings.text': Array.from(moved) } },
      );
      await items.updateOne({ item_id: 'i11' }, { $set: { 'embeddings.text': Array.from(revectored) } }); // text unchanged
      await items.deleteOne({ item_id: 'i12' });
      try {
        const { logger, lines } = capturingLogger();
        const restarted = await loaded(searchIndexes({ logger }));
        expect(restoredLines(lines)).toEqual([
          [SPACE.name, caughtUpBy, 3, 1], // new-one, i10, i11; i12
          [OTHER.name, caughtUpBy, 1, 1], // new-one; i12
        ]);
        expect((await restarted.searchVector(SPACE.name, { vector: fresh, k: 1 }))[0].id).toBe('new-one');
        expect((await restarted.searchVector(SPACE.name, { vector: moved, k: 1 }))[0].id).toBe('i10');
        expect((await restarted.searchVector(SPACE.name, { vector: revectored, k: 1 }))[0].id).toBe('i11');
        expect((await restarted.searchKeyword(SPACE.name, { text: 'rewritten', k: 5 })).map((hit) => hit.id)).toEqual([
          'i10',
        ]);
        expect((await restarted.searchKeyword(SPACE.name, { text: 'item10', k: 5 })).map((hit) => hit.id)).toEqual([]);
        expect((await restarted.searchKeyword(SPACE.name, { text: 'item12', k: 5 })).map((hit) => hit.id)).toEqual([]);
        // Exactly what a build from MongoDB gives.
        const rebuilt = await loaded(searchIndexes({ persistDir: null }));
        for (const space of [SPACE.name, OTHER.name]) {
          expect(restarted.stats(space)).toEqual(rebuilt.stats(space));
          for (const vector of [...queries, fresh, moved]) {
            expect(await restarted.searchVector(space, { vector, k: 10, exact: true })).toEqual(
              await rebuilt.searchVector(space, { vector, k: 10, exact: true }),
            );
          }
          for (const text of ['alpha beta', 'rewritten', 'brandnew', 'title new']) {
            const sorted = (hits: Array<{ id: string; bm25: number }>) => hits.map((hit) => [hit.id, hit.bm25]).sort();
            expect(sorted(await restarted.searchKeyword(space, { text, k: 5000 }))).toEqual(
              sorted(await rebuilt.searchKeyword(space, { text, k: 5000 })),
            );
          }
        }
      } finally {
        await items.deleteOne({ item_id: 'new-one' });
        await items.updateOne({ item_id: 'i10' }, { $set: { text: textOf(10) } });
        await items.insertOne({
          item_id: 'i12',
          text: textOf(12),
          title: 'restored',
          embeddings: { text: Array.from(next()), title: Array.from(next()) },
        });
      }
    },
  );

  const sizeOf = (file: string) => readFileSync(file).length;
  const damages: Array<[string, (file: string) => void]> = [
    ...([0, 0.05, 0.5, 0.9] as const).map((share): [string, (file: string) => void] => [
      `a byte flipped at ${share * 100}% of the`,
      (file) => flipByte(file, Math.floor(sizeOf(file) * share)),
    ]),
    ['the last byte flipped in the', (file) => flipByte(file, sizeOf(file) - 1)],
    ['truncated to 0 bytes: the', (file) => truncateSync(file, 0)],
    ['a half-truncated', (file) => truncateSync(file, Math.floor(sizeOf(file) / 2))],
    ['one byte short: the', (file) => truncateSync(file, sizeOf(file) - 1)],
    ['garbage as the', (file) => writeFileSync(file, garbage(sizeOf(file)))],
  ];
  const files: Array<[string, (dir: string) => string]> = [
    ['graph', (dir) => path.join(dir, fileEnding(dir, '.graph'))],
    ['vectors', (dir) => path.join(dir, fileEnding(dir, '.vectors'))],
    ['keyword index', (dir) => path.join(dir, fileEnding(dir, '.data'))],
    ['manifest', (dir) => path.join(dir, 'snapshot.json')],
  ];
  describe('a damaged snapshot', () => {
    // Every case damages a copy of one saved snapshot: the index built, answered and saved once.
    let saved: { dir: string; before: unknown[] };
    beforeAll(async () => {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'hindsight-snapshots-saved-'));
      const first = await loaded(searchIndexes({ persistDir: dir }));
      const before = await answers(first);
      await first.saveSpaces(() => true);
      saved = { dir, before };
    });
    afterAll(() => saved && rmSync(saved.dir, { recursive: true, force: true }));

    it.each([
      ...files.flatMap(([kind, fileOf]) =>
        damages.map(([how, damage]): [string, (dir: string) => string] => [
          `${how} ${kind} file`,
          (dir) => {
            const file = fileOf(dir);
            damage(file);
            return file;
          },
        ]),
      ),
      [
        'a section of the manifest moved, still valid JSON',
        (dir: string) => {
          // What a flipped digit can do: the file is still JSON, the section still within the data file, so the keyword
          // index reads other bytes as its documents' lengths.
          const file = path.join(dir, 'snapshot.json');
          const manifest = JSON.parse(readFileSync(file, 'utf8')) as {
            sections: Array<{ name: string; offset: number }>;
          };
          manifest.sections.find((section) => section.name === 'keywords.lengths')!.offset += 8;
          writeFileSync(file, JSON.stringify(manifest));
          return file;
        },
      ],
      [
        'a manifest damaged mid-way',
        (dir: string) => {
          const file = path.join(dir, 'snapshot.json');
          writeFileSync(file, '{"format": 1, "iden');
          return file;
        },
      ],
    ])('%s: the space is rebuilt from MongoDB with a log line, never served from the file', async (_case, damage) => {
      cpSync(saved.dir, dataDir, { recursive: true });
      const before = saved.before;
      const file = damage(snapshotDir(dataDir, database.db.databaseName, SPACE.name));
      const { logger, lines } = capturingLogger();
      const restarted = await loaded(searchIndexes({ logger }));
      const warnings = lines.filter((line) => line.message === 'search snapshot not used: rebuilding from MongoDB');
      expect(warnings).toEqual([
        expect.objectContaining({ level: 'warn', space: SPACE.name, reason: expect.stringContaining(file) }),
      ]);
      expect(lines.find((line) => line.message === 'search space built')).toMatchObject({ space: SPACE.name });
      expect(lines.find((line) => line.message === 'search space restored')).toMatchObject({ space: OTHER.name });
      // Exact and keyword answers are the same; the rebuilt graph may differ from the saved one, so ANN answers are
      // not compared. The space's answers come first: 8 queries by vector (ANN, exact), then 4 by keyword.
      const exactAndKeyword = (all: unknown[]) => all.slice(0, 20).filter((_, i) => i >= 16 || i % 2 === 1);
      expect(exactAndKeyword(await answers(restarted))).toEqual(exactAndKeyword(before));
    });
  });

  it('a snapshot saved for another embedder or space definition is rebuilt', async () => {
    const first = await loaded(searchIndexes());
    await first.saveSpaces(() => true);
    const { logger, lines } = capturingLogger();
    await loaded(searchIndexes({ logger, model: 'test/model-b' }));
    expect(
      lines
        .filter((line) => line.message === 'search snapshot not used: rebuilding from MongoDB')
        .map((line) => line.reason),
    ).toEqual([expect.stringContaining('another model'), expect.stringContaining('another model')]);
  });

  it('the spaces of a collection are saved at one moment: a write made while their files are written is caught up by each alike', async () => {
    let afterFirstSave: (() => void) | null = null;
    const logger = createLogger('info', (line) => {
      if ((JSON.parse(line) as { message?: string }).message !== 'search space saved') return;
      const write = afterFirstSave;
      afterFirstSave = null;
      write?.();
    });
    const index = await loaded(searchIndexes({ logger }));
    const late = {
      item_id: 'late',
      text: 'late words',
      title: 'late title',
      embeddings: { text: Array.from(next()), title: Array.from(next()) },
    };
    let inserted: Promise<unknown> = Promise.resolve();
    afterFirstSave = () => {
      index.upsert(SPACE.name, late.item_id, Float32Array.from(late.embeddings.text), late.text);
      index.upsert(OTHER.name, late.item_id, Float32Array.from(late.embeddings.title), late.title);
      inserted = database.db.collection('items').insertOne({ ...late });
    };
    await index.saveSpaces(() => true);
    await inserted;
    try {
      const { logger: restartLogger, lines } = capturingLogger();
      await loaded(searchIndexes({ logger: restartLogger }));
      // Neither snapshot holds the late write (saved one after the other, the second one did, at the first one's position).
      expect(restoredLines(lines)).toEqual([
        [SPACE.name, CAUGHT_UP_BY, 1, 0],
        [OTHER.name, CAUGHT_UP_BY, 1, 0],
      ]);
    } finally {
      await database.db.collection('items').deleteOne({ item_id: late.item_id });
    }
  });

  it('saves atomically: only spaces with unsaved writes are written, and a new generation replaces the old', async () => {
    const index = await loaded(searchIndexes());
    await index.saveSpaces(() => true);
    const dir = snapshotDir(dataDir, database.db.databaseName, SPACE.name);
    const firstFiles = readdirSync(dir).sort();
    expect(firstFiles.filter((name) => name !== 'snapshot.json').map((name) => path.extname(name))).toEqual([
      '.data',
      '.graph',
      '.vectors',
    ]);
    await index.saveSpaces(() => true); // nothing changed: nothing written
    expect(readdirSync(dir).sort()).toEqual(firstFiles);
    // A write as a service makes it: MongoDB first, then the index.
    const vector = next();
    await database.db
      .collection('items')
      .insertOne({ item_id: 'extra', text: 'extra words', embeddings: { text: Array.from(vector) } });
    index.upsert(SPACE.name, 'extra', vector, 'extra words');
    await index.saveSpaces(() => true);
    const secondFiles = readdirSync(dir).sort();
    expect(secondFiles).toHaveLength(4);
    expect(secondFiles.filter((name) => firstFiles.includes(name))).toEqual(['snapshot.json']);
    const { logger, lines } = capturingLogger();
    const restarted = await loaded(searchIndexes({ logger }));
    expect(restarted.stats(SPACE.name).vectors).toBe(COUNT + 1);
    // The saved entry's fingerprint matches the document's: nothing to catch up in that space.
    expect(lines.find((line) => line.space === SPACE.name)).toMatchObject({
      message: 'search space restored',
      updated: 0,
      removed: 0,
    });
    await database.db.collection('items').deleteOne({ item_id: 'extra' });
  });
});

describeInProcessIndex('the app restores its search index at startup', () => {
  it('after a graceful stop and writes made behind its back, searchExperiences answers as a fresh build does', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'hindsight-app-snapshots-'));
    const app = await createTestApp({ config: { dataDir } });
    try {
      const inputs = Array.from({ length: 30 }, (_, i) => ({
        experienceId: `x${i}`,
        primaryGoalDescription: `Book a flight to city ${i} for traveller ${i % 4}`,
        subTaskDescription: `Search flights with airline ${i % 5}`,
        inputContextSummary: `Budget ${i * 100} dollars`,
        outputSummary: `Found ${i % 3} options`,
        initiatingAgentId: 'agent-a',
        finalOutcome: 'SUCCESS',
      }));
      await app.run(
        `mutation ($inputs: [RecordExperienceInput!]!) { recordExperiences(inputs: $inputs) { experienceId } }`,
        { inputs },
      );
      await app.deps.search.close(); // what a graceful shutdown does

      // Behind the server's back: one experience rewritten (texts and vectors), one deleted, one inserted.
      const collection = app.db.collection('eat_agent_experiences');
      const rewritten = 'Translate the user manual into German';
      const [vector] = await app.deps.embedder.embed([rewritten]);
      await collection.updateOne(
        { experience_id: 'x5' },
        {
          $set: {
            primary_goal_description: rewritten,
            [`embeddings.${embeddingKey(EXPERIENCE_FIELDS[0])}`]: toStoredVector(vector),
          },
        },
      );
      await collection.deleteOne({ experience_id: 'x6' });
      const copy = (await collection.findOne({ experience_id: 'x7' }, { projection: { _id: 0 } })) as Document;
      await collection.insertOne({ ...copy, experience_id: 'x-new' });

      const search = async (deps: ReturnType<typeof createAppDeps>) => {
        const server = await createServer(deps, await buildAppSchema());
        const answers: unknown[] = [];
        for (const query of [
          'Book a flight to city 7',
          'Translate the user manual into German',
          'airline 3 budget',
          'Found 2 options',
        ]) {
          for (const mode of ['HYBRID', 'VECTOR', 'KEYWORD']) {
            const response = await server.apollo.executeOperation(
              {
                // Relevance, not score: the score's recency factor moves with the clock between the two builds.
                query: `query ($query: String!, $mode: SearchMode!) { searchExperiences(query: $query, mode: $mode, limit: 40) { relevance vectorScore keywordScore matchedField experience { experienceId } } }`,
                variables: { query, mode },
              },
              { contextValue: createContext(deps) },
            );
            answers.push(response.body.kind === 'single' ? response.body.singleResult : null);
          }
        }
        await server.stop();
        return answers;
      };
      const restart = (persisted: boolean, logger: Logger) =>
        createAppDeps({
          config: { ...app.deps.config, dataDir: persisted ? dataDir : path.join(dataDir, 'elsewhere') },
          logger,
          database: app.deps.database,
          embeddings: app.deps.embeddings,
        });

      const { logger, lines } = capturingLogger();
      const restarted = restart(true, logger);
      await prepareDatabase(restarted, app.db);
      expect(restoredLines(lines).filter(([space]) => String(space).startsWith('experiences.'))).toEqual([
        ['experiences.primary_goal_description', CAUGHT_UP_BY, 2, 1],
        ['experiences.sub_task_description', CAUGHT_UP_BY, 1, 1],
        ['experiences.input_context_summary', CAUGHT_UP_BY, 1, 1],
        ['experiences.output_summary', CAUGHT_UP_BY, 1, 1],
      ]);
      const rebuilt = restart(false, silentLogger);
      await prepareDatabase(rebuilt, app.db);
      const answers = await search(restarted);
      expect(JSON.stringify(answers)).toContain('x-new');
      expect(JSON.stringify(answers)).not.toContain('"x6"');
      expect(answers).toEqual(await search(rebuilt));
    } finally {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

function fileEnding(dir: string, ending: string): string {
  return readdirSync(dir).find((name) => name.endsWith(ending))!;
}

/** Bytes that are no file's (a fixed seed, so a failure repeats). */
function garbage(length: number): Buffer {
  const bytes = Buffer.alloc(length);
  let state = 12345;
  for (let i = 0; i < length; i++) bytes[i] = (state = (state * 1103515245 + 12345) >>> 0) >>> 24;
  return bytes;
}

function flipByte(file: string, at: number): void {
  const bytes = readFileSync(file);
  bytes[at] ^= 0xff;
  writeFileSync(file, bytes);
}
