import { createTestApp, type TestApp } from '../support/app';
import { PROTOTYPE_NAMES } from '../support/prototype-names';

/** Names that are members of Object.prototype: a plain object used as a map already "has" each of them. */
const NAMES = PROTOTYPE_NAMES.filter((name) => name !== '__proto__');

describe('names equal to Object.prototype members are stored and read like any other', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(() => app.close());

  it.each(NAMES)('%s as session id, agent id, metadata key and agent_data key', async (name) => {
    const created = await app.run(
      `mutation ($input: CreateSessionInput!) { createSession(input: $input) { sessionId metadata } }`,
      { input: { sessionId: name, metadata: { [name]: 'meta value' } } },
    );
    expect(created.createSession).toEqual({ sessionId: name, metadata: { [name]: 'meta value' } });

    const agent = await app.run(
      `mutation ($sessionId: ID!, $input: UpsertAgentInput!) {
        upsertAgent(sessionId: $sessionId, input: $input) { agentId agentData { raw } }
      }`,
      { sessionId: name, input: { agentId: name, agentData: { [name]: 1 } } },
    );
    expect(agent.upsertAgent.agentId).toBe(name);
    expect(agent.upsertAgent.agentData.raw[name]).toBe(1);

    const appended = await app.run(
      `mutation ($sessionId: ID!, $agentId: String!) {
        first: appendMessage(sessionId: $sessionId, agentId: $agentId, input: { role: USER, content: "one" }) { messageId }
        second: appendMessages(sessionId: $sessionId, agentId: $agentId, inputs: [{ role: ASSISTANT, content: "two" }]) {
          messageId
        }
      }`,
      { sessionId: name, agentId: name },
    );
    expect(appended).toEqual({ first: { messageId: 0 }, second: [{ messageId: 1 }] });

    const updated = await app.run(
      `mutation ($sessionId: ID!, $metadata: JSONObject!) {
        updateSessionMetadata(sessionId: $sessionId, metadata: $metadata) { metadata }
      }`,
      { sessionId: name, metadata: { [name]: 'changed', other: { [name]: true } } },
    );
    expect(updated.updateSessionMetadata.metadata).toEqual({ [name]: 'changed', other: { [name]: true } });

    const read = await app.run(
      `query ($id: ID!, $agentId: String!) {
        session(id: $id) {
          sessionId
          messageCount
          metadata
          agent(agentId: $agentId) { agentId messageCount messages(last: 10) { edges { node { messageId text } } } }
          agents { agentId }
        }
      }`,
      { id: name, agentId: name },
    );
    expect(read.session).toEqual({
      sessionId: name,
      messageCount: 2,
      metadata: { [name]: 'changed', other: { [name]: true } },
      agent: {
        agentId: name,
        messageCount: 2,
        messages: {
          edges: [{ node: { messageId: 0, text: 'one' } }, { node: { messageId: 1, text: 'two' } }],
        },
      },
      agents: [{ agentId: name }],
    });

    const removed = await app.run(
      `mutation ($sessionId: ID!, $keys: [String!]!) {
        deleteSessionMetadataKeys(sessionId: $sessionId, keys: $keys) { metadata }
      }`,
      { sessionId: name, keys: [name] },
    );
    expect(removed.deleteSessionMetadataKeys.metadata).toEqual({ other: { [name]: true } });
  });

  it.each(NAMES)('%s as tool name, task id and tool-call argument key', async (name) => {
    const figures = await app.run(
      `mutation ($inputs: [RecordToolExecutionInput!]!) {
        recordToolExecutions(inputs: $inputs) { toolName successCount failureCount }
      }`,
      {
        inputs: [
          { toolName: name, success: true, durationMs: 5 },
          { toolName: name, success: false, durationMs: 7, error: 'boom', context: name },
        ],
      },
    );
    expect(figures.recordToolExecutions).toEqual([{ toolName: name, successCount: 1, failureCount: 1 }]);

    const task = await app.run(`mutation ($input: RecordTaskInput!) { recordTask(input: $input) { taskId } }`, {
      input: { taskId: `task-${name}`, goal: `use ${name}`, originalQuery: `use ${name}`, status: 'COMPLETED' },
    });
    expect(task.recordTask.taskId).toBe(`task-${name}`);
    const action = await app.run(
      `mutation ($taskId: ID!, $input: RecordActionInput!) {
        recordAction(taskId: $taskId, input: $input) { action { toolCalls { name args } } }
      }`,
      {
        taskId: `task-${name}`,
        input: { mode: 'FAST', toolCalls: [{ name, outcome: 'SUCCESS', args: { [name]: 'x' } }] },
      },
    );
    expect(action.recordAction.action.toolCalls).toEqual([{ name, args: { [name]: 'x' } }]);

    const read = await app.run(
      `query ($toolName: String!) { toolPerformance(toolName: $toolName) { toolName successCount } }`,
      {
        toolName: name,
      },
    );
    expect(read.toolPerformance).toEqual({ toolName: name, successCount: 2 });
    const inContext = await app.run(
      `query ($toolName: String!, $context: String) {
        toolPerformance(toolName: $toolName, context: $context) { toolName context failureCount commonErrors { error } }
      }`,
      { toolName: name, context: name },
    );
    expect(inContext.toolPerformance).toEqual({
      toolName: name,
      context: name,
      failureCount: 1,
      commonErrors: [{ error: 'boom' }],
    });
  });

  it('__proto__ is refused with BAD_USER_INPUT naming it, and nothing is written', async () => {
    const asAgent = await app.execute(
      `mutation ($input: UpsertAgentInput!) { upsertAgent(sessionId: "constructor", input: $input) { agentId } }`,
      { input: { agentId: '__proto__', agentData: {} } },
    );
    expect(asAgent.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(asAgent.errors?.[0]?.message).toContain('__proto__');
  });
});
