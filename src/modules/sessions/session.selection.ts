import {
  getArgumentValues,
  Kind,
  type FieldNode,
  type GraphQLObjectType,
  type GraphQLResolveInfo,
  type ValueNode,
} from 'graphql';
import { fieldNodesAt, subfields } from '../shared/selection';
import type { MessagesArgs } from './session.input';
import { summaryShape, type MessageWindow, type SummaryShape } from './session.repository';
import { messageWindow } from './session.validation';

/** The stored fields each field of Message reads (in either message shape: session.document.ts). */
const STORED_MESSAGE_FIELDS: Record<string, string[]> = {
  messageId: ['message_id'],
  role: ['role', 'message'],
  content: ['content', 'message', 'redact_message'],
  text: ['content', 'message', 'redact_message'],
  redacted: ['redact_message'],
  createdAt: ['created_at'],
  updatedAt: ['updated_at'],
  eventLoopMetrics: ['event_loop_metrics'],
};

/**
 * The stored message fields that `messages` field nodes select below `edges { node }` (or, with `path` [], that
 * `lastMessage` nodes select), sorted, with `message_id` (cursors and paging read it); null (whole messages) when they
 * select a field this list does not know.
 */
export function messageFields(
  nodes: readonly FieldNode[],
  fragments: GraphQLResolveInfo['fragments'],
  path: readonly string[] = ['edges', 'node'],
): string[] | null {
  const fields = new Set(['message_id']);
  for (const name of subfields(fieldNodesAt({ fieldNodes: nodes, fragments }, path), fragments).keys()) {
    if (name === '__typename') continue;
    const stored = STORED_MESSAGE_FIELDS[name];
    if (!stored) return null;
    for (const field of stored) fields.add(field);
  }
  return [...fields].sort();
}

function unionOfFields(a: string[] | null, b: string[] | null): string[] | null {
  return a && b ? [...new Set([...a, ...b])].sort() : null;
}

/**
 * Shapes derived for a field's nodes and a path below them. graphql-js makes field nodes per execution, the compiled
 * executor (src/graphql/compiled-execution.ts) once per operation: a shape that reads variables (a messages window
 * such as `last: $n`) is kept for its request only (keyed by the request's coerced variables, a new object per
 * execution in both), any other for as long as its field nodes live.
 */
const shapes = new WeakMap<readonly FieldNode[], Map<string, SummaryShape>>();
const shapesOfRequest = new WeakMap<object, WeakMap<readonly FieldNode[], Map<string, SummaryShape>>>();

function shapesFor(
  cache: WeakMap<readonly FieldNode[], Map<string, SummaryShape>>,
  nodes: readonly FieldNode[],
): Map<string, SummaryShape> {
  let byPath = cache.get(nodes);
  if (!byPath) cache.set(nodes, (byPath = new Map()));
  return byPath;
}

/**
 * What a session read must fetch for the Session selected at `path` below the resolved field (`[]`: the field
 * returns the Session; `['edges', 'node']`: a connection of them): metadata, feedbacks and agent_data only when
 * selected, the agents only when they or their counts are, token sums only for `tokenUsage`, and a page of messages
 * per `messages(...)` window selected on an agent (holding the message fields selected), so that
 * `session(id) { agents { messages(last: 20) { … } } }` is one read.
 */
export function sessionShape(info: GraphQLResolveInfo, path: readonly string[] = []): SummaryShape {
  const pathKey = path.join('.');
  const known =
    shapes.get(info.fieldNodes)?.get(pathKey) ??
    shapesOfRequest.get(info.variableValues)?.get(info.fieldNodes)?.get(pathKey);
  if (known) return known;
  const { shape, readsVariables } = deriveShape(info, path);
  let cache = shapes;
  if (readsVariables) {
    cache = shapesOfRequest.get(info.variableValues) ?? new WeakMap();
    shapesOfRequest.set(info.variableValues, cache);
  }
  shapesFor(cache, info.fieldNodes).set(pathKey, shape);
  return shape;
}

/** True when a value (an argument's, or nested in one) is or holds a variable. */
function holdsVariable(value: ValueNode): boolean {
  if (value.kind === Kind.VARIABLE) return true;
  if (value.kind === Kind.LIST) return value.values.some(holdsVariable);
  if (value.kind === Kind.OBJECT) return value.fields.some((field) => holdsVariable(field.value));
  return false;
}

function deriveShape(
  info: GraphQLResolveInfo,
  path: readonly string[],
): { shape: SummaryShape; readsVariables: boolean } {
  const session = subfields(fieldNodesAt(info, path), info.fragments);
  const agentNodes = [...(session.get('agents') ?? []), ...(session.get('agent') ?? [])];
  const agent = subfields(agentNodes, info.fragments);
  const messages = (info.schema.getType('Agent') as GraphQLObjectType).getFields().messages;
  // The nodes of one response key (alias) resolve together: their window returns the fields any of them selects.
  const byResponseKey = new Map<string, MessageWindow>();
  let readsVariables = false;
  for (const node of agent.get('messages') ?? []) {
    readsVariables ||= (node.arguments ?? []).some((argument) => holdsVariable(argument.value));
    try {
      const { window } = messageWindow(
        getArgumentValues(messages, node, info.variableValues) as MessagesArgs,
        messageFields([node], info.fragments),
      );
      const key = `${node.alias?.value ?? node.name.value}\0${JSON.stringify({ ...window, fields: undefined })}`;
      const seen = byResponseKey.get(key);
      byResponseKey.set(key, seen ? { ...window, fields: unionOfFields(seen.fields, window.fields) } : window);
    } catch {
      // Invalid arguments: the field itself reports them when it resolves.
    }
  }
  const windows = new Map([...byResponseKey.values()].map((window) => [JSON.stringify(window), window]));
  const shape = summaryShape({
    metadata: session.has('metadata'),
    feedbacks: session.has('feedbacks'),
    createdAt: session.has('createdAt'),
    agents: agentNodes.length > 0 || session.has('messageCount') || session.has('tokenUsage'),
    agentTimes: agent.has('createdAt') || agent.has('updatedAt'),
    agentData: agent.has('agentData'),
    messageCount: session.has('messageCount') || agent.has('messageCount'),
    lastMessage: agent.has('lastMessage'),
    lastMessageFields: agent.has('lastMessage') ? messageFields(agent.get('lastMessage')!, info.fragments, []) : null,
    tokens: session.has('tokenUsage'),
    windows: [...windows.values()],
  });
  return { shape, readsVariables };
}
