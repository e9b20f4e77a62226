import { createTestApp, type TestApp } from '../../support/app';
const sessionId = (index: number) => `ns-${index}`;
const experienceId = (index: number) => `ne-${index}`;
const taskId = (index: number) => `nt-${index}`;
const patternId = (index: number) => `np-${index}`;
const toolName = (index: number) => `nl-${index}`;

/** Two of each type: sessions with agents planner and writer (the same agentIds in both) of three messages each. */
async function seed(app: TestApp): Promise<void> {
  for (const index of [1, 2]) {
    await app.run(`mutation { createSession(input: { sessionId: "${sessionId(index)}" }) { sessionId } }`);
    for (const comment of ['first', 'second']) {
      await app.run(
        `mutation { addFeedback(sessionId: "${sessionId(index)}", input: { comment: "${comment}" }) { comment } }`,
      );
    }
    for (const agent of ['planner', 'writer']) {
      await app.run(
        `mutation ($inputs: [AppendMessageInput!]!) {
          upsertAgent(sessionId: "${sessionId(index)}", input: { agentId: "${agent}", agentData: {} }) { agentId }
          appendMessages(sessionId: "${sessionId(index)}", agentId: "${agent}", inputs: $inputs) { messageId } }`,
        {
          inputs: [1, 2, 3].map((m) => ({ role: 'USER', content: `${agent} of session ${index}, message ${m}` })),
        },
      );
    }
    await app.run(
      `mutation { recordExperience(input: { experienceId: "${experienceId(index)}", primaryGoalDescription: "g",
        subTaskDescription: "s", initiatingAgentId: "planner", finalOutcome: SUCCESS }) { experienceId } }`,
    );
    await app.run(
      `mutation { recordToolExecution(input: { toolName: "${toolName(index)}", success: true, durationMs: 5, context: "ctx" }) { toolName }
        recordInsight(input: { agentType: PLANNER, type: PATTERNS, insight: "insight ${index}" }) { id } }`,
    );
    await app.run(
      `mutation { recordTask(input: { taskId: "${taskId(index)}", originalQuery: "q", goal: "g", status: COMPLETED }) { taskId }
        recordAction(taskId: "${taskId(index)}", input: { mode: FAST, thinking: "Look the facility up first",
          toolCalls: [{ name: "list", outcome: SUCCESS }, { name: "read", outcome: FAILURE }] }) { taskId } }`,
    );
  }
  // Plan patterns come from learning; inserted as stored, the fields read fall back to their defaults.
  await app.db.collection('plan_patterns').insertMany([1, 2].map((index) => ({ patternId: patternId(index) })));
}

const NODE_FIELDS = `__typename id
  ... on Session { sessionId }
  ... on Agent { agentId }
  ... on Message { messageId text }
  ... on Feedback { comment }
  ... on Experience { experienceId }
  ... on Task { taskId }
  ... on PlanPattern { patternId }
  ... on Action { iteration thinking }
  ... on ToolCall { name outcome }
  ... on ToolPerformance { toolName context totalExecutions }
  ... on AgentInsight { insight }`;

const encode = (text: string) => Buffer.from(text).toString('base64url');

