import {
  argsSummary,
  compressActions,
  relevanceAtLeast,
  toolCallLine,
  type CompressibleAction,
} from '../../../src/modules/runs/run.compress-actions';

/**
 * Seed 004's own examples: the tools "search" and "read_file", the attempts
 * "searched 'python tutorial' → found 3 results, too general for debugging" and
 * "read logs/error.log → file empty, suggests logging not configured".
 */
const SEARCH_INSIGHT = "searched 'python tutorial' → found 3 results, too general for debugging";
const READ_INSIGHT = 'read logs/error.log → file empty, suggests logging not configured';

const phase1: CompressibleAction[] = [
  {
    tool_calls: [
      { name: 'search', args: { query: 'python tutorial' }, outcome: 'success', insights: '', relevance: '' },
    ],
  },
  {
    tool_calls: [
      { name: 'read_file', args: { path: 'logs/error.log' }, outcome: 'success', insights: '', relevance: '' },
    ],
  },
];

describe('compress_actions, phase 1', () => {
  it("renders the seed's calls as name(args_summary) → outcome, in iteration order", () => {
    expect(compressActions(phase1)).toEqual([
      "search(query='python tutorial') → success",
      "read_file(path='logs/error.log') → success",
    ]);
  });

  it('keeps every call of an iteration in call order, whatever the outcome', () => {
    const actions: CompressibleAction[] = [
      {
        tool_calls: [
          { name: 'read_file', args: { path: 'config.yaml' }, outcome: 'failure' },
          { name: 'run_tests', args: {}, outcome: 'timeout' },
          { name: 'python', args: { code: 'print(1' }, outcome: 'error' },
        ],
      },
      { tool_calls: [] },
    ];
    expect(compressActions(actions)).toEqual([
      "read_file(path='config.yaml') → failure",
      'run_tests() → timeout',
      "python(code='print(1') → error",
    ]);
  });
});

describe('args_summary', () => {
  it('quotes strings with whitespace collapsed and writes numbers, booleans and null as JSON, in the given order', () => {
    expect(argsSummary({ query: '  python\n  tutorial ', limit: 10, exact: false, lang: null })).toBe(
      "query='python tutorial', limit=10, exact=false, lang=null",
    );
    expect(argsSummary({ b: 1, a: 2 })).toBe('b=1, a=2');
  });

  it('writes lists and objects as compact JSON', () => {
    expect(argsSummary({ ids: [1, 2, 3], filter: { status: 'open' } })).toBe('ids=[1,2,3], filter={"status":"open"}');
  });

  it('cuts a value longer than 40 characters and marks the cut with …', () => {
    const long = 'x'.repeat(45);
    expect(argsSummary({ text: long })).toBe(`text='${'x'.repeat(40)}…'`);
    expect(argsSummary({ text: 'y'.repeat(40) })).toBe(`text='${'y'.repeat(40)}'`);
    // The JSON of 0..29 cut after its 40th character.
    expect(argsSummary({ ids: Array.from({ length: 30 }, (_, i) => i) })).toBe(
      'ids=[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,1…',
    );
  });

  it('never splits a character made of two UTF-16 units', () => {
    expect(argsSummary({ text: '😀'.repeat(41) })).toBe(`text='${'😀'.repeat(40)}…'`);
  });

  it('shows five arguments and summarises the rest as …', () => {
    expect(argsSummary({ a: 1, b: 2, c: 3, d: 4, e: 5 })).toBe('a=1, b=2, c=3, d=4, e=5');
    expect(argsSummary({ a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7 })).toBe('a=1, b=2, c=3, d=4, e=5, …');
  });

  it('is empty for no arguments', () => {
    expect(argsSummary({})).toBe('');
    expect(toolCallLine({ name: 'list_facilities', args: null, outcome: 'success' })).toBe(
      'list_facilities() → success',
    );
  });
});

describe('compress_actions, phase 2', () => {
  const phase2: CompressibleAction[] = [
    {
      tool_calls: [
        {
          name: 'search',
          args: { query: 'python tutorial' },
          outcome: 'success',
          insights: SEARCH_INSIGHT,
          relevance: 'medium',
        },
        {
          name: 'search',
          args: { query: 'weather' },
          outcome: 'success',
          insights: 'weather is sunny, unrelated',
          relevance: 'low',
        },
      ],
    },
    {
      tool_calls: [
        {
          name: 'read_file',
          args: { path: 'logs/error.log' },
          outcome: 'success',
          insights: READ_INSIGHT,
          relevance: 'high',
        },
        // Not enriched yet: falls back to its phase-1 line at every level.
        { name: 'read_file', args: { path: 'app.py' }, outcome: 'failure', insights: '', relevance: 'low' },
        // Insights without a rating rank below every level.
        {
          name: 'grep',
          args: { pattern: 'logger' },
          outcome: 'success',
          insights: 'logger is never configured',
          relevance: '',
        },
      ],
    },
  ];

  it("with the default MEDIUM: the seed's medium and high insights, phase-1 lines for calls without insights", () => {
    expect(compressActions(phase2)).toEqual([SEARCH_INSIGHT, READ_INSIGHT, "read_file(path='app.py') → failure"]);
  });

  it('with HIGH: only high insights (and the fallback lines)', () => {
    expect(compressActions(phase2, 'high')).toEqual([READ_INSIGHT, "read_file(path='app.py') → failure"]);
  });

  it('with LOW: every rated insight', () => {
    expect(compressActions(phase2, 'low')).toEqual([
      SEARCH_INSIGHT,
      'weather is sunny, unrelated',
      READ_INSIGHT,
      "read_file(path='app.py') → failure",
    ]);
  });

  it('treats blank insights as none', () => {
    expect(
      compressActions(
        [{ tool_calls: [{ name: 'search', args: { q: 'x' }, outcome: 'success', insights: '   ', relevance: 'low' }] }],
        'high',
      ),
    ).toEqual(["search(q='x') → success"]);
  });

  it('orders relevance low < medium < high, with no rating below all', () => {
    expect(relevanceAtLeast('high', 'medium')).toBe(true);
    expect(relevanceAtLeast('medium', 'medium')).toBe(true);
    expect(relevanceAtLeast('low', 'medium')).toBe(false);
    expect(relevanceAtLeast('low', 'low')).toBe(true);
    expect(relevanceAtLeast('', 'low')).toBe(false);
    expect(relevanceAtLeast(null, 'low')).toBe(false);
  });
});
