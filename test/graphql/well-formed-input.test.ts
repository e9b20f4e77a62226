import { createTestApp, type TestApp } from '../support/app';
import {
  AppendMessageDocument,
  CreateSessionDocument,
  RecordExperiencesDocument,
  UpsertAgentDocument,
} from '../support/generated/graphql';

const LONE = 'agent\uD800';
const experience = (overrides: Record<string, unknown> = {}) => ({
  primaryGoalDescription: 'Book a flight.',
  subTaskDescription: 'Search flights.',
  initiatingAgentId: 'agent_booking',
  finalOutcome: 'SUCCESS' as const,
  ...overrides,
});

describe('mutations refuse ill-formed UTF-16 (a lone surrogate) before writing anything', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
    await app.run(CreateSessionDocument, { input: { sessionId: 'utf16' } });
  });
  afterAll(() => app.close());

  const stored = async () => app.db.collection('sessions').findOne({ _id: 'utf16' as never });

  it('upsertAgent with a lone surrogate in agentId: BAD_USER_INPUT naming input.agentId, no agent stored', async () => {
    const result = await app.execute(UpsertAgentDocument, {
      sessionId: 'utf16',
      input: { agentId: LONE, agentData: {} },
    });
    expect(result.errors?.map((error) => error.extensions)).toEqual([
      { code: 'BAD_USER_INPUT', field: 'input.agentId' },
    ]);
    expect((await stored())?.agents ?? {}).toEqual({});
  });

  it('appendMessage with a lone surrogate in agentId: BAD_USER_INPUT naming agentId, no agent or message stored', async () => {
    const result = await app.execute(AppendMessageDocument, {
      sessionId: 'utf16',
      agentId: LONE,
      input: { role: 'USER', content: [{ text: 'hi' }] },
    });
    expect(result.errors?.map((error) => error.extensions)).toEqual([{ code: 'BAD_USER_INPUT', field: 'agentId' }]);
    expect((await stored())?.agents ?? {}).toEqual({});
  });

  it('a metadata key is named too, and a literal is refused by the parser', async () => {
    const literal = await app.execute(
      'mutation { appendMessage(sessionId: "utf16", agentId: "a\\uD800", input: { role: USER, content: "hi" }) { messageId } }',
    );
    expect(literal.errors?.[0].extensions?.code).toBe('GRAPHQL_PARSE_FAILED');
    expect((await stored())?.agents ?? {}).toEqual({});
    const key = await app.execute(CreateSessionDocument, {
      input: { sessionId: 'utf16-b', metadata: { ['k\uDC00']: 1 } },
    });
    expect(key.errors?.[0].extensions).toEqual({ code: 'BAD_USER_INPUT', field: 'input.metadata.k\uDC00' });
    expect(await app.db.collection('sessions').countDocuments({ _id: 'utf16-b' as never })).toBe(0);
  });

  it('recordExperiences([valid, invalid]): BAD_USER_INPUT naming inputs[1].primaryGoalDescription, nothing stored', async () => {
    const result = await app.execute(RecordExperiencesDocument, {
      inputs: [experience({ experienceId: 'first' }), experience({ primaryGoalDescription: 'Book \uDC00 a flight.' })],
    });
    expect(result.errors?.map((error) => error.extensions)).toEqual([
      { code: 'BAD_USER_INPUT', field: 'inputs[1].primaryGoalDescription' },
    ]);
    expect(await app.db.collection('eat_agent_experiences').countDocuments()).toBe(0);
  });

  it('a well-formed surrogate pair is stored as given', async () => {
    const agentId = 'agent\uD83D\uDE00';
    await app.run(UpsertAgentDocument, { sessionId: 'utf16', input: { agentId, agentData: {} } });
    expect(Object.keys((await stored())!.agents)).toEqual([agentId]);
  });
});
