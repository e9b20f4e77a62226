import { StoredValues } from '../../src/search/space-filters';
import type { SpaceDefinition } from '../../src/search/space';
import { openTestDatabase, type TestDatabase } from '../support/db';

const DEFINITION: SpaceDefinition = {
  name: 'notes.text',
  collection: 'notes',
  idField: 'note_id',
  vectorPath: 'embedding',
  textPaths: ['text'],
};

describe('StoredValues', () => {
  let database: TestDatabase;
  const notes = () => database.db.collection(DEFINITION.collection);
  /** Values as the cache answers them: each note's `rank` and how many times `compact` ran for it. */
  const compacted = new Map<string, number>();
  const values = () =>
    new StoredValues(database.db, DEFINITION, ['rank'], (document) => {
      compacted.set(document.note_id, (compacted.get(document.note_id) ?? 0) + 1);
      return { rank: document.rank as number };
    });
  /** Sets a note's rank behind the cache's back, as a write nobody reported. */
  const writeUnreported = (id: string, rank: number) => notes().updateOne({ note_id: id }, { $set: { rank } });
  const rankOf = async (cache: StoredValues<{ rank: number }>, id: string) => (await cache.read([id])).get(id)?.rank;

  beforeAll(async () => {
    database = await openTestDatabase();
  });
  beforeEach(async () => {
    compacted.clear();
    await notes().deleteMany({});
    await notes().insertMany(
      Array.from({ length: 300 }, (_, i) => ({ note_id: `n${i}`, rank: i, text: `note ${i}`, unrelated: 'x' })),
    );
  });
  afterAll(() => database.close());

  it('answers the listed documents that exist, compacted, and keeps them: an unreported write is not seen', async () => {
    const cache = values();
    const found = await cache.read(['n1', 'n2', 'missing']);
    expect([...found]).toEqual([
      ['n1', { rank: 1 }],
      ['n2', { rank: 2 }],
    ]);
    await cache.loaded();
    await writeUnreported('n2', 99);
    expect(await rankOf(cache, 'n2')).toBe(2);
  });

  it('forgets a document dropped by id, by `_id` (a change event) or by clearing', async () => {
    const cache = values();
    await cache.read(['n1']);
    await cache.loaded();
    for (const id of ['n3', 'n4', 'n5']) await writeUnreported(id, 1000);
    cache.drop('n3');
    const { _id } = (await notes().findOne({ note_id: 'n4' }))!;
    cache.dropKey(_id);
    expect(await rankOf(cache, 'n3')).toBe(1000);
    expect(await rankOf(cache, 'n4')).toBe(1000);
    expect(await rankOf(cache, 'n5')).toBe(5);
    cache.clear();
    expect(await rankOf(cache, 'n5')).toBe(1000);
  });

  it('loads the whole collection in the background after the first read, once', async () => {
    const cache = values();
    await cache.read(['n0']);
    await cache.loaded();
    expect(compacted.size).toBe(300);
    for (let i = 0; i < 300; i += 37) await writeUnreported(`n${i}`, -1);
    const all = await cache.read(Array.from({ length: 300 }, (_, i) => `n${i}`));
    expect([...all.values()].every(({ rank }) => rank >= 0)).toBe(true);
    // n0: read once by the first read, once by the load; every other note once.
    expect([...compacted.values()].reduce((sum, count) => sum + count, 0)).toBe(301);
  });

  it('keeps nothing a read was out for when its document was written meanwhile', async () => {
    const cache = values();
    // Both the read and the background load it starts are out when the writes are reported.
    const reading = cache.read(['n7', 'n8', 'n9']);
    cache.drop('n7');
    const { _id } = (await notes().findOne({ note_id: 'n8' }))!;
    cache.dropKey(_id);
    const read = await reading;
    expect(read.get('n7')).toEqual({ rank: 7 });
    await cache.loaded();
    for (const id of ['n7', 'n8', 'n9']) await writeUnreported(id, 500);
    expect(await rankOf(cache, 'n7')).toBe(500);
    expect(await rankOf(cache, 'n8')).toBe(500);
    expect(await rankOf(cache, 'n9')).toBe(9);
  });
});
