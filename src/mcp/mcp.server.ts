import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { ToolDefinition } from './mcp.tools';

/** A GraphQL answer as Apollo formats it (formatError applied: codes, no stack traces). */
export interface OperationResult {
  data?: Record<string, unknown> | null;
  errors?: readonly { message: string; extensions?: Record<string, unknown> }[];
}

/** Runs a tool's GraphQL operation for the caller the server was created for. */
export type RunOperation = (document: string, variables: Record<string, unknown>) => Promise<OperationResult>;

/**
 * An MCP server (low-level `Server`: the tools' JSON schemas come from the GraphQL schema, not from zod) answering
 * `tools/list` and `tools/call` through `run`. One per caller: roles and tenants come with `run`'s context.
 */
export function createMcpServer(tools: readonly ToolDefinition[], run: RunOperation, version: string): Server {
  const server = new Server({ name: 'hindsight', version }, { capabilities: { tools: {} } });
  const byName = new Map(tools.map((tool) => [tool.spec.name, tool]));
  const listed: Tool[] = tools.map((tool) => ({
    name: tool.spec.name,
    description: `${tool.spec.description} Requires the ${tool.role} role.`,
    inputSchema: tool.inputSchema,
    annotations: { readOnlyHint: tool.spec.field.startsWith('Query.') },
  }));
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }));
  server.setRequestHandler(CallToolRequestSchema, async ({ params }) => {
    const tool = byName.get(params.name);
    if (!tool) return toolError(`Unknown tool ${params.name}; tools/list names them.`);
    const args = params.arguments ?? {};
    const unknown = Object.keys(args).filter((name) => !tool.argumentNames.has(name));
    if (unknown.length) {
      return toolError(`BAD_USER_INPUT at ${unknown[0]}: ${params.name} takes no argument ${unknown.join(', ')}.`);
    }
    return toolResult(tool, await run(tool.document, args));
  });
  return server;
}

/** Compact JSON of the field's value as text, and the value as structured content; GraphQL errors as a tool error. */
function toolResult(tool: ToolDefinition, result: OperationResult): CallToolResult {
  if (result.errors?.length) return toolError(result.errors.map(describeError).join('\n'));
  const field = tool.spec.field.split('.')[1];
  const value = result.data?.[field] ?? null;
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: { [field]: value } };
}

/** `CODE at field: message`: the field ValidationError names, so a model sees which argument to fix. */
function describeError({ message, extensions }: NonNullable<OperationResult['errors']>[number]): string {
  const code = typeof extensions?.code === 'string' ? extensions.code : 'ERROR';
  const field = typeof extensions?.field === 'string' ? ` at ${extensions.field}` : '';
  return `${code}${field}: ${message}`;
}

function toolError(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}
