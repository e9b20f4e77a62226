import { getArgumentValues, type FieldNode, type GraphQLObjectType, type GraphQLResolveInfo } from 'graphql';
import { fieldNodesAt, subfields } from '../shared/selection';
import type { MessagesArgs } from './session.input';
import { summaryShape, type MessageWindow, type SummaryShape } from './session.repository';
import { messageWindow } from './session.service';

/** Per request (field nodes are per execution): the shape derived for a field's nodes and a path below them. */
const shapes = new WeakMap<readonly FieldNode[], Map<string, SummaryShape>>();

/**
 * What a session read must fetch for the Session selected at `path` below the resolved field (`[]`: the field
 * returns the Session; `['edges', 'node']`: a connection of them): metadata, feedbacks and agent_data only when
 * selected, the agents only when they or their counts are, token sums only for `tokenUsage`, and a page of messages
 * per `messages(...)` window selected on an agent, so that `session(id) { agents { messages(last: 20) { … } } }` is
 * one read.
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
  const windows = new Map<string, MessageWindow>();
  for (const node of agent.get('messages') ?? []) {
    try {
      const { window } = messageWindow(getArgumentValues(messages, node, info.variableValues) as MessagesArgs);
      windows.set(JSON.stringify(window), window);
    } catch {
      // Invalid arguments: the field itself reports them when it resolves.
    }
  }
  return summaryShape({
    metadata: session.has('metadata'),
    feedbacks: session.has('feedbacks'),
    agents: agentNodes.length > 0 || session.has('messageCount') || session.has('tokenUsage'),
    agentData: agent.has('agentData'),
    messageStats: session.has('messageCount') || agent.has('messageCount') || agent.has('lastMessage'),
    tokens: session.has('tokenUsage'),
    windows: [...windows.values()],
  });
}
