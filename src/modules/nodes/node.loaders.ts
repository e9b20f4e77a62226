import type DataLoader from 'dataloader';
import { createByIdLoader, createLoader, type LoaderSettings } from '../shared/loaders';
import type { AgentInsightDocument } from '../insights/insight.document';
import type { AgentInsightRepository } from '../insights/insight.repository';
import type { ToolPerformanceDocument } from '../tools/tool.document';
import type { ToolPerformanceRepository } from '../tools/tool.repository';
import type { MessageRef, SessionRepository } from '../sessions/session.repository';
import { Message } from '../sessions/session.type';
import { toAction } from '../runs/run.type';
import type { Action } from '../runs/run.type';
import type { TaskRepository } from '../tasks/task.repository';

export interface NodeLoaders {
  /** Messages by session, agent and message id (null for a miss); every load of a tick is one aggregate. */
  messageById: DataLoader<MessageRef, Message | null, string>;
  /** Actions by task and iteration (null for a miss); every load of a tick is one aggregate. */
  actionById: DataLoader<ActionRef, Action | null, string>;
  /** Tools' stored figures by tool name (null for a tool that never ran); every load of a tick is one find. */
  toolByName: DataLoader<string, ToolPerformanceDocument | null, string>;
  /** Insights by insightId (null for a miss); every load of a tick is one find. */
  insightById: DataLoader<string, AgentInsightDocument | null, string>;
}

/** An iteration of a task's run. */
export interface ActionRef {
  taskId: string;
  iteration: number;
}

const actionKey = (ref: ActionRef) => JSON.stringify([ref.taskId, ref.iteration]);
const messageKey = (ref: MessageRef) => JSON.stringify([ref.sessionId, ref.agentId, ref.messageId]);

/** Per-request loaders of what `node(id)` reads that no feature loads by id. */
export function createNodeLoaders(
  repositories: {
    sessions: SessionRepository;
    tasks: TaskRepository;
    tools: ToolPerformanceRepository;
    insights: AgentInsightRepository;
  },
  settings: LoaderSettings,
): NodeLoaders {
  const { sessions, tasks, tools, insights } = repositories;
  return {
    toolByName: createByIdLoader(
      settings,
      (names) => tools.findByNames(names),
      (row) => row.toolName,
    ),
    insightById: createByIdLoader(
      settings,
      (ids) => insights.findByIds(ids),
      (row) => row.insightId,
    ),
    messageById: createLoader<MessageRef, Message | null, string>(
      settings,
      async (refs) => {
        const found = new Map<string, Message>();
        for (const agent of await sessions.findMessages(refs)) {
          for (const message of agent.messages) {
            const built = Message.fromDocument(message, agent);
            found.set(messageKey({ ...agent, messageId: built.messageId }), built);
          }
        }
        return refs.map((ref) => found.get(messageKey(ref)) ?? null);
      },
      { cacheKeyFn: messageKey },
    ),
    actionById: createLoader<ActionRef, Action | null, string>(
      settings,
      async (refs) => {
        const found = new Map<string, Action>();
        for (const task of await tasks.findActions(refs)) {
          for (const action of task.actions)
            found.set(actionKey({ taskId: task.taskId, iteration: action.iteration }), toAction(action, task.taskId));
        }
        return refs.map((ref) => found.get(actionKey(ref)) ?? null);
      },
      { cacheKeyFn: actionKey },
    ),
  };
}
