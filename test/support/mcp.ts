import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { TOOLS } from '../../src/mcp/mcp.tools';

/** API_KEYS entries of the MCP tests: a writer and a reader of tenant alpha, a writer of tenant beta. */
export const MCP_KEYS = {
  writerA: 'hs_mcp_writer_alpha',
  readerA: 'hs_mcp_reader_alpha',
  writerB: 'hs_mcp_writer_beta',
};
export const MCP_API_KEYS = [
  `${MCP_KEYS.writerA}:writer:alpha`,
  `${MCP_KEYS.readerA}:reader:alpha`,
  `${MCP_KEYS.writerB}:writer:beta`,
];

export function mcpClient(): Client {
  return new Client({ name: 'hindsight-test', version: '1.0.0' });
}

export async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

export function toolText(result: CallToolResult): string {
  return result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}

/** A successful call's structured content (under its GraphQL field's name), checked equal to its JSON text. */
export async function toolValue(client: Client, name: string, args: Record<string, unknown>): Promise<any> {
  const result = await callTool(client, name, args);
  if (result.isError) throw new Error(`${name} failed: ${toolText(result)}`);
  const field = TOOLS.find((tool) => tool.name === name)!.field.split('.')[1];
  const content = result.structuredContent![field];
  if (toolText(result) !== JSON.stringify(content)) throw new Error(`${name}: text and structured content differ`);
  return content;
}

/** record_experience arguments with the required fields. */
export function experienceArgs(goal: string) {
  return {
    input: {
      primaryGoalDescription: goal,
      subTaskDescription: 'Create the shipment record',
      finalOutcome: 'SUCCESS',
      initiatingAgentId: 'agent-mcp',
      outputSummary: 'shipment created',
    },
  };
}