describe('global object identification: Node, node(id), nodes(ids)', () => {
  let app: TestApp;
  /** Ids the API gave, by what they identify. */
  const ids = new Map<string, string>();

  beforeAll(async () => {
    app = await createTestApp();
    await seed(app);
    for (const index of [1, 2]) {
      const { session } = await app.run(
        `query { session(id: "${sessionId(index)}") { id feedbacks { id comment } agents { id agentId messages(first: 2) { edges { node { id messageId } } } } } }`,
      );
      ids.set(`Session ${index}`, session.id);
      for (const feedback of session.feedbacks) ids.set(`Feedback ${index} ${feedback.comment}`, feedback.id);
      for (const agent of session.agents) {
        ids.set(`Agent ${index} ${agent.agentId}`, agent.id);
        for (const { node } of agent.messages.edges)
          ids.set(`Message ${index} ${agent.agentId} ${node.messageId}`, node.id);
      }
      const { experience, task, planPattern } = await app.run(
        `query { experience(id: "${experienceId(index)}") { id } task(id: "${taskId(index)}") { id actions { id toolCalls { id name } } } planPattern(id: "${patternId(index)}") { id } }`,
      );
      ids.set(`Experience ${index}`, experience.id);
      ids.set(`Task ${index}`, task.id);
      ids.set(`Action ${index} 0`, task.actions[0].id);
      for (const call of task.actions[0].toolCalls) ids.set(`ToolCall ${index} 0 ${call.name}`, call.id);
      ids.set(`PlanPattern ${index}`, planPattern.id);
      const { all, inContext, agentInsights } = await app.run(
        `query { all: toolPerformance(toolName: "${toolName(index)}") { id }
          inContext: toolPerformance(toolName: "${toolName(index)}", context: "ctx") { id }
          agentInsights(agentType: PLANNER) { insights { id insight } } }`,
      );
      ids.set(`ToolPerformance ${index}`, all.id);
      ids.set(`ToolPerformance ${index} ctx`, inContext.id);
      const insight = agentInsights.insights.find((found: { insight: string }) => found.insight === `insight ${index}`);
      ids.set(`AgentInsight ${index}`, insight.id);
    }
  });
  afterAll(() => app.close());

  it('every entity type answers node(id) with itself', async () => {
    const expected: Record<string, unknown> = {
      'Session 1': { __typename: 'Session', sessionId: sessionId(1) },
      'Agent 1 writer': { __typename: 'Agent', agentId: 'writer' },
      // Message ids count from 0 (the Strands SDK's numbering).
      'Message 1 writer 1': { __typename: 'Message', messageId: 1, text: 'writer of session 1, message 2' },
      'Feedback 1 second': { __typename: 'Feedback', comment: 'second' },
      'Experience 1': { __typename: 'Experience', experienceId: experienceId(1) },
      'Task 1': { __typename: 'Task', taskId: taskId(1) },
      'PlanPattern 1': { __typename: 'PlanPattern', patternId: patternId(1) },
      'Action 1 0': { __typename: 'Action', iteration: 0, thinking: 'Look the facility up first' },
      'ToolCall 1 0 read': { __typename: 'ToolCall', name: 'read', outcome: 'FAILURE' },
      'ToolPerformance 1': { __typename: 'ToolPerformance', toolName: toolName(1), context: null, totalExecutions: 1 },
      'ToolPerformance 1 ctx': {
        __typename: 'ToolPerformance',
        toolName: toolName(1),
        context: 'ctx',
        totalExecutions: 1,
      },
      'AgentInsight 1': { __typename: 'AgentInsight', insight: 'insight 1' },
    };
    for (const [name, fields] of Object.entries(expected)) {
      const id = ids.get(name)!;
      const { node } = await app.run(`query ($id: ID!) { node(id: $id) { ${NODE_FIELDS} } }`, { id });
      expect(node).toEqual({ ...(fields as object), id });
    }
  });

  it('ids are unique across types and sessions: the same agentId in two sessions gets two ids', () => {
    expect(new Set(ids.values()).size).toBe(ids.size);
    expect(ids.get('Agent 1 planner')).not.toBe(ids.get('Agent 2 planner'));
    expect(ids.get('Message 1 planner 1')).not.toBe(ids.get('Message 2 planner 1'));
  });

  it('nodes(ids) of every type costs one read per type (a session and its parts share one, as do actions and their calls)', async () => {
    const all = [...ids.values()];
    app.commands.reset();
    const { nodes } = await app.run(`query ($ids: [ID!]!) { nodes(ids: $ids) { ${NODE_FIELDS} } }`, { ids: all });
    expect(nodes.map((node: { id: string }) => node.id)).toEqual(all);
    // sessions: one summary read (sessions, agents, feedback) and one message read; one each for the six other types
    // (tasks: one for tasks, one for actions and their tool calls).
    expect(app.commands.count('aggregate', 'sessions') + app.commands.count('find', 'sessions')).toBe(2);
    expect(app.commands.count('find', 'tool_performance')).toBe(1);
    expect(app.commands.count('find', 'agent_insights')).toBe(1);
    expect(app.commands.count()).toBe(8);

    app.commands.reset();
    const unbatched = await app.execute(
      `query ($ids: [ID!]!) { nodes(ids: $ids) { id } }`,
      { ids: all },
      { batching: false },
    );
    expect(unbatched.errors).toBeUndefined();
    expect(app.commands.count()).toBe(all.length);
  });

  it("an insight's global id is the id validateInsight and deleteInsight take", async () => {
    const { recordInsight } = await app.run(
      `mutation { recordInsight(input: { agentType: EXECUTOR, type: WARNINGS, insight: "to delete" }) { id } }`,
    );
    expect(recordInsight.id).toMatch(/^ins_/);
    const query = `query ($id: ID!) { node(id: $id) { id ... on AgentInsight { insight } } }`;
    expect(await app.run(query, { id: recordInsight.id })).toEqual({
      node: { id: recordInsight.id, insight: 'to delete' },
    });
    await app.run(`mutation ($id: ID!) { deleteInsight(id: $id) { id } }`, { id: recordInsight.id });
    expect(await app.run(query, { id: recordInsight.id })).toEqual({ node: null });
  });

  it('an id of nothing (deleted, or never there) is null', async () => {
    const missing = [
      encode('Session:["no-such-session"]'),
      encode(`Agent:["${sessionId(1)}","nobody"]`),
      encode(`Message:["${sessionId(1)}","writer",999]`),
      encode('Task:["no-such-task"]'),
      encode(`Action:["${taskId(1)}",7]`),
      encode(`Feedback:["${sessionId(1)}",2]`),
      encode(`ToolCall:["${taskId(1)}",0,2]`),
      encode(`ToolCall:["${taskId(1)}",7,0]`),
      encode('ToolPerformance:["never-ran",null]'),
      'ins_000000000000000000000000',
    ];
    const { node, nodes } = await app.run(
      `query ($id: ID!, $ids: [ID!]!) { node(id: $id) { id } nodes(ids: $ids) { id } }`,
      {
        id: missing[0],
        ids: [ids.get('Task 1'), ...missing],
      },
    );
    expect(node).toBeNull();
    expect(nodes).toEqual([{ id: ids.get('Task 1') }, ...missing.map(() => null)]);
  });

  it.each([
    ['not base64url', 'Session:x y'],
    ['an unknown type', encode('Bogus:["x"]')],
    ['a key of the wrong type', encode('Session:[1]')],
    ['a key of the wrong length', encode('Agent:["s"]')],
    ['a fractional message id', encode('Message:["s","a",1.5]')],
    ['a feedback position that is a string', encode('Feedback:["s","0"]')],
    ['a tool call without its position', encode('ToolCall:["t",0]')],
    ['a tool context of the wrong type', encode('ToolPerformance:["t",1]')],
    ['an insight id of the wrong shape', 'ins_XYZ'],
    ['not JSON', encode('Task:[x')],
    ['a per-type id', sessionId(1)],
    ['too long', encode(`Task:["${'x'.repeat(3_000)}"]`)],
  ])('%s is BAD_USER_INPUT naming the id', async (_case, id) => {
    const one = await app.execute(`query ($id: ID!) { node(id: $id) { id } }`, { id });
    expect(one.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'id' });
    const many = await app.execute(`query ($ids: [ID!]!) { nodes(ids: $ids) { id } }`, {
      ids: [ids.get('Task 1'), id],
    });
    expect(many.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'ids.1' });
  });

  it('nodes takes at most 100 ids', async () => {
    const result = await app.execute(`query ($ids: [ID!]!) { nodes(ids: $ids) { id } }`, {
      ids: Array.from({ length: 101 }, () => ids.get('Task 1')),
    });
    expect(result.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'ids' });
  });

  it('a reader may fetch nodes; its tenant sees none of the default tenant', async () => {
    const id = ids.get('Session 1');
    const reader = { role: 'reader' as const, tenant: 'default', keyId: 'r' };
    expect(await app.run(`query ($id: ID!) { node(id: $id) { id } }`, { id }, { caller: reader })).toEqual({
      node: { id },
    });
    const other = { ...reader, tenant: 'other' };
    expect(await app.run(`query ($id: ID!) { node(id: $id) { id } }`, { id }, { caller: other })).toEqual({
      node: null,
    });
  });
});

