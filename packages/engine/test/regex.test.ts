/** Regular expressions match in linear time (RE2): no pattern can hold the engine's thread. */
import type { Document } from 'bson';
import { Engine } from '../src/commands';
import { Store } from '../src/store';

let engine: Engine;
const run = (command: Document): Promise<Document> => engine.execute({ ...command, $db: 'db' }, 1);
const evil = 'a'.repeat(30) + 'b';

beforeAll(async () => {
  engine = new Engine(new Store(), { append: async () => undefined });
  await run({
    insert: 'c',
    documents: [
      { _id: 1, s: evil, t: ['x', evil] },
      { _id: 2, s: 'aaa' },
    ],
  });
  await run({ createIndexes: 'c', indexes: [{ key: { s: 1 }, name: 's_1' }] });
});
afterAll(() => engine.close());

const ids = async (filter: Document): Promise<unknown[]> => {
  const reply = await run({ find: 'c', filter, sort: { _id: 1 } });
  expect(reply.ok).toBe(1);
  return reply.cursor.firstBatch.map((doc: Document) => doc._id);
};

test('a catastrophic-backtracking pattern answers at once in every place a regex is evaluated', async () => {
  const started = performance.now();
  // Backtracking, each of these takes minutes (2^30 paths); the indexed field goes through the planner's regex path.
  expect(await ids({ s: { $regex: '^(a+)+$' } })).toEqual([2]);
  expect(await ids({ s: /^(a+)+$/ })).toEqual([2]);
  expect(await ids({ t: { $in: [/^(a+)+$/, /^y$/] } })).toEqual([]);
  expect(await ids({ t: { $all: [/^(a+)+$/] } })).toEqual([]);
  expect(await ids({ s: { $not: { $regex: '^(a+)+$' } } })).toEqual([1]);
  const aggregate = await run({
    aggregate: 'c',
    pipeline: [
      { $sort: { _id: 1 } },
      {
        $project: {
          m: { $regexMatch: { input: '$s', regex: '^(a+)+$' } },
          f: { $regexFind: { input: '$s', regex: /^(a+)+(b)$/ } },
          all: { $regexFindAll: { input: '$s', regex: '(a+)+c|b' } },
        },
      },
    ],
    cursor: {},
  });
  expect(aggregate.cursor.firstBatch).toEqual([
    {
      _id: 1,
      m: false,
      f: { match: evil, idx: 0, captures: ['a'.repeat(30), 'b'] },
      all: [{ match: 'b', idx: 30, captures: [null] }],
    },
    { _id: 2, m: true, f: null, all: [] },
  ]);
  expect(performance.now() - started).toBeLessThan(2_000);
});

test('options i, m, s and x apply as in mongod; an empty match moves $regexFindAll on', async () => {
  await run({ insert: 'o', documents: [{ _id: 1, s: 'Line1\nLINE2' }] });
  const count = async (filter: Document): Promise<number> => (await run({ count: 'o', query: filter })).n;
  expect(await count({ s: { $regex: 'line2', $options: 'i' } })).toBe(1);
  expect(await count({ s: { $regex: '^LINE2$' } })).toBe(0);
  expect(await count({ s: { $regex: '^LINE2$', $options: 'm' } })).toBe(1);
  expect(await count({ s: { $regex: '1.L' } })).toBe(0);
  expect(await count({ s: { $regex: '1.L', $options: 's' } })).toBe(1);
  expect(await count({ s: { $regex: ' L i n e [ ]? 1 # a comment\n', $options: 'x' } })).toBe(1);
  const reply = await run({
    aggregate: 'o',
    pipeline: [{ $project: { _id: 0, all: { $regexFindAll: { input: 'ab', regex: 'x*' } } } }],
    cursor: {},
  });
  expect(reply.cursor.firstBatch[0].all.map((found: Document) => found.idx)).toEqual([0, 1, 2]);
});

test('backreferences and lookaround are refused with 51091, saying why', async () => {
  for (const pattern of ['(a)\\1', 'a(?=b)', 'a(?!b)', '(?<=a)b']) {
    const reply = await run({ find: 'c', filter: { s: { $regex: pattern } } });
    expect(reply).toMatchObject({ ok: 0, code: 51091, codeName: 'Location51091' });
    expect(reply.errmsg).toMatch(/^Regular expression is invalid: .*backreferences and lookaround are not supported/);
  }
  const aggregate = await run({
    aggregate: 'c',
    pipeline: [{ $project: { m: { $regexMatch: { input: '$s', regex: '(a)\\1' } } } }],
    cursor: {},
  });
  expect(aggregate).toMatchObject({ ok: 0, code: 51091 });
  expect(await run({ find: 'c', filter: { s: { $regex: 'a', $options: 'g' } } })).toMatchObject({ ok: 0, code: 51108 });
});
