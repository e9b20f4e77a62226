import { Tiktoken } from 'js-tiktoken/lite';
import cl100k from 'js-tiktoken/ranks/cl100k_base';
import { createTestApp, type TestApp } from '../../support/app';
import { RecallDocument } from '../../support/generated/graphql';
import { QUERY, seedStore, type Seeded } from './seed';

/** An encoder of the test's own, so the counts are checked against the tokenizer rather than against recall. */
const encoder = new Tiktoken(cl100k);
const tokensOf = (text: string) => encoder.encode(text, [], []).length;

describe('recall: what an agent should know for a task, within a token budget', () => {
  let app: TestApp;
  let seeded: Seeded;
  beforeAll(async () => {
    app = await createTestApp();
    seeded = await seedStore(app);
  });
  afterAll(() => app.close());

  it('composes current experiences, insights, a plan that worked and a failing tool into Markdown', async () => {
    const { recall } = await app.run(RecallDocument, { query: QUERY });
    const ids = (kind: string) => recall.items.filter((item) => item.kind === kind).map((item) => item.id);
    expect(ids('EXPERIENCES')).toEqual(expect.arrayContaining([seeded.berlin, seeded.munich]));
    expect(ids('EXPERIENCES')).not.toContain(seeded.retired);
    expect(ids('INSIGHTS')).toEqual([seeded.carrierInsight]);
    expect(ids('PLANS')).toEqual([seeded.planId]);
    // create_shipment failed 2 of 3 times on the shipping tasks; validate_address never failed.
    expect(ids('TOOL_WARNINGS')).toEqual(['create_shipment']);
    expect(recall.items.find((item) => item.kind === 'TOOL_WARNINGS')!.text).toContain('succeeded 1 of 3 times');
    expect(ids('MESSAGES')).toEqual([seeded.request]);
    expect(recall.items.find((item) => item.kind === 'MESSAGES')!.text).toMatch(
      /^- \*\*user\*\* \(\d{4}-\d\d-\d\d, session chat-1\): Please always ship my parcels/,
    );

    // The sections in order, each item's line in the text, items in the text's order.
    const headings = recall.text.split('\n').filter((line) => line.startsWith('## '));
    expect(headings).toEqual([
      '## Past experiences',
      '## Insights',
      '## Plans that worked',
      '## Tool warnings',
      '## Past messages',
    ]);
    let at = 0;
    for (const item of recall.items) {
      const found = recall.text.indexOf(item.text, at);
      expect(found).toBeGreaterThanOrEqual(at);
      at = found + item.text.length;
      expect(item.tokens).toBe(tokensOf(item.text));
      expect(item.why).not.toBe('');
      expect(item.score).toBeGreaterThanOrEqual(0);
    }
    expect(recall.text).toContain('**SUCCESS** Ship a parcel to the Berlin warehouse — Create the shipment.');
    expect(recall.text).toContain('Lessons: Validate the address before calling create_shipment.');
    expect(recall.text).toContain(
      '`ship_*_to_*_warehouse`: validate_address → create_shipment (100% success over 3 runs)',
    );
    expect(recall).toMatchObject({ budget: 2000, tokens: tokensOf(recall.text) });
    expect(recall.tokens).toBeLessThanOrEqual(2000);
  });

  it('the same store gives the same text and items', async () => {
    const first = await app.run(RecallDocument, { query: QUERY, budget: 300 });
    const second = await app.run(RecallDocument, { query: QUERY, budget: 300 });
    expect(second).toEqual(first);
  });

  it('a small budget keeps the best of each part that fits, never more than the budget', async () => {
    const all = (await app.run(RecallDocument, { query: QUERY })).recall;
    expect(all.tokens).toBeGreaterThan(120);
    for (const budget of [50, 80, 120]) {
      const { recall } = await app.run(RecallDocument, { query: QUERY, budget });
      expect(recall.tokens).toBe(tokensOf(recall.text));
      expect(recall.tokens).toBeLessThanOrEqual(budget);
      expect(recall.items.length).toBeGreaterThan(0);
      expect(recall.items.length).toBeLessThan(all.items.length);
    }
  });

  it('include chooses the parts; scope.userId narrows experiences to that user', async () => {
    const { recall } = await app.run(RecallDocument, { query: QUERY, include: ['PLANS', 'TOOL_WARNINGS'] });
    expect(new Set(recall.items.map((item) => item.kind))).toEqual(new Set(['PLANS', 'TOOL_WARNINGS']));
    const u2 = await app.run(RecallDocument, { query: QUERY, scope: { userId: 'u2' }, include: ['EXPERIENCES'] });
    expect(u2.recall.items.map((item) => item.id)).toEqual([seeded.munich]);
    // sessionId narrows messages: the weather chat has nothing about parcels.
    const chat2 = await app.run(RecallDocument, {
      query: QUERY,
      scope: { sessionId: 'chat-2' },
      include: ['MESSAGES'],
    });
    expect(chat2.recall.items).toEqual([]);
    const chat1 = await app.run(RecallDocument, {
      query: QUERY,
      scope: { sessionId: 'chat-1' },
      include: ['MESSAGES'],
    });
    expect(chat1.recall.items.map((item) => item.id)).toEqual([seeded.request]);
    const nobody = await app.run(RecallDocument, { query: QUERY, scope: { userId: 'nobody', agentId: 'none' } });
    expect(nobody.recall).toEqual({ text: '', tokens: 0, budget: 2000, items: [] });
  });

  it.each([
    [{ query: '  \n ' }, 'query'],
    [{ query: QUERY, budget: 49 }, 'budget'],
    [{ query: QUERY, budget: 100_001 }, 'budget'],
    [{ query: QUERY, include: [] }, 'include'],
    [{ query: QUERY, scope: { userId: ' ' } }, 'scope.userId'],
  ])('%j → BAD_USER_INPUT naming %s', async (variables, field) => {
    const result = await app.execute(RecallDocument, variables as never);
    expect(result.errors).toHaveLength(1);
    expect(result.errors![0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field });
    expect(result.data).toBeNull();
  });

  it('an unknown include part is refused by the enum, naming it, whether a variable or inline', async () => {
    const asVariable = await app.execute(RecallDocument, { query: QUERY, include: ['SECRETS' as never] });
    expect(asVariable.errors![0].extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
    expect(asVariable.errors![0].message).toMatch(/"SECRETS".*RecallPart/);
    const inline = await app.execute(`{ recall(query: "parcel", include: [EXPERIENCES, SECRETS]) { tokens } }`);
    expect(inline.errors![0].extensions).toMatchObject({ code: 'GRAPHQL_VALIDATION_FAILED' });
    expect(inline.errors![0].message).toMatch(/SECRETS.*RecallPart/);
  });
});

describe('recall with the message index off (MESSAGE_INDEX=false)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp({ config: { messageIndex: false } });
    await seedStore(app);
  });
  afterAll(() => app.close());

  it('all parts leave messages out; asking for MESSAGES answers SERVICE_UNAVAILABLE', async () => {
    const { recall } = await app.run(RecallDocument, { query: QUERY });
    expect(recall.items.length).toBeGreaterThan(0);
    expect(recall.items.filter((item) => item.kind === 'MESSAGES')).toEqual([]);
    const asked = await app.execute(RecallDocument, { query: QUERY, include: ['EXPERIENCES', 'MESSAGES'] });
    expect(asked.errors?.[0].extensions).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
  });
});
