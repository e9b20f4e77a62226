import fc from 'fast-check';
import { dedupeKey, nameTheSameThings, normalizeForDedupe } from '../../../src/modules/experiences/experience.dedupe';

/** The longest run of combining marks in a text (code points). */
function longestMarkRun(text: string): number {
  let longest = 0;
  for (const run of text.match(/\p{M}+/gu) ?? []) longest = Math.max(longest, [...run].length);
  return longest;
}

describe('normalizeForDedupe', () => {
  it.each([
    ['Find a delayed order.', 'find a delayed order'],
    ['  FIND   a\u00a0delayed\norder!!  ', 'find a delayed order'],
    ['“Find a delayed order”', 'find a delayed order'],
    ['Ｆｉｎｄ ａ ｄｅｌａｙｅｄ ｏｒｄｅｒ', 'find a delayed order'],
    ['Straße', 'strasse'],
    ['STRASSE', 'strasse'],
    ['ΟΔΟΣ', 'οδος'],
    ['οδοσ', 'οδος'],
    ['ﬁle the report', 'file the report'],
    ['Deploy 🚀', 'deploy 🚀'],
    ['...', ''],
    ['¿Dónde está el pedido?', 'dónde está el pedido'],
    ['注文を探す。', '注文を探す'],
  ])('%j normalises to %j', (text, expected) => {
    expect(normalizeForDedupe(text)).toBe(expected);
  });

  it('keeps punctuation inside the text and the order of words', () => {
    expect(normalizeForDedupe('Refund invoice 44-11, then close it.')).toBe('refund invoice 44-11, then close it');
    expect(normalizeForDedupe('from Berlin to Lisbon')).not.toBe(normalizeForDedupe('from Lisbon to Berlin'));
  });

  it('cuts a run of combining marks at 30, so that the normaliser never reorders a long run (Zalgo)', () => {
    // ICU reorders a run of marks by insertion: alternating classes (230, 220) are its worst case.
    const zalgo = 'a' + '\u0301\u0316'.repeat(100_000) + ' b';
    const normalised = normalizeForDedupe(zalgo);
    expect(longestMarkRun(normalised)).toBeLessThanOrEqual(30);
    expect(normalised.endsWith(' b')).toBe(true);
    // Halfwidth voiced marks decompose to combining marks: they count in the run too.
    const halfwidth = 'ｶ' + '\uff9e\u0301'.repeat(50_000);
    expect(longestMarkRun(normalizeForDedupe(halfwidth))).toBeLessThanOrEqual(30);
  });

  it('long hostile texts come out no longer than their compatibility expansion and punctuation runs are trimmed in one pass', () => {
    const punctuation = '!'.repeat(200_000) + 'x' + '?'.repeat(200_000);
    expect(normalizeForDedupe(punctuation)).toBe('x');
    const spaces = 'a' + ' \t\n'.repeat(200_000) + 'b';
    expect(normalizeForDedupe(spaces)).toBe('a b');
    const mixed = 'Заказ 注文 طلب order '.repeat(20_000);
    expect(normalizeForDedupe(mixed)).toBe(mixed.trim().toLowerCase());
    // U+FDFA expands to 18 characters under NFKC, the most any character does.
    const expanding = '\ufdfa'.repeat(10_000);
    expect(normalizeForDedupe(expanding).length).toBeLessThanOrEqual(18 * expanding.length);
  });

  it('is stable under edge whitespace and punctuation, and its output has no edge whitespace, on any text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), (text) => {
        const normalised = normalizeForDedupe(text);
        expect(normalizeForDedupe(`  ${text} \n`)).toBe(normalised);
        expect(normalised).toBe(normalised.trim());
        expect(/\s\s/u.test(normalised)).toBe(false);
        expect(longestMarkRun(normalised)).toBeLessThanOrEqual(60);
        expect(normalised.length).toBeLessThanOrEqual(18 * text.length);
      }),
      { numRuns: 500 },
    );
  });
});

describe('dedupeKey and nameTheSameThings', () => {
  const memory = {
    initiating_agent_id: 'agent',
    final_outcome: 'success',
    primary_goal_description: 'Find a delayed order',
    sub_task_description: 'Look it up',
  };

  it('one key for texts that normalise alike; another for another agent, user, outcome, goal or sub-task', () => {
    const key = dedupeKey(memory);
    expect(dedupeKey({ ...memory, primary_goal_description: ' find a DELAYED order. ' })).toBe(key);
    expect(dedupeKey({ ...memory, user_id: null })).toBe(key);
    for (const other of [
      { initiating_agent_id: 'agent-2' },
      { user_id: 'user-1' },
      { final_outcome: 'failure' },
      { primary_goal_description: 'Cancel a delayed order' },
      { sub_task_description: 'Look it up again' },
    ])
      expect(dedupeKey({ ...memory, ...other })).not.toBe(key);
    // The parts cannot run into each other.
    expect(dedupeKey({ ...memory, primary_goal_description: 'a', sub_task_description: 'b c' })).not.toBe(
      dedupeKey({ ...memory, primary_goal_description: 'a b', sub_task_description: 'c' }),
    );
  });

  it('names the same things only with the same words in the same order, articles and inflection aside', () => {
    expect(nameTheSameThings('Restart the stuck payment workers', 'restart stuck payment worker')).toBe(true);
    expect(nameTheSameThings('Find a delayed order', 'Cancel a delayed order')).toBe(false);
    expect(nameTheSameThings('Cancel customer C-2001', 'Cancel customer C-2002')).toBe(false);
    expect(nameTheSameThings('Book a flight from Berlin to Lisbon', 'Book a flight from Lisbon to Berlin')).toBe(false);
    expect(nameTheSameThings('Book a flight for Alice', 'Book a flight by Alice')).toBe(false);
    expect(nameTheSameThings('Turn on maintenance mode', 'Turn off maintenance mode')).toBe(false);
  });
});
