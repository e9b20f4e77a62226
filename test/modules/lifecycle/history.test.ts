import { createTestApp, type TestApp } from '../../support/app';

const WRITER = { role: 'writer' as const, tenant: 'default', keyId: 'env-7' };
const HISTORY = 'history { type keyId fields relatedId reason at }';

let app: TestApp;

beforeAll(async () => {
  app = await createTestApp();
});
afterAll(() => app.close());

async function recordExperience(id: string, extra: Record<string, unknown> = {}): Promise<void> {
  await app.run(
    `mutation($input: RecordExperienceInput!) { recordExperience(input: $input) { experienceId } }`,
    {
      input: {
        experienceId: id,
        primaryGoalDescription: `label the parcels ${id}`,
        subTaskDescription: 'print labels',
        initiatingAgentId: 'agent-history',
        sessionId: 'session-history',
        finalOutcome: 'SUCCESS',
        tags: ['labels'],
        ...extra,
      },
    },
    { caller: WRITER },
  );
}

async function historyOf(id: string): Promise<any[]> {
  const data = await app.run(`query($id: ID!) { experience(id: $id, includeSuperseded: true) { ${HISTORY} } }`, { id });
  return data.experience.history;
}

describe('experience history', () => {
  it('records created, updated (the fields that changed), feedback, superseded, with the key and the reason', async () => {
    await recordExperience('hist-1');
    await recordExperience('hist-2');
    await app.run(
      `mutation { updateExperience(id: "hist-1", input: { outputSummary: "printed", tags: ["labels"], version: 2 }) { experienceId } }`,
      {},
      { caller: WRITER },
    );
    await app.run(
      `mutation { addExperienceFeedback(id: "hist-1", signals: { userRating: 4 }) { experienceId } }`,
      {},
      {
        caller: WRITER,
      },
    );
    await app.run(
      `mutation { supersedeExperience(id: "hist-1", by: "hist-2", reason: "new printer") { experienceId } }`,
      {},
      { caller: WRITER },
    );
    const history = await historyOf('hist-1');
    expect(history.map(({ at: _at, ...event }) => event)).toEqual([
      { type: 'CREATED', keyId: 'env-7', fields: null, relatedId: null, reason: null },
      // tags were given unchanged: not listed.
      { type: 'UPDATED', keyId: 'env-7', fields: ['outputSummary', 'version'], relatedId: null, reason: null },
      { type: 'FEEDBACK', keyId: 'env-7', fields: null, relatedId: null, reason: null },
      { type: 'SUPERSEDED', keyId: 'env-7', fields: null, relatedId: 'hist-2', reason: 'new printer' },
    ]);
    const times = history.map((event) => new Date(event.at).getTime());
    expect(times).toEqual([...times].sort((a, b) => a - b));
    // The replacement's own history is its creation only.
    expect((await historyOf('hist-2')).map((event) => event.type)).toEqual(['CREATED']);
  });

  it('copies the scope of the memory into each event, never its content', async () => {
    await recordExperience('hist-3');
    await app.run(`mutation { retireExperience(id: "hist-3", reason: "labels are preprinted") { experienceId } }`);
    const events = await app.db
      .collection('memory_events')
      .find({ memory_id: 'hist-3' }, { projection: { _id: 0 } })
      .toArray();
    // An experience's `created` event is read from its own document (see toHistory), not stored.
    expect(events.map((event) => event.event)).toEqual(['retired']);
    for (const event of events) {
      expect(event).toMatchObject({ kind: 'experience', agent_id: 'agent-history', session_id: 'session-history' });
      expect(JSON.stringify(event)).not.toContain('label the parcels');
    }
    expect((await historyOf('hist-3')).at(-1)).toMatchObject({ type: 'RETIRED', reason: 'labels are preprinted' });
  });

  it('derives an expired event at validUntil when it ended with no supersede or retire', async () => {
    const validUntil = new Date(Date.now() - 60_000);
    await recordExperience('hist-4', { validFrom: new Date(validUntil.getTime() - 60_000), validUntil });
    const history = await historyOf('hist-4');
    expect(history.map((event) => [event.type, event.at])).toEqual([
      ['EXPIRED', validUntil.toISOString()],
      ['CREATED', expect.any(String)],
    ]);
    expect(await app.db.collection('memory_events').countDocuments({ memory_id: 'hist-4', event: 'expired' })).toBe(0);
  });

  it('reads the histories of a page of experiences in one query', async () => {
    const seen: string[] = [];
    const listener = (event: { commandName: string; command: Record<string, unknown> }) => {
      if (event.commandName === 'find' && event.command.find === 'memory_events') seen.push(event.commandName);
    };
    app.client.on('commandStarted', listener);
    try {
      const data = await app.run(
        `query { experiences(first: 10, includeSuperseded: true, filter: { initiatingAgentId: "agent-history" }) {
          edges { node { experienceId history { type } } }
        } }`,
      );
      expect(data.experiences.edges.length).toBeGreaterThanOrEqual(4);
      expect(data.experiences.edges.every((edge: any) => edge.node.history.length > 0)).toBe(true);
    } finally {
      app.client.off('commandStarted', listener);
    }
    expect(seen).toHaveLength(1);
  });
});

describe('insight history', () => {
  it('records created, feedback on validation, and superseded', async () => {
    const record = async (text: string) =>
      (
        await app.run(
          `mutation($text: String!) { recordInsight(input: { agentType: EXECUTOR, type: PATTERNS, insight: $text }) { id } }`,
          { text },
          { caller: WRITER },
        )
      ).recordInsight.id as string;
    const old = await record('Labels stick better when warm');
    const fresh = await record('Labels stick better on clean boxes');
    // Recorded again: the same lesson, no new event.
    await record('labels stick better when warm');
    await app.run(
      `mutation($id: ID!) { validateInsight(id: $id, valid: true) { id } }`,
      { id: old },
      { caller: WRITER },
    );
    await app.run(
      `mutation($id: ID!, $by: ID!) { supersedeInsight(id: $id, by: $by, reason: "warmth did not matter") { id } }`,
      { id: old, by: fresh },
      { caller: WRITER },
    );
    const data = await app.run(
      `query($id: ID!) { node(id: $id, includeSuperseded: true) { ... on AgentInsight { ${HISTORY} } } }`,
      {
        id: old,
      },
    );
    expect(data.node.history.map(({ at: _at, ...event }: any) => event)).toEqual([
      { type: 'CREATED', keyId: 'env-7', fields: null, relatedId: null, reason: null },
      { type: 'FEEDBACK', keyId: 'env-7', fields: null, relatedId: null, reason: null },
      { type: 'SUPERSEDED', keyId: 'env-7', fields: null, relatedId: fresh, reason: 'warmth did not matter' },
    ]);
  });
});