describe('mutation results refer back to what the write changed', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await createTestApp();
    await app.run(`mutation { createSession(input: { sessionId: "s1" }) { sessionId } }`);
    await app.run(`mutation { upsertAgent(sessionId: "s1", input: { agentId: "a1", agentData: {} }) { agentId } }`);
  });
  afterAll(() => app.close());

  it('appendMessage answers its agent (count, last message) and its session (updatedAt) after the write', async () => {
    const before = await app.run(`query { session(id: "s1") { id updatedAt agents { id messageCount } } }`);
    const { appendMessage } = await app.run(
      `mutation { appendMessage(sessionId: "s1", agentId: "a1", input: { role: USER, content: "hi" }) {
        id messageId agent { id messageCount lastMessage { id } } session { id updatedAt } } }`,
    );
    expect(appendMessage.agent).toEqual({
      id: before.session.agents[0].id,
      messageCount: before.session.agents[0].messageCount + 1,
      lastMessage: { id: appendMessage.id },
    });
    expect(appendMessage.session.id).toBe(before.session.id);
    expect(Date.parse(appendMessage.session.updatedAt)).toBeGreaterThan(Date.parse(before.session.updatedAt));
  });

  it('upsertAgent, addFeedback and recordExperience answer the session', async () => {
    const { upsertAgent } = await app.run(
      `mutation { upsertAgent(sessionId: "s1", input: { agentId: "a2", agentData: {} }) { id session { id agents { agentId } } } }`,
    );
    expect(upsertAgent.session.agents.map((agent: { agentId: string }) => agent.agentId)).toEqual(['a1', 'a2']);
    const { addFeedback } = await app.run(
      `mutation { addFeedback(sessionId: "s1", input: { rating: UP, comment: "good" }) { session { id feedbacks { comment } } } }`,
    );
    expect(addFeedback.session.feedbacks).toEqual([{ comment: 'good' }]);
    const { recordExperience } = await app.run(
      `mutation { recordExperience(input: { primaryGoalDescription: "g", subTaskDescription: "s", initiatingAgentId: "a1",
        finalOutcome: SUCCESS, sessionId: "s1" }) { id session { id } } }`,
    );
    expect(recordExperience.session.id).toBe(upsertAgent.session.id);
  });

  it("addFeedback answers the entry's id in the session, the same when retried with its idempotencyKey", async () => {
    await app.run(`mutation { createSession(input: { sessionId: "s-feedback" }) { sessionId } }`);
    const add = `mutation ($comment: String!, $key: String) {
      addFeedback(sessionId: "s-feedback", input: { comment: $comment }, idempotencyKey: $key) { id comment } }`;
    const first = await app.run(add, { comment: 'one' });
    const second = await app.run(add, { comment: 'two', key: 'feedback-two' });
    const retried = await app.run(add, { comment: 'two', key: 'feedback-two' });
    const { session } = await app.run(`query { session(id: "s-feedback") { feedbacks { id comment } } }`);
    expect(session.feedbacks).toEqual([first.addFeedback, second.addFeedback]);
    expect(retried).toEqual(second);
    expect(first.addFeedback.id).not.toBe(second.addFeedback.id);
  });

  it("a feedback entry that is not an object shifts no other entry's id", async () => {
    await app.run(`mutation { createSession(input: { sessionId: "s-damaged" }) { sessionId } }`);
    await app.db
      .collection<{ _id: string }>('sessions')
      .updateOne({ _id: 's-damaged' }, { $push: { feedbacks: 'junk' } });
    const { addFeedback } = await app.run(
      `mutation { addFeedback(sessionId: "s-damaged", input: { comment: "after junk" }) { id comment } }`,
    );
    const read = await app.execute(`query { session(id: "s-damaged") { feedbacks { id comment } } }`);
    expect(read.data).toEqual({ session: { feedbacks: [addFeedback] } });
    expect(read.errors?.map((error) => error.extensions?.code)).toEqual(['STORED_VALUE_INVALID']);
    const { node } = await app.run(`query ($id: ID!) { node(id: $id) { ... on Feedback { comment } } }`, {
      id: addFeedback.id,
    });
    expect(node).toEqual({ comment: 'after junk' });
  });

  it("recordAction's action and its tool calls have global ids and refer to their task and iteration", async () => {
    const { recordTask } = await app.run(
      `mutation { recordTask(input: { taskId: "t1", originalQuery: "q", goal: "g", status: PAUSED }) { id } }`,
    );
    const { recordAction } = await app.run(
      `mutation { recordAction(taskId: "t1", input: { mode: FAST, thinking: "look", toolCalls: [{ name: "list", outcome: SUCCESS }] }) {
        action { id iteration task { id } toolCalls { id action { id } } } task { id } } }`,
    );
    expect(recordAction.action.toolCalls).toEqual([{ id: expect.any(String), action: { id: recordAction.action.id } }]);
    expect(recordAction.action.task).toEqual({ id: recordTask.id });
    expect(recordAction.task).toEqual({ id: recordTask.id });
    const { action, call } = await app.run(
      `query ($action: ID!, $call: ID!) { action: node(id: $action) { ... on Action { iteration } }
        call: node(id: $call) { ... on ToolCall { name } } }`,
      { action: recordAction.action.id, call: recordAction.action.toolCalls[0].id },
    );
    expect(action).toEqual({ iteration: recordAction.action.iteration });
    expect(call).toEqual({ name: 'list' });
  });
});
