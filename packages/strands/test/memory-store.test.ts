import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Agent, MemoryManager } from '@strands-agents/sdk';
import { HindsightClient, HindsightError, HindsightMemoryStore } from '../src/index.js';
import { SessionMessagesDocument, UserExperiencesDocument, UserInsightsDocument } from './generated/graphql.js';
import { ScriptedModel } from './support/scripted-model.js';
import { KEYS, startHindsight, type RunningHindsight } from './support/server.js';

describe('HindsightMemoryStore with a Strands Agent', () => {
  let hindsight: RunningHindsight;
  let client: HindsightClient;
  before(async () => {
    hindsight = await startHindsight();
    client = new HindsightClient({ url: hindsight.url, apiKey: KEYS.reader });
  });
  after(() => hindsight.stop());

  const storeFor = (sessionId: string, extra: Partial<ConstructorParameters<typeof HindsightMemoryStore>[0]> = {}) =>
    new HindsightMemoryStore({
      url: hindsight.url,
      apiKey: KEYS.writer,
      agentId: 'travel-agent',
      userId: 'ada',
      sessionId,
      ...extra,
    });

  it("a fact taught in one session through add_memory is in the model's input in a new session", async () => {
    const fact = "Ada's favourite airline is Aurora Air, always an aisle seat.";
    const teacher = new ScriptedModel([
      { toolUse: { name: 'add_memory', toolUseId: 't1', input: { entries: [fact] } } },
      { text: 'Noted.' },
    ]);
    const first = new Agent({
      model: teacher,
      printer: false,
      memoryManager: new MemoryManager({ stores: [storeFor('trip-1')], addToolConfig: true }),
    });
    await first.invoke('Remember: my favourite airline is Aurora Air, and I want an aisle seat.');
    // The tool's write reached Hindsight as an insight of this agent and user.
    const { agentInsights } = await client.request(UserInsightsDocument, {
      agentType: 'EXECUTOR',
      agentId: 'travel-agent',
      userId: 'ada',
    });
    assert.deepEqual(agentInsights.insights, [{ insight: fact, agentId: 'travel-agent', userId: 'ada' }]);

    const answering = new ScriptedModel([{ text: 'Booked on Aurora Air.' }]);
    const second = new Agent({
      model: answering,
      printer: false,
      memoryManager: new MemoryManager({ stores: [storeFor('trip-2')] }),
    });
    await second.invoke('Book me a flight to Lisbon on my favourite airline.');
    assert.equal(answering.inputs.length, 1);
    // The SDK injects what search returned as a <memory> block of the user's turn.
    assert.match(answering.seen(0), /<memory>[^<]*<entry source=\\"hindsight\\">[^<]*Aurora Air, always an aisle seat/);
    // Nothing was injected into the first run's first call: the store was empty then.
    assert.doesNotMatch(teacher.seen(0), /<memory>/);
  });

  it('search answers recall items with their kind, id, score and why; add as an experience is recalled too', async () => {
    const store = storeFor('trip-3', { addAs: 'experience' });
    const added = await store.add('Rebooked a cancelled Lisbon flight through the Aurora Air desk', {
      outcome: 'success',
    });
    assert.equal(added.kind, 'experience');
    const { experiences } = await client.request(UserExperiencesDocument, {
      filter: { userId: 'ada', initiatingAgentId: 'travel-agent' },
    });
    assert.deepEqual(
      experiences.edges.map((edge) => edge.node.primaryGoalDescription),
      ['Rebooked a cancelled Lisbon flight through the Aurora Air desk'],
    );
    const entries = await store.search('cancelled Lisbon flight', { maxSearchResults: 10 });
    const experience = entries.find((entry) => entry.metadata?.kind === 'EXPERIENCES');
    assert.ok(experience, `no experience among ${JSON.stringify(entries)}`);
    assert.equal(experience.metadata?.id, added.id);
    assert.match(experience.content, /Rebooked a cancelled Lisbon flight/);
    assert.equal(typeof experience.metadata?.score, 'number');
    assert.ok(String(experience.metadata?.why).length > 0);
    assert.ok((await store.search('cancelled Lisbon flight', { maxSearchResults: 1 })).length <= 1);
  });

  it('extraction hands the conversation to addMessages: it is readable through the session query', async () => {
    const memoryManager = new MemoryManager({ stores: [storeFor('trip-4', { extraction: true })] });
    const agent = new Agent({
      model: new ScriptedModel([{ text: 'Lisbon in May is warm.' }]),
      printer: false,
      memoryManager,
    });
    await agent.invoke('What is the weather in Lisbon in May?');
    await memoryManager.flush();
    const { session } = await client.request(SessionMessagesDocument, { sessionId: 'trip-4', agentId: 'travel-agent' });
    assert.equal(session.userId, 'ada');
    assert.deepEqual(
      session.agent?.messages.edges.map(({ node }) => [node.messageId, node.role, node.text]),
      [
        [0, 'USER', 'What is the weather in Lisbon in May?'],
        [1, 'ASSISTANT', 'Lisbon in May is warm.'],
      ],
    );
    assert.deepEqual(session.agent?.messages.edges[1].node.content, [{ text: 'Lisbon in May is warm.' }]);

    // What was said is memory now: recall's MESSAGES part brings the question into another session's model input.
    const model = new ScriptedModel([{ text: 'Warm, as you were told.' }]);
    const later = new Agent({
      model,
      printer: false,
      memoryManager: new MemoryManager({ stores: [storeFor('trip-4b')] }),
    });
    await later.invoke('Remind me: what weather did you say Lisbon has in May?');
    assert.match(model.seen(0), /<memory>.*session trip-4\): What is the weather in Lisbon in May\?.*<\/memory>/);
  });

  it('a batch retried after its answer was lost is stored once', async () => {
    let dropNext = true;
    const store = storeFor('trip-5', {
      // The request reaches Hindsight and is written; the connection then fails before the answer is read.
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        if (dropNext && String(init?.body).includes('AppendMessages')) {
          dropNext = false;
          throw new TypeError('fetch failed');
        }
        return response;
      },
    });
    const batch = [
      { role: 'user' as const, content: [{ text: 'ok' }] },
      { role: 'assistant' as const, content: [{ text: 'ok' }] },
    ];
    await assert.rejects(store.addMessages(batch, { sequenceNumbers: [0, 1] }), /fetch failed/);
    assert.deepEqual(await store.addMessages(batch, { sequenceNumbers: [0, 1] }), [0, 1]);
    // The same messages in a later run (numbers reset) are new messages.
    assert.deepEqual(await store.addMessages(batch, { sequenceNumbers: [0, 1] }), [2, 3]);
    const { session } = await client.request(SessionMessagesDocument, { sessionId: 'trip-5', agentId: 'travel-agent' });
    assert.equal(session.agent?.messages.edges.length, 4);
  });

  it("Hindsight's refusals are thrown with their code, never answered as an empty result", async () => {
    const unknownKey = storeFor('trip-6', { apiKey: 'not-a-key' });
    await assert.rejects(unknownKey.search('anything'), (error: unknown) => {
      assert.ok(error instanceof HindsightError);
      assert.equal(error.code, 'UNAUTHENTICATED');
      assert.equal(error.status, 401);
      return true;
    });
    const reader = storeFor('trip-6', { apiKey: KEYS.reader });
    await assert.rejects(reader.add('a fact'), { name: 'HindsightError', code: 'FORBIDDEN' });
    const longAgent = storeFor('trip-6', { agentId: 'a'.repeat(201) });
    await assert.rejects(longAgent.add('a fact'), (error: unknown) => {
      assert.ok(error instanceof HindsightError);
      assert.equal(error.code, 'BAD_USER_INPUT');
      assert.equal(error.field, 'input.agentId');
      assert.match(error.message, /BAD_USER_INPUT/);
      return true;
    });
    // recall's own refusal (a budget under 50) reaches the caller of search.
    await assert.rejects(storeFor('trip-6', { budget: 10 }).search('flights'), {
      name: 'HindsightError',
      code: 'BAD_USER_INPUT',
    });
    // Through the SDK: the programmatic add of a MemoryManager fails with the store's error inside.
    const manager = new MemoryManager({ stores: [reader] });
    await assert.rejects(manager.add('a fact'), (error: unknown) => {
      assert.ok(error instanceof AggregateError);
      assert.equal((error.errors[0] as HindsightError).code, 'FORBIDDEN');
      return true;
    });
  });
});
