import { Aggregator } from 'mingo/aggregator';
import { NotCompiled, compileProject } from '../src/expressions';
import { MINGO_OPTIONS } from '../src/filter';
import type { Doc } from '../src/values';
import { Long } from 'bson';

const at = (minute: number) => new Date(Date.UTC(2025, 0, 1, 0, minute));
const message = (id: number, role: string, extra: Doc = {}) => ({
  message_id: id,
  role,
  content: `m${id}`,
  created_at: at(id),
  ...extra,
});

/** Sessions as stored (agents keyed by id, messages in arrays) and the odd shapes a field can take. */
const DOCUMENTS: Doc[] = [
  {
    _id: 's1',
    session_type: 'chat',
    created_at: at(0),
    metadata: { team: 'ops', tags: ['a', 'b'] },
    agents: {
      planner: {
        agent_data: { model: 'gpt' },
        messages: [
          message(1, 'user'),
          message(2, 'assistant', { usage: { tokens: 5 } }),
          message(3, 'user'),
          message(4, 'assistant', { usage: { tokens: 7 } }),
        ],
      },
      coder: { messages: [] },
      broken: 'not an agent',
    },
  },
  { _id: 's2', session_type: null, agents: {} },
  { _id: 's3', agents: { solo: { messages: [message(1, 'assistant')] }, quiet: {} } },
  { _id: 's4' },
  { _id: 's5', agents: { nested: { messages: [[message(1, 'user')]] } } },
  { _id: 's6', agents: 'scalar', score: 3 },
  { _id: 's7', score: 2.5, ids: [1, 2.5, 3_000_000_000, -0, null], agents: { planner: { messages: [] } } },
];

const MESSAGES = { $ifNull: ['$$a.v.messages', []] };
const agents = (fields: Doc) => ({
  $map: { input: { $objectToArray: { $ifNull: ['$agents', {}] } }, as: 'a', in: { agent_id: '$$a.k', ...fields } },
});

