import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { createTestApp, type TestApp } from '../support/app';
import { databaseFingerprint } from '../support/fingerprint';
import { callTool, experienceArgs, MCP_API_KEYS, MCP_KEYS, mcpClient, toolText, toolValue } from '../support/mcp';
import { callEveryTool, createAlphaSession, expectBadArgumentsRefused } from './tool-calls';

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
  it('lists the tools, each with a description, a JSON schema and its GraphQL field’s role', async () => {
    const { tools } = await (await connectHttp(MCP_KEYS.readerA)).listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(
      [
        'agent_insights',
        'append_message',
        'forget',
        'get_session',
        'learn_from_task',
        'recall',
        'record_action',
        'record_experience',
        'record_task',
        'retire_memory',
        'search_experiences',
        'search_messages',
        'similar_tasks',
        'successful_plans',
        'supersede_memory',
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
    // The ranking options of searchExperiences.
    const search = byName.get('search_experiences')!.inputSchema as any;
    expect(search.properties.ranking.properties.relevanceOnly).toMatchObject({ type: 'boolean' });
    expect(search.properties.ranking.properties.recencyHalfLifeDays).toMatchObject({ type: 'number' });
    expect(search.properties.diversity).toMatchObject({ type: 'number' });
  });

  it('takes a userId on the search and record tools (from their fields’ arguments) and shows it', async () => {
    const client = await connectHttp(MCP_KEYS.writerA);
    const { tools } = await client.listTools();
    const schema = (name: string) => tools.find((tool) => tool.name === name)!.inputSchema as any;
    expect(schema('search_experiences').properties.filter.properties.userId).toMatchObject({ type: 'string' });
    expect(schema('record_experience').properties.input.properties.userId).toMatchObject({ type: 'string' });
    expect(schema('record_task').properties.input.properties.userId).toMatchObject({ type: 'string' });
    for (const name of ['similar_tasks', 'successful_plans', 'tool_performance', 'agent_insights'])
      expect(schema(name).properties.userId).toMatchObject({ type: 'string' });
    expect(schema('agent_insights').properties.agentId).toMatchObject({ type: 'string' });
    const args = experienceArgs('Restock the lighthouse pantry');
    const recorded = await toolValue(client, 'record_experience', { input: { ...args.input, userId: 'mcp-user-1' } });
    expect(recorded.userId).toBe('mcp-user-1');
    await toolValue(client, 'record_experience', { input: { ...args.input, userId: 'mcp-user-2' } });
    const hits = await toolValue(client, 'search_experiences', {
      query: 'restock lighthouse pantry',
      mode: 'KEYWORD',
      filter: { userId: 'mcp-user-1' },
    });
    expect(hits.map((hit: any) => [hit.experience.experienceId, hit.experience.userId])).toEqual([
      [recorded.experienceId, 'mcp-user-1'],
    ]);
  });

  it('calls each tool through the services, for the key’s tenant', async () => {
    await createAlphaSession(app, 'mcp-s1');
    await callEveryTool(await connectHttp(MCP_KEYS.writerA), 'mcp-s1');
  });

  it('answers bad arguments with a tool error naming the argument, and writes nothing', async () => {
    await expectBadArgumentsRefused(await connectHttp(MCP_KEYS.writerA), await app.deps.tenantDb('alpha'));
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
