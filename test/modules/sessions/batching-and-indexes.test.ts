import type { Document } from 'mongodb';
import { compileProject, NotCompiled } from '@hindsight/engine';
import { createTestApp, type TestApp } from '../../support/app';
import { SessionRepository } from '../../../src/modules/sessions/session.repository';
import { SessionsWithAgentsDocument } from '../../support/generated/graphql';

const SESSIONS = 50;

function seedSession(index: number) {
  const at = new Date(Date.UTC(2024, 0, 1, 0, index));
  const messages = (agent: string) =>
    [1, 2, 3].map((id) => ({
      message_id: id,
      role: id % 2 ? 'user' : 'assistant',
      content: `${agent} ${index}.${id}`,
      created_at: at,
      updated_at: at,
    }));
  return {
    _id: `s-${index}`,
    session_id: `s-${index}`,
    session_type: 'default',
    created_at: at,
    updated_at: at,
    metadata: {},
    feedbacks: [],
    agents: Object.fromEntries(
      ['planner', 'writer'].map((agent) => [
        agent,
        { agent_data: { agent_id: agent }, created_at: at, updated_at: at, messages: messages(agent) },
      ]),
    ),
  };
}

describe('sessions: DataLoader batching and indexes', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp({ config: { metadataIndexFields: ['priority', 'department'], maxAliases: SESSIONS } });
    // Counts commands: the message index would read the sessions written behind the server's back at any moment.
    await app.deps.messageIndex.forDb(app.db).close();
    await app.db
      .collection('sessions')
      .insertMany(Array.from({ length: SESSIONS }, (_, index) => seedSession(index)) as any[]);
  });
  afterAll(() => app.close());

  it('reads sessions with projections the embedded engine runs as compiled closures', async () => {
    // mingo interprets a projection per document several times slower: one operator the compiler does not know
    // sends the whole read there.
    app.commands.reset();
    await app.run(`query Reads {
      session(id: "s-1") { sessionType agents { agentId messageCount agentData { model } messages(last: 2) { edges { node { messageId role content } } } } }
      sessions(first: 20) { edges { node { sessionId agents { agentId messageCount lastMessage { messageId role content } } } } }
    }`);
    const projections = app.commands.events
      .filter((event) => event.commandName === 'aggregate' && event.command.aggregate === 'sessions')
      .flatMap((event) => (event.command.pipeline as Document[]).filter((stage) => '$project' in stage));
    expect(projections.length).toBeGreaterThanOrEqual(2);
    const stored = await app.db.collection('sessions').find().toArray();
    for (const { $project: spec } of projections) {
      const project = compileProject(spec);
      expect({ spec, compiled: project !== undefined }).toEqual({ spec, compiled: true });
      for (const document of stored) {
        try {
          project!(document);
        } catch (error) {
          expect(error).not.toBeInstanceOf(NotCompiled);
          throw error;
        }
      }
    }
  });

  it("resolves 50 sessions' agents and last messages with one read of the sessions collection", async () => {
    // One document with 50 aliased session(id) fields: each resolves through ctx.loaders.sessionById.
    const fields = Array.from(
      { length: SESSIONS },
      (_, index) =>
        `s${index}: session(id: "s-${index}") { sessionId agents { agentId messageCount lastMessage { messageId text } } }`,
    );
    app.commands.reset();
    const data = await app.run(`query ManySessions {\n${fields.join('\n')}\n}`);
    expect(app.commands.count(undefined, 'sessions')).toBe(1);
    expect(app.commands.count('aggregate', 'sessions')).toBe(1);
    for (let index = 0; index < SESSIONS; index++) {
      expect(data[`s${index}`]).toEqual({
        sessionId: `s-${index}`,
        agents: ['planner', 'writer'].map((agent) => ({
          agentId: agent,
          messageCount: 3,
          lastMessage: { messageId: 3, text: `${agent} ${index}.3` },
        })),
      });
    }
  });

  it("pages the messages of 50 sessions' agents in the sessions' own read, not one read per agent", async () => {
    const fields = Array.from(
      { length: SESSIONS },
      (_, index) =>
        `s${index}: session(id: "s-${index}") { agents { messages(last: 2) { totalCount edges { node { messageId text } } } } }`,
    );
    app.commands.reset();
    const data = await app.run(`query ManyPages {\n${fields.join('\n')}\n}`);
    expect(app.commands.count(undefined, 'sessions')).toBe(1);
    for (let index = 0; index < SESSIONS; index++) {
      expect(data[`s${index}`].agents).toEqual(
        ['planner', 'writer'].map((agent) => ({
          messages: {
            totalCount: 3,
            edges: [2, 3].map((id) => ({ node: { messageId: id, text: `${agent} ${index}.${id}` } })),
          },
        })),
      );
    }
  });

  it('lists 50 sessions with their agents and last messages in one command (totalCount is not selected: no count)', async () => {
    app.commands.reset();
    const data = await app.run(SessionsWithAgentsDocument, { first: SESSIONS });
    expect(data.sessions.edges).toHaveLength(SESSIONS);
    expect(data.sessions.edges[0].node).toEqual({
      sessionId: 's-49',
      messageCount: 6,
      agents: [
        { agentId: 'planner', messageCount: 3, lastMessage: { messageId: 3, text: 'planner 49.3' } },
        { agentId: 'writer', messageCount: 3, lastMessage: { messageId: 3, text: 'writer 49.3' } },
      ],
    });
    expect(app.commands.count(undefined, 'sessions')).toBe(1);
  });

  it('reads session summaries without message arrays: per-agent counts, token sums and the last message only', async () => {
    const [summary] = await new SessionRepository(app.db).findSummaries(['s-1']);
    expect(summary.agents.map((agent) => Object.keys(agent).sort())).toEqual(
      Array(2).fill([
        'agent_data',
        'agent_id',
        'created_at',
        'input_tokens',
        'last_message',
        'message_count',
        'output_tokens',
        'total_tokens',
        'updated_at',
      ]),
    );
    expect(summary.agents[0]).toMatchObject({
      agent_id: 'planner',
      message_count: 3,
      last_message: { message_id: 3, content: 'planner 1.3' },
    });
  });

  it('creates the created_at, updated_at and METADATA_INDEX_FIELDS indexes at startup', async () => {
    const indexes = await app.db.collection('sessions').listIndexes().toArray();
    const keys = indexes.map((index) => JSON.stringify(index.key));
    expect(keys).toEqual(
      expect.arrayContaining([
        JSON.stringify({ created_at: 1 }),
        JSON.stringify({ updated_at: 1 }),
        JSON.stringify({ 'metadata.priority': 1 }),
        JSON.stringify({ 'metadata.department': 1 }),
      ]),
    );
    expect(indexes.map((index) => index.name)).toEqual(
      expect.arrayContaining(['created_at_1', 'updated_at_1', 'metadata.priority_1']),
    );
  });
});
