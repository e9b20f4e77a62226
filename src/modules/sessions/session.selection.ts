import { getArgumentValues, type FieldNode, type GraphQLObjectType, type GraphQLResolveInfo } from 'graphql';
import { fieldNodesAt, subfields } from '../shared/selection';
import type { MessagesArgs } from './session.input';
import { summaryShape, type MessageWindow, type SummaryShape } from './session.repository';
import { messageWindow } from './session.service';

/** The stored field each field of Message reads. */
const STORED_MESSAGE_FIELDS: Record<string, string> = {
  messageId: 'message_id',
  role: 'role',
  content: 'content',
  text: 'content',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
  eventLoopMetrics: 'event_loop_metrics',
};

/**
 * The stored message fields that `messages` field nodes select below `edges { node }`, sorted, with `message_id`
 * (cursors and paging read it); null (whole messages) when they select a field this list does not know.
 */
export function messageFields(nodes: readonly FieldNode[], fragments: GraphQLResolveInfo['fragments']): string[] | null {
  const fields = new Set(['message_id']);
  for (const name of subfields(fieldNodesAt({ fieldNodes: nodes, fragments }, ['edges', 'node']), fragments).keys()) {
    if (name === '__typename') continue;
    const stored = STORED_MESSAGE_FIELDS[name];
    if (!stored) return null;
    fields.add(stored);
  }
  return [...fields].sort();
}

function unionOfFields(a: string[] | null, b: string[] | null): string[] | null {
  return a && b ? [...new Set([...a, ...b])].sort() : null;
}

/** Per request (field nodes are per execution): the shape derived for a field's nodes and a path below them. */
const shapes = new WeakMap<readonly FieldNode[], Map<string, SummaryShape>>();

/**
 * What a session read must fetch for the Session selected at `path` below the resolved field (`[]`: the field
 * returns the Session; `['edges', 'node']`: a connection of them): metadata, feedbacks and agent_data only when
 * selected, the agents only when they or their counts are, token sums only for `tokenUsage`, and a page of messages
 * per `messages(...)` window selected on an agent (holding the message fields selected), so that
 * `session(id) { agents { messages(last: 20) { … } } }` is one read.
 */
export function sessionShape(info: GraphQLResolveInfo, path: readonly string[] = []): SummaryShape {
  let byPath = shapes.get(info.fieldNodes);
  if (!byPath) shapes.set(info.fieldNodes, (byPath = new Map()));
  const pathKey = path.join('.');
  let shape = byPath.get(pathKey);
  if (!shape) byPath.set(pathKey, (shape = deriveShape(info, path)));
  return shape;
}

function deriveShape(info: GraphQLResolveInfo, path: readonly string[]): SummaryShape {
  const session = subfields(fieldNodesAt(info, path), info.fragments);
  const agentNodes = [...(session.get('agents') ?? []), ...(session.get('agent') ?? [])];
  const agent = subfields(agentNodes, info.fragments);
  const messages = (info.schema.getType('Agent') as GraphQLObjectType).getFields().messages;
  // The nodes of one response key (alias) resolve together: their window returns the fields any of them selects.
  const byResponseKey = new Map<string, MessageWindow>();
  for (const node of agent.get('messages') ?? []) {
    try {
      const { window } = messageWindow(getArgumentValues(messages, node, info.variableValues) as MessagesArgs, messageFields([node], info.fragments));
      const key = `${node.alias?.value ?? node.name.value}\0${JSON.stringify({ ...window, fields: undefined })}`;
      const seen = byResponseKey.get(key);
      byResponseKey.set(key, seen ? { ...window, fields: unionOfFields(seen.fields, window.fields) } : window);
    } catch {
      // Invalid arguments: the field itself reports them when it resolves.
    }
  }
  const windows = new Map([...byResponseKey.values()].map((window) => [JSON.stringify(window), window]));
  return summaryShape({
    metadata: session.has('metadata'),
    feedbacks: session.has('feedbacks'),
    agents: agentNodes.length > 0 || session.has('messageCount') || session.has('tokenUsage'),
    agentData: agent.has('agentData'),
    messageCount: session.has('messageCount') || agent.has('messageCount'),
    lastMessage: agent.has('lastMessage'),
    tokens: session.has('tokenUsage'),
    windows: [...windows.values()],
  });
}