/** $project stages of the forms the server sends (src/modules/sessions/session.repository.ts) and their edge cases. */
const COMPILED: Doc[] = [
  { session_type: 1, created_at: 1, metadata: 1, missing: 1 },
  { _id: 0, session_type: true },
  {
    team: '$metadata.team',
    tags: '$metadata.tags',
    absent: '$metadata.none.deeper',
    root: '$$ROOT._id',
    current: '$$CURRENT.session_type',
  },
  { agents: agents({ model: '$$a.v.agent_data.model', count: { $size: MESSAGES } }) },
  {
    agents: agents({
      last: { $arrayElemAt: [MESSAGES, -1] },
      first: { $arrayElemAt: [MESSAGES, 0] },
      beyond: { $arrayElemAt: [MESSAGES, 9] },
    }),
  },
  {
    agents: agents({
      tail: { $slice: [MESSAGES, -2] },
      head: { $slice: [MESSAGES, 3] },
      window: { $slice: [MESSAGES, 1, 2] },
      back: { $slice: [MESSAGES, -3, 2] },
    }),
  },
  { agents: agents({ roles: '$$a.v.messages.role', tokens: '$$a.v.messages.usage.tokens' }) },
  {
    agents: {
      $filter: {
        input: { $objectToArray: { $ifNull: ['$agents', {}] } },
        as: 'a',
        cond: {
          $and: [
            { $in: ['$$a.k', { $literal: ['planner', 'solo', 'nobody'] }] },
            { $eq: [{ $type: '$$a.v' }, 'object'] },
          ],
        },
      },
    },
  },
  {
    pages: agents({
      page: {
        $cond: [
          { $eq: [{ $type: '$$a.v' }, 'object'] },
          {
            $let: {
              vars: {
                list: { $filter: { input: MESSAGES, as: 'm', cond: { $eq: ['$$m.role', { $literal: 'user' }] } } },
              },
              in: {
                total: { $size: '$$list' },
                page: {
                  $map: {
                    input: {
                      $slice: [
                        { $filter: { input: '$$list', as: 'm', cond: { $and: [{ $gt: ['$$m.message_id', 1] }] } } },
                        2,
                      ],
                    },
                    as: 'kept',
                    in: { id: '$$kept.message_id', at: '$$kept.created_at' },
                  },
                },
                before: { $size: { $filter: { input: '$$list', as: 'm', cond: { $lte: ['$$m.message_id', 1] } } } },
                after: { $size: { $filter: { input: '$$list', as: 'm', cond: { $gte: ['$$m.message_id', 3] } } } },
              },
            },
          },
          null,
        ],
      },
    }),
  },
  {
    flags: {
      $map: {
        input: { $literal: [0, 1, '', null, false, true] },
        in: { $cond: { if: '$$this', then: 'yes', else: 'no' } },
      },
    },
  },
  {
    either: { $or: [{ $lt: ['$_id', 's3'] }, { $ne: ['$_id', 's5'] }] },
    both: { $and: [{ $gte: ['$_id', 's2'] }, '$agents'] },
    negated: { $not: ['$metadata'] },
    kind: { $type: '$metadata' },
  },
  // Stored shapes taken as they come: what is not an array or an object reads as an empty one.
  {
    agents: {
      $map: {
        input: { $objectToArray: { $cond: [{ $eq: [{ $type: '$agents' }, 'object'] }, '$agents', {}] } },
        as: 'a',
        in: {
          agent_id: '$$a.k',
          listed: { $isArray: '$$a.v.messages' },
          wrapped: { $isArray: ['$$a.v.messages'] },
          count: { $size: { $cond: [{ $isArray: '$$a.v.messages' }, '$$a.v.messages', []] } },
        },
      },
    },
    literal: { $isArray: [{ $literal: [1] }] },
    absent: { $isArray: '$nothing' },
  },
  // The operators of the sessions repository's append (appendMessages).
  {
    total: { $add: ['$score', 1, '$score'] },
    absent: { $add: ['$nothing', 1] },
    kinds: { $map: { input: { $ifNull: ['$ids', []] }, in: { $type: '$$this' } } },
    joined: { $concatArrays: [{ $ifNull: ['$ids', []] }, { $literal: [9] }, []] },
    none: { $concatArrays: ['$ids', '$none'] },
    type: { $getField: { field: 'session_type', input: '$$ROOT' } },
    score: { $getField: { field: { $literal: 'score' }, input: '$$CURRENT' } },
  },
  {
    highest: {
      $max: {
        $filter: {
          input: {
            $concatArrays: [{ $ifNull: ['$agents.planner.messages.message_id', []] }, { $ifNull: ['$ids', []] }],
          },
          as: 'id',
          cond: { $in: [{ $type: '$$id' }, ['int', 'long', 'double', 'decimal']] },
        },
      },
    },
  },
];

/** Forms left to mingo: exclusions, dotted or nested specs, literals, operators not compiled, unknown variables. */
const NOT_COMPILED: Doc[] = [
  { agents: 0 },
  { _id: 0 },
  { 'metadata.team': 1 },
  { metadata: { team: 1 } },
  { constant: 'text' },
  { most: { $max: ['$score', 1] } },
  { v: '$$unbound.x' },
  { items: { $filter: { input: '$tags', as: 'm', cond: true, limit: 1 } } },
];

function mingoProject(spec: Doc, doc: Doc): Doc {
  return new Aggregator([{ $project: spec }], MINGO_OPTIONS).run([structuredClone(doc)])[0] as Doc;
}

