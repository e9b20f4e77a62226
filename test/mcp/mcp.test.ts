import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { createTestApp, type TestApp } from '../support/app';
import { databaseFingerprint } from '../support/fingerprint';
import { callTool, experienceArgs, MCP_API_KEYS, MCP_KEYS, mcpClient, toolText, toolValue } from '../support/mcp';

const ALPHA = { role: 'writer' as const, tenant: 'alpha', keyId: 'test' };

let app: TestApp;
let base: string;
const clients: Client[] = [];

async function connectHttp(key?: string): Promise<Client> {
  const client = mcpClient();
  const headers: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', base), { requestInit: { headers } }));
  clients.push(client);
  return client;
}

beforeAll(async () => {
  app = await createTestApp({
    config: { apiKeys: MCP_API_KEYS },
  });
  base = await app.server.listen(0, '127.0.0.1');
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await app.close();
});

describe('MCP over Streamable HTTP at /mcp', () => {
  it('lists the eleven tools, each with a description, a JSON schema and its GraphQL field’s role', async () => {
    const { tools } = await (await connectHttp(MCP_KEYS.readerA)).listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(
      [
        'agent_insights',
        'append_message',
        'get_session',
        'learn_from_task',
        'record_action',
        'record_experience',
        'record_task',
        'search_experiences',
        'similar_tasks',
        'successful_plans',
        'tool_performance',
      ].sort(),
    );
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect(byName.get('record_experience')!.description).toMatch(/Requires the writer role\.$/);
    expect(byName.get('search_experiences')!.description).toMatch(/Requires the reader role\.$/);
    const record = byName.get('record_experience')!.inputSchema as any;
    expect(record.required).toEqual(['input']);
    expect(record.properties.input.required).toEqual(
      expect.arrayContaining(['primaryGoalDescription', 'subTaskDescription', 'finalOutcome', 'initiatingAgentId']),
    );
    expect(record.properties.input.properties.finalOutcome.enum).toContain('PARTIAL_SUCCESS');
    // An argument with a default is optional.
    expect((byName.get('search_experiences')!.inputSchema as any).required).toEqual(['query']);
  });

  it('calls each tool through the services, for the key’s tenant', async () => {
    const writer = await connectHttp(MCP_KEYS.writerA);
    const session = await app.run(
      'mutation { createSession(input: { sessionId: "mcp-s1" }) { sessionId } }',
      undefined,
      { caller: ALPHA },
    );
    expect(session.createSession.sessionId).toBe('mcp-s1');
    await app.run(
      'mutation { upsertAgent(sessionId: "mcp-s1", input: { agentId: "a1", agentData: {} }) { agentId } }',
      {},
      {
        caller: ALPHA,
      },
    );

    const recorded = await toolValue(writer, 'record_experience', experienceArgs('Create shipment for facility'));
    expect(recorded).toMatchObject({ primaryGoalDescription: 'Create shipment for facility', finalOutcome: 'SUCCESS' });
    const hits = await toolValue(writer, 'search_experiences', { query: 'shipment facility', limit: 5 });
    expect(hits[0].experience.experienceId).toBe(recorded.experienceId);

    const task = await toolValue(writer, 'record_task', {
      input: {
        originalQuery: 'ship 3 pallets to Berlin',
        goal: 'Create shipment for facility',
        status: 'COMPLETED',
        context: 'facility_management',
        steps: [{ id: 's1', order: 1, action: 'create_shipment' }],
      },
    });
    const action = await toolValue(writer, 'record_action', {
      taskId: task.taskId,
      input: { mode: 'FAST', approach: 'direct', toolCalls: [{ name: 'create_shipment', outcome: 'SUCCESS' }] },
    });
    expect(action).toMatchObject({ taskId: task.taskId, action: { iteration: 0 } });
    const learned = await toolValue(writer, 'learn_from_task', {
      input: {
        taskId: task.taskId,
        status: 'COMPLETED',
        metrics: { executionTime: 2.5, stepsCompleted: 1 },
        insights: ['Check the facility id first'],
      },
    });
    expect(learned).toMatchObject({ success: true, alreadyLearned: false });

    const similar = await toolValue(writer, 'similar_tasks', {
      goal: 'Create shipment for facility',
      minSimilarity: 0,
    });
    expect(similar.tasks.map((hit: any) => hit.taskId)).toContain(task.taskId);
    const plans = await toolValue(writer, 'successful_plans', {
      goal: 'Create shipment for facility',
      minSuccessRate: 0,
    });
    expect(plans.count).toBeGreaterThan(0);
    const tool = await toolValue(writer, 'tool_performance', { toolName: 'create_shipment' });
    expect(tool.totalExecutions).toBeGreaterThan(0);
    const insights = await toolValue(writer, 'agent_insights', { agentType: 'EXECUTOR' });
    expect(insights.insights.map((insight: any) => insight.insight)).toContain('Check the facility id first');

    const message = await toolValue(writer, 'append_message', {
      sessionId: 'mcp-s1',
      agentId: 'a1',
      input: { role: 'USER', content: [{ text: 'ship it' }] },
    });
    expect(message).toMatchObject({ role: 'USER', text: 'ship it' });
    const read = await toolValue(writer, 'get_session', { id: 'mcp-s1' });
    expect(read.agents[0].messages.edges.map((edge: any) => edge.node.text)).toEqual(['ship it']);
  });

  it('answers bad arguments with a tool error naming the argument, and writes nothing', async () => {
    const writer = await connectHttp(MCP_KEYS.writerA);
    const db = await app.deps.tenantDb('alpha');
    const before = await databaseFingerprint(db);

    const missing = await callTool(writer, 'record_experience', {
      input: { ...experienceArgs('x').input, finalOutcome: 'MAYBE' },
    });
    expect(missing.isError).toBe(true);
    expect(toolText(missing)).toMatch(/BAD_USER_INPUT.*\$input.*finalOutcome/);

    const service = await callTool(writer, 'search_experiences', { query: 'shipment', limit: 1000 });
    expect(service.isError).toBe(true);
    expect(toolText(service)).toMatch(/^BAD_USER_INPUT at limit: /);

    const extra = await callTool(writer, 'record_task', { input: {}, priority: 1 });
    expect(toolText(extra)).toMatch(/^BAD_USER_INPUT at priority: /);

    const absent = await callTool(writer, 'get_session', { id: 'no-such-session' });
    expect(absent.isError).toBe(true);
    expect(toolText(absent)).toMatch(/^NOT_FOUND/);
    expect(await databaseFingerprint(db)).toEqual(before);
  });

  it('refuses a reader calling a writing tool, and writes nothing', async () => {
    const reader = await connectHttp(MCP_KEYS.readerA);
    const db = await app.deps.tenantDb('alpha');
    const before = await databaseFingerprint(db);
    const refused = await callTool(reader, 'record_experience', experienceArgs('Reader tries to write'));
    expect(refused.isError).toBe(true);
    expect(toolText(refused)).toMatch(/^FORBIDDEN: .*writer role/);
    expect(await databaseFingerprint(db)).toEqual(before);
    // Reading is allowed.
    expect(await toolValue(reader, 'search_experiences', { query: 'shipment' })).toEqual(expect.any(Array));
  });

  it('keeps tenants apart: a key of one tenant never sees another’s experience', async () => {
    const beta = await connectHttp(MCP_KEYS.writerB);
    const secret = await toolValue(beta, 'record_experience', experienceArgs('Calibrate the beta telescope'));
    const alpha = await connectHttp(MCP_KEYS.readerA);
    const seenByAlpha = await toolValue(alpha, 'search_experiences', {
      query: 'calibrate beta telescope',
      mode: 'KEYWORD',
    });
    expect(seenByAlpha.map((hit: any) => hit.experience.experienceId)).not.toContain(secret.experienceId);
    const seenByBeta = await toolValue(beta, 'search_experiences', {
      query: 'calibrate beta telescope',
      mode: 'KEYWORD',
    });
    expect(seenByBeta.map((hit: any) => hit.experience.experienceId)).toContain(secret.experienceId);
  });

  it('refuses a request without a valid key with 401', async () => {
    await expect(connectHttp()).rejects.toThrow(/401|UNAUTHENTICATED/);
    await expect(connectHttp('hs_unknown')).rejects.toThrow(/401|UNAUTHENTICATED/);
  });
});
