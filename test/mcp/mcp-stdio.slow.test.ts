import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { TOOLS } from '../../src/mcp/mcp.tools';
import { createTestApp, type TestApp } from '../support/app';
import { compiled } from '../support/build';
import { callTool, experienceArgs, MCP_API_KEYS, MCP_KEYS, mcpClient, toolText, toolValue } from '../support/mcp';
import { callEveryTool, createAlphaSession, expectBadArgumentsRefused } from './tool-calls';

let app: TestApp;
let base: string;
const clients: Client[] = [];
const dataDirs: string[] = [];

/** Spawns the built `npm run mcp` entry with only `env` (and PATH) as its environment. */
async function connectStdio(env: Record<string, string>): Promise<Client> {
  const client = mcpClient();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [compiled('src/mcp-cli.js')],
    env: { PATH: process.env.PATH ?? '', ...env },
    stderr: 'pipe',
  });
  await client.connect(transport);
  clients.push(client);
  return client;
}

let writerA: Promise<Client> | undefined;
/** One relay with writer A's key, shared by the cases that need no fresh process of their own. */
function writerRelay(): Promise<Client> {
  writerA ??= connectStdio({ HINDSIGHT_URL: base, HINDSIGHT_API_KEY: MCP_KEYS.writerA });
  return writerA;
}

let embedded: Promise<Client>;

beforeAll(async () => {
  // The embedded relay's start (its own engine on DATA_DIR) runs while the app starts and the relay cases run.
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'hindsight-mcp-'));
  dataDirs.push(dataDir);
  embedded = connectStdio({ DATA_DIR: dataDir, EMBEDDINGS_PROVIDER: 'hash', LOG_LEVEL: 'warn' });
  embedded.catch(() => undefined);
  app = await createTestApp({ config: { apiKeys: MCP_API_KEYS } });
  base = await app.server.listen(0, '127.0.0.1');
});

afterAll(async () => {
  await embedded?.catch(() => undefined);
  await Promise.all(clients.map((client) => client.close()));
  await app.close();
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

describe('MCP over stdio (the built npm run mcp entry)', () => {
  it('relays to HINDSIGHT_URL with HINDSIGHT_API_KEY: lists the tools and calls each', async () => {
    const writer = await writerRelay();
    expect((await writer.listTools()).tools.map((tool) => tool.name).sort()).toEqual(
      TOOLS.map((tool) => tool.name).sort(),
    );
    await createAlphaSession(app, 'stdio-s1');
    await callEveryTool(writer, 'stdio-s1');
  });

  it('answers bad arguments with a tool error naming the argument, and writes nothing', async () => {
    const writer = await writerRelay();
    await expectBadArgumentsRefused(writer, await app.deps.tenantDb('alpha'));
  });

  it('refuses a writing tool to a reader key', async () => {
    const reader = await connectStdio({ HINDSIGHT_URL: base, HINDSIGHT_API_KEY: MCP_KEYS.readerA });
    const refused = await callTool(reader, 'record_experience', experienceArgs('no'));
    expect(refused.isError).toBe(true);
    expect(toolText(refused)).toMatch(/^FORBIDDEN/);
  });

  it('answers a refused key with an error rather than silence', async () => {
    await expect(connectStdio({ HINDSIGHT_URL: base, HINDSIGHT_API_KEY: 'hs_unknown' })).rejects.toThrow(
      /UNAUTHENTICATED/,
    );
  });

  it('without HINDSIGHT_URL serves an embedded Hindsight on DATA_DIR', async () => {
    const client = await embedded;
    const recorded = await toolValue(client, 'record_experience', experienceArgs('Embedded stdio experience'));
    const hits = await toolValue(client, 'search_experiences', { query: 'embedded stdio', mode: 'KEYWORD' });
    expect(hits[0].experience.experienceId).toBe(recorded.experienceId);
  });
});
