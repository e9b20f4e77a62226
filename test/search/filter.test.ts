import { firstPassing, resolveFilter } from '../../src/search/filter';
import { openTestDatabase, type TestDatabase } from '../support/db';

describe('resolveFilter over a real database', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openTestDatabase();
    const documents = Array.from({ length: 300 }, (_, i) => ({
      item_id: `i${i}`,
      group: i % 3 === 0 ? 'rare' : 'common',
    }));
    await database.db.collection('items').insertMany(documents);
  });
  afterAll(() => database.close());

  it('lists the ids that pass when at most `max` do', async () => {
    const restriction = await resolveFilter(database.db.collection('items'), 'item_id', { group: 'rare' }, 100);
    expect(restriction.kind).toBe('ids');
    if (restriction.kind === 'ids') expect(restriction.ids.size).toBe(100);
  });

  it('checks candidates in the database while few, then lists every passing id once and checks the rest in memory', async () => {
    const restriction = await resolveFilter(database.db.collection('items'), 'item_id', { group: 'common' }, 50);
    expect(restriction.kind).toBe('check');
    if (restriction.kind !== 'check') return;
    // A ranking whose best 240 documents fail the filter: i0, i3, i6, … first.
    const ranking = [
      ...Array.from({ length: 100 }, (_, i) => `i${i * 3}`),
      ...Array.from({ length: 200 }, (_, i) => `i${i + Math.floor(i / 2) + 1}`),
    ];
    database.commands.reset();
    const kept = await firstPassing((n) => ranking.slice(0, n).map((id) => ({ id })), 5, restriction.passing);
    expect(kept.map((hit) => hit.id)).toEqual(['i1', 'i2', 'i4', 'i5', 'i7']);
    // The first 20 candidates are checked by $in; at 80 asked about (> 50) every passing id is listed, once.
    const finds = database.commands.events.filter((event) => event.commandName === 'find');
    expect(finds.map((event) => ('$and' in event.command.filter ? 'check' : 'list'))).toEqual(['check', 'list']);
    expect(await restriction.passing(['i0', 'i1', 'i299'])).toEqual(new Set(['i1', 'i299']));
    expect(database.commands.count('find')).toBe(2);
  });
});
