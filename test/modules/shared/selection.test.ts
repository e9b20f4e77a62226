import { createTestApp, stopFollowing, type TestApp } from '../../support/app';

/**
 * Reads fetch what the operation selects (session.selection.ts, the lazy totalCount of shared/connection.ts): the
 * answers stay those of a full read, with fewer commands and less work in the database.
 */
const at = new Date(Date.UTC(2025, 0, 1));
const message = (id: number, role: string, tokens: number) => ({
  message_id: id,
  role,
  content: `message ${id}`,
  created_at: at,
  updated_at: at,
  event_loop_metrics: { accumulated_usage: { inputTokens: tokens, outputTokens: tokens, totalTokens: 2 * tokens } },
});
const agent = (count: number) => ({
  agent_data: { agent_id: 'x', model: 'm' },
  created_at: at,
  updated_at: at,
  messages: Array.from({ length: count }, (_, i) => message(i + 1, i % 2 ? 'assistant' : 'user', i + 1)),
});

describe('reads fetch what the operation selects', () => {
  let app: TestApp;
  /** The `$project` of the sessions aggregate an operation sent, and how many commands it sent. */
  const read = async (query: string, variables?: Record<string, unknown>) => {
    app.commands.reset();
    const data = await app.run(query, variables);
    const aggregate = app.commands.events.find(
      (event) => event.commandName === 'aggregate' && event.command.aggregate === 'sessions',
    );
    const project = aggregate?.command.pipeline.find((stage: Record<string, unknown>) => stage.$project)?.$project;
    return { data, commands: app.commands.count(), project: JSON.stringify(project ?? null) };
  };

  beforeAll(async () => {
    app = await createTestApp();
    // Counts commands: the search spaces' change streams would add theirs at any moment.
    await stopFollowing(app);
    await app.db.collection('sessions').insertOne({
      _id: 'p-1',
      session_id: 'p-1',
      session_type: 'default',
      created_at: at,
      updated_at: at,
      metadata: { team: 'a' },
      feedbacks: [],
      agents: { planner: agent(6), writer: agent(3) },
    } as never);
    await app.db.collection('eat_agent_experiences').insertOne({
      experience_id: 'e-1',
      primary_goal_description: 'goal',
      sub_task_description: 'sub',
      initiating_agent_id: 'a',
      final_outcome: 'success',
      timestamp: at,
      session_id: 'p-1',
    });
  });
  afterAll(() => app.close());

  it('an experience list selecting only session ids reads no agents, counts or token sums', async () => {
    const { data, commands, project } = await read(
      '{ experiences(first: 5) { edges { node { session { sessionId sessionType } } } } }',
    );
    expect(data.experiences.edges[0].node.session).toEqual({ sessionId: 'p-1', sessionType: 'default' });
    expect(commands).toBe(2); // the page (no count: totalCount is not selected) and the sessions
    expect(project).not.toContain('$objectToArray');
    expect(project).not.toContain('metadata');
  });

  it('metadata, feedbacks and agent_data are read when selected, and only then', async () => {
    const without = await read('{ session(id: "p-1") { agents { agentId } } }');
    expect(without.project).not.toMatch(/metadata|feedbacks|agent_data/);
    const selected = await read(
      '{ session(id: "p-1") { metadata feedbacks { comment } agents { agentData { model raw } } } }',
    );
    for (const field of ['metadata', 'feedbacks', 'agent_data']) expect(selected.project).toContain(field);
    expect(selected.data.session).toEqual({
      metadata: { team: 'a' },
      feedbacks: [],
      agents: [
        { agentData: { model: 'm', raw: { agent_id: 'x', model: 'm' } } },
        { agentData: { model: 'm', raw: { agent_id: 'x', model: 'm' } } },
      ],
    });
  });

  it('token sums are computed only when tokenUsage is selected, also through a fragment', async () => {
    const plain = await read('{ session(id: "p-1") { agents { agentId messageCount } } }');
    expect(plain.project).not.toContain('$sum');
    expect(plain.data.session.agents).toEqual([
      { agentId: 'planner', messageCount: 6 },
      { agentId: 'writer', messageCount: 3 },
    ]);
    const viaFragment = await read(
      'query { session(id: "p-1") { ...Usage } } fragment Usage on Session { ... on Session { tokenUsage { input total } messageCount } }',
    );
    expect(viaFragment.project).toContain('$sum');
    expect(viaFragment.data.session).toEqual({ tokenUsage: { input: 21 + 6, total: 2 * (21 + 6) }, messageCount: 9 });
  });

  it('pages of messages selected under aliases, fragments and variables come with the session: one read in all', async () => {
    const query = `query Pages($n: Int!) {
      session(id: "p-1") {
        agents { agentId ...Pages }
        one: agent(agentId: "writer") { messages(first: 1) { totalCount edges { node { messageId } } } }
      }
    }
    fragment Pages on Agent {
      last: messages(last: $n) { totalCount pageInfo { hasPreviousPage } edges { node { messageId } } }
      users: messages(first: 2, role: USER) { totalCount pageInfo { hasNextPage } edges { node { messageId role } } }
    }`;
    const { data, commands } = await read(query, { n: 2 });
    expect(commands).toBe(1);
    const [planner, writer] = data.session.agents;
    expect(planner.last).toEqual({
      totalCount: 6,
      pageInfo: { hasPreviousPage: true },
      edges: [{ node: { messageId: 5 } }, { node: { messageId: 6 } }],
    });
    expect(planner.users).toEqual({
      totalCount: 3,
      pageInfo: { hasNextPage: true },
      edges: [{ node: { messageId: 1, role: 'USER' } }, { node: { messageId: 3, role: 'USER' } }],
    });
    expect(writer.last.edges).toEqual([{ node: { messageId: 2 } }, { node: { messageId: 3 } }]);
    expect(data.session.one).toEqual({ messages: { totalCount: 3, edges: [{ node: { messageId: 1 } }] } });
  });

  it('pages of messages return only the message fields selected, and the last message is read only when selected', async () => {
    const { data, commands, project } = await read(
      '{ session(id: "p-1") { agents { messageCount messages(last: 1) { edges { cursor node { messageId text } } } } } }',
    );
    expect(commands).toBe(1);
    expect(project).not.toMatch(/event_loop_metrics|kept\.updated_at|kept\.role|last_message/);
    expect(project).toContain('"$$kept.content"');
    expect(data.session.agents[0]).toEqual({
      messageCount: 6,
      messages: { edges: [{ cursor: expect.any(String), node: { messageId: 6, text: 'message 6' } }] },
    });
    const whole = await read(
      '{ session(id: "p-1") { agents { lastMessage { messageId } messages(last: 1) { edges { node { eventLoopMetrics { totalTokens } updatedAt } } } } } }',
    );
    expect(whole.project).toContain('last_message');
    expect(whole.data.session.agents[0]).toEqual({
      lastMessage: { messageId: 6 },
      messages: { edges: [{ node: { eventLoopMetrics: { totalTokens: 12 }, updatedAt: at.toISOString() } }] },
    });
  });

  it('the last message is read with the fields selected only, and is null for an agent without messages', async () => {
    await app.db.collection('sessions').insertOne({
      _id: 'p-2',
      session_id: 'p-2',
      created_at: at,
      updated_at: at,
      agents: { idle: agent(0), busy: agent(2) },
    } as never);
    const { data, project } = await read(
      '{ session(id: "p-2") { agents { agentId lastMessage { messageId text createdAt } } } }',
    );
    const lastMessage = JSON.parse(project).agents.$map.in.last_message;
    // text reads the content of either message shape (seed 001's, or the SDK's message and redaction).
    expect(Object.keys(lastMessage.$arrayElemAt[0].$map.in).sort()).toEqual([
      'content',
      'created_at',
      'message',
      'message_id',
      'redact_message',
    ]);
    expect(data.session.agents).toEqual([
      { agentId: 'idle', lastMessage: null },
      { agentId: 'busy', lastMessage: { messageId: 2, text: 'message 2', createdAt: at.toISOString() } },
    ]);
    // Every field selected: each is read.
    const whole = await read(
      '{ session(id: "p-2") { agents { lastMessage { messageId role text content createdAt updatedAt eventLoopMetrics { totalTokens } } } } }',
    );
    expect(whole.data.session.agents[1].lastMessage).toMatchObject({
      messageId: 2,
      role: 'ASSISTANT',
      updatedAt: at.toISOString(),
      eventLoopMetrics: { totalTokens: 4 },
    });
    await app.db.collection('sessions').deleteOne({ _id: 'p-2' } as never);
  });

  it("the session's created_at and the agents' timestamps are read when selected, and a page ordered by created_at still pages", async () => {
    const lean = await read('{ sessions(first: 1) { edges { node { sessionId updatedAt agents { agentId } } } } }');
    expect(lean.project).not.toMatch(/created_at|\$\$a\.v\.updated_at/);
    expect(lean.data.sessions.edges[0].node).toEqual({
      sessionId: 'p-1',
      updatedAt: at.toISOString(),
      agents: [{ agentId: 'planner' }, { agentId: 'writer' }],
    });
    const timed = await read('{ session(id: "p-1") { createdAt agents { agentId createdAt updatedAt } } }');
    expect(timed.project).toContain('"created_at":1');
    expect(timed.data.session).toEqual({
      createdAt: at.toISOString(),
      agents: ['planner', 'writer'].map((agentId) => ({
        agentId,
        createdAt: at.toISOString(),
        updatedAt: at.toISOString(),
      })),
    });
    // Ordered by created_at without selecting it: the sort field comes for the cursor.
    const ordered = await read(
      '{ sessions(first: 1, orderBy: { field: CREATED_AT, direction: ASC }) { pageInfo { endCursor } edges { node { sessionId } } } }',
    );
    expect(ordered.project).toContain('"created_at":1');
    const after = await app.run(
      'query($after: String) { sessions(first: 1, after: $after, orderBy: { field: CREATED_AT, direction: ASC }) { edges { node { sessionId } } } }',
      {
        after: ordered.data.sessions.pageInfo.endCursor,
      },
    );
    expect([ordered.data.sessions.edges, after.sessions.edges]).toEqual([[{ node: { sessionId: 'p-1' } }], []]);
  });

  it('aliases of one page selecting different message fields are served from one read', async () => {
    const { data, commands } = await read(
      '{ session(id: "p-1") { agent(agentId: "writer") { a: messages(first: 1) { edges { node { role } } } b: messages(first: 1) { edges { node { content } } } } } }',
    );
    expect(commands).toBe(1);
    expect(data.session.agent).toEqual({
      a: { edges: [{ node: { role: 'USER' } }] },
      b: { edges: [{ node: { content: 'message 1' } }] },
    });
  });

  it('a page after a cursor read with the session matches the page read on its own', async () => {
    const first = await read(
      '{ session(id: "p-1") { agent(agentId: "planner") { messages(first: 2) { pageInfo { endCursor } } } } }',
    );
    const cursor = first.data.session.agent.messages.pageInfo.endCursor;
    const { data, commands } = await read(
      `query($after: String) {
        session(id: "p-1") { agent(agentId: "planner") { messages(first: 2, after: $after) { pageInfo { hasPreviousPage hasNextPage } edges { node { messageId } } } } }
      }`,
      { after: cursor },
    );
    expect(commands).toBe(1);
    expect(data.session.agent.messages).toEqual({
      pageInfo: { hasPreviousPage: true, hasNextPage: true },
      edges: [{ node: { messageId: 3 } }, { node: { messageId: 4 } }],
    });
  });

  it('invalid page arguments are still reported by the field, and the rest of the session is served', async () => {
    const result = await app.execute(
      '{ session(id: "p-1") { sessionId agents { messages(first: 1, last: 1) { totalCount } } } }',
    );
    expect(result.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'last' });
  });

  it('totalCount is counted when selected, and only then', async () => {
    const without = await read('{ sessions(first: 5) { edges { node { sessionId } } } }');
    expect(without.commands).toBe(1);
    const withCount = await read('{ sessions(first: 5) { totalCount edges { node { sessionId } } } }');
    expect(withCount.commands).toBe(2);
    expect(withCount.data.sessions.totalCount).toBe(1);
  });

  it('an experience page reads only the stored fields its nodes select', async () => {
    const projectionOf = () =>
      app.commands.events.find(
        (event) => event.commandName === 'find' && event.command.find === 'eat_agent_experiences',
      )?.command.projection;
    app.commands.reset();
    const page = await app.run(
      '{ experiences(first: 5) { edges { cursor node { experienceId primaryGoalDescription session { sessionId } } } } }',
    );
    expect(page.experiences.edges[0].node).toEqual({
      experienceId: 'e-1',
      primaryGoalDescription: 'goal',
      session: { sessionId: 'p-1' },
    });
    // The sort's fields come too (the cursor is made of them), and the validity's, by which the page is checked current.
    expect(projectionOf()).toEqual({
      _id: 0,
      experience_id: 1,
      primary_goal_description: 1,
      session_id: 1,
      timestamp: 1,
      valid_from: 1,
      valid_until: 1,
      superseded_by: 1,
      expires_at: 1,
    });
    const next = await app.run(
      'query($after: String) { experiences(first: 5, after: $after) { edges { node { experienceId } } } }',
      {
        after: page.experiences.edges[0].cursor,
      },
    );
    expect(next.experiences.edges).toEqual([]);
    // In one request, another field asking for the whole experience still gets it.
    const both = await app.run(
      '{ experiences(first: 5) { edges { node { experienceId } } } experience(id: "e-1") { subTaskDescription finalOutcome } }',
    );
    expect(both.experience).toEqual({ subTaskDescription: 'sub', finalOutcome: 'SUCCESS' });
    // Selecting the id alone reads the id and the sort's field.
    app.commands.reset();
    await app.run('{ experiences(first: 5) { edges { node { experienceId } } } }');
    expect(projectionOf()).toEqual({
      _id: 0,
      experience_id: 1,
      timestamp: 1,
      valid_from: 1,
      valid_until: 1,
      superseded_by: 1,
      expires_at: 1,
    });
  });
});