describe('compiled $project', () => {
  it.each(COMPILED.map((spec) => [JSON.stringify(spec).slice(0, 90), spec] as const))(
    '%s answers as mingo does',
    (_name, spec) => {
      const project = compileProject(spec);
      expect(project).toBeDefined();
      let answered = 0;
      for (const doc of DOCUMENTS) {
        const before = structuredClone(doc);
        let compiled: Doc;
        try {
          compiled = project!(doc);
        } catch (error) {
          expect(error).toBeInstanceOf(NotCompiled);
          continue;
        }
        answered++;
        expect({ doc: doc._id, out: compiled }).toEqual({ doc: doc._id, out: mingoProject(spec, doc) });
        // The input is a stored document: only read.
        expect(doc).toEqual(before);
      }
      // Only the odd shapes (an array in an array, a scalar where a map is expected) are left to mingo.
      expect(answered).toBeGreaterThanOrEqual(DOCUMENTS.length - 2);
    },
  );

  it.each(NOT_COMPILED.map((spec) => [JSON.stringify(spec), spec] as const))('leaves %s to mingo', (_name, spec) => {
    expect(compileProject(spec)).toBeUndefined();
  });

  it('leaves values it does not handle to mingo instead of answering them', () => {
    expect(() => compileProject({ n: { $size: '$missing' } })!({ _id: 1 })).toThrow(NotCompiled);
    expect(() => compileProject({ n: { $eq: ['$missing', null] } })!({ _id: 1 })).toThrow(NotCompiled);
    expect(() => compileProject({ n: { $type: '$score' } })!({ _id: 1, score: NaN })).toThrow(NotCompiled);
    expect(() => compileProject({ n: { $add: ['$score', 1] } })!({ _id: 1, score: Long.fromInt(2) })).toThrow(
      NotCompiled,
    );
    expect(() => compileProject({ n: { $max: '$a' } })!({ _id: 1, a: [1, 'x'] })).toThrow(NotCompiled);
    expect(() => compileProject({ n: { $concatArrays: ['$a', 'x'] } })!({ _id: 1, a: [1] })).toThrow(NotCompiled);
    // mingo reads a missing input as the document itself.
    const getField = compileProject({ n: { $getField: { field: 'x', input: '$missing' } } })!;
    expect(() => getField({ _id: 1, x: 1 })).toThrow(NotCompiled);
    expect(() => compileProject({ n: '$a.b' })!({ _id: 1, a: [[{ b: 1 }]] })).toThrow(NotCompiled);
  });
});

describe("$max along a field path (an append's next id)", () => {
  const SPECS: Doc = {
    ids: { $max: { $ifNull: ['$agents.a.messages.message_id', []] } },
    bare: { $max: '$agents.a.messages.message_id' },
    list: { $max: { $ifNull: ['$agents.a.ids', []] } },
    // A name every object inherits: only an own property counts.
    inherited: { $max: { $ifNull: ['$agents.a.messages.toString', []] } },
  };
  const ID_DOCUMENTS: Doc[] = [
    { _id: 1, agents: { a: { messages: [{ message_id: 0 }, { message_id: 5 }, { message_id: 2 }], ids: [3, 1] } } },
    {
      _id: 2,
      agents: { a: { messages: [{ message_id: 1 }, 'damaged', null, { role: 'user' }, { message_id: 4.5 }] } },
    },
    { _id: 3, agents: { a: { messages: [], ids: [] } } },
    { _id: 4, agents: { a: {} } },
    { _id: 5, agents: { a: { messages: [{ message_id: -0 }, { message_id: 0 }, { message: { role: 'user' } }] } } },
    { _id: 6, agents: { a: { messages: { message_id: 7 } } } },
    // Left to mingo: a value that is not a plain number, an array inside an array, arrays on the way.
    { _id: 7, agents: { a: { messages: [{ message_id: 'x' }, { message_id: 2 }] } } },
    { _id: 8, agents: { a: { messages: [[{ message_id: 1 }]] } } },
    { _id: 9, agents: { a: { messages: [{ message_id: [1, 2] }] } } },
    { _id: 10, agents: [{ a: { messages: [{ message_id: 3 }] } }] },
    { _id: 11, agents: { a: { messages: [{ message_id: null }, { message_id: NaN }] } } },
  ];

  it.each(Object.entries(SPECS))('%s answers as mingo does, or leaves the document to it', (name, expression) => {
    const project = compileProject({ [name]: expression })!;
    expect(project).toBeDefined();
    const answered: unknown[] = [];
    for (const doc of ID_DOCUMENTS) {
      let compiled: Doc;
      try {
        compiled = project(doc);
      } catch (error) {
        expect(error).toBeInstanceOf(NotCompiled);
        continue;
      }
      answered.push(doc._id);
      expect({ doc: doc._id, out: compiled }).toEqual({ doc: doc._id, out: mingoProject({ [name]: expression }, doc) });
    }
    // The shapes the engine stores (numeric ids, damage skipped, no list yet) are answered, not left to mingo.
    expect(answered).toEqual(expect.arrayContaining(name === 'bare' ? [1, 2, 3, 5] : [1, 2, 3, 4, 5]));
  });

  it('reads ids over a list of 10,000 messages', () => {
    const messages = Array.from({ length: 10_000 }, (_, id) => ({ message_id: id, role: 'user', content: `m${id}` }));
    const project = compileProject({ next: { $add: [SPECS.ids, 1] } })!;
    expect(project({ _id: 'long', agents: { a: { messages } } })).toEqual({ _id: 'long', next: 10_000 });
  });
});
