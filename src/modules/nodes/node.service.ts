import { ValidationError } from '../../errors';
import type { ExperienceLoaders } from '../experiences/experience.loaders';
import type { PlanLoaders } from '../plans/plan.loaders';
import type { SessionLoaders } from '../sessions/session.loaders';
import type { TaskLoaders } from '../tasks/task.loaders';
import type { NodeLoaders } from './node.loaders';
import { toExperience } from '../experiences/experience.type';
import { toAgentInsight } from '../insights/insight.type';
import { toPlanPattern } from '../plans/plan.type';
import { toToolPerformance } from '../tools/tool.service';
import type { ToolPerformance } from '../tools/tool.type';
import { FULL_SUMMARY, type AgentRef } from '../sessions/session.repository';
import type { Agent, Session } from '../sessions/session.type';
import { toTask, type Task } from '../tasks/task.type';
import type { Action } from '../runs/run.type';
import { parseGlobalId, type NodeKey } from './node.id';
import { asNode, type Node } from '../shared/node';
import { EXPERIENCE_VALIDITY, INSIGHT_VALIDITY, isCurrentAt } from '../shared/validity.filter';
import type { Document } from 'mongodb';

/** Most ids one `nodes` call takes. */
export const MAX_NODES = 100;

/**
 * Fetches entities by global id and the parents that mutation results refer back to, all through the request's
 * DataLoaders: the ids of one type in a request become one read (sessions and their agents share one).
 */
export class NodeService {
  constructor(
    private readonly loaders: {
      sessions: SessionLoaders;
      experiences: ExperienceLoaders;
      tasks: TaskLoaders;
      plans: PlanLoaders;
      nodes: NodeLoaders;
    },
  ) {}

  /**
   * The entity of a global id; null when it does not exist, or is a memory (experience, insight) that is not current
   * unless `includeSuperseded`; BAD_USER_INPUT naming `id` when it is not a node id.
   */
  node(id: string, includeSuperseded = false): Promise<Node | null> {
    return this.load(parseGlobalId(id, 'id'), includeSuperseded);
  }

  /** The entities of the ids, in order (null for each missing one, as `node`); BAD_USER_INPUT naming the first bad id. */
  nodes(ids: readonly string[], includeSuperseded = false): Promise<Array<Node | null>> {
    if (ids.length > MAX_NODES) throw new ValidationError(`At most ${MAX_NODES} ids.`, 'ids');
    const keys = ids.map((id, index) => parseGlobalId(id, `ids.${index}`));
    return Promise.all(keys.map((key) => this.load(key, includeSuperseded)));
  }

  /** A session as a write leaves it (the loaders are cleared after every write), null when it does not exist. */
  session(sessionId: string): Promise<Session | null> {
    return this.loaders.sessions.sessionById.load({ sessionId, shape: FULL_SUMMARY });
  }

  /** A task as stored now, null when it does not exist. */
  async task(taskId: string): Promise<Task | null> {
    const document = await this.loaders.tasks.taskById.load(taskId);
    return document && toTask(document);
  }

  /** The figures over all contexts of the tools named (each once, in first-seen order); zeros for one that never ran. */
  toolsOverall(names: readonly string[]): Promise<ToolPerformance[]> {
    return Promise.all(
      [...new Set(names)].map(async (name) =>
        toToolPerformance(name, await this.loaders.nodes.toolByName.load(name), null),
      ),
    );
  }

  /** An iteration of a task's run, null when it does not exist. */
  action(taskId: string, iteration: number): Promise<Action | null> {
    return this.loaders.nodes.actionById.load({ taskId, iteration });
  }

  async agent({ sessionId, agentId }: AgentRef): Promise<Agent | null> {
    return (await this.session(sessionId))?.agents.find((agent) => agent.agentId === agentId) ?? null;
  }

  private async load(node: NodeKey, includeSuperseded: boolean): Promise<Node | null> {
    const found = await this.find(node, includeSuperseded ? null : new Date());
    return found && (asNode(found, node.type) as Node);
  }

  /** The entity of a key; with `currentAt`, a memory not current then is null. */
  private async find({ type, key }: NodeKey, currentAt: Date | null): Promise<object | null> {
    switch (type) {
      case 'Session':
        return this.session(key[0]);
      case 'Agent':
        return this.agent({ sessionId: key[0], agentId: key[1] });
      case 'Message':
        return this.loaders.nodes.messageById.load({ sessionId: key[0], agentId: key[1], messageId: key[2] });
      case 'Experience': {
        const document = await this.loaders.experiences.experienceById.load(key[0]);
        if (document && currentAt && !isCurrentAt(EXPERIENCE_VALIDITY, document as unknown as Document, currentAt))
          return null;
        return document && toExperience(document);
      }
      case 'Task':
        return this.task(key[0]);
      case 'Feedback':
        return (await this.session(key[0]))?.feedbacks.find((feedback) => feedback.index === key[1]) ?? null;
      case 'Action':
        return this.action(key[0], key[1]);
      case 'ToolCall':
        return (await this.action(key[0], key[1]))?.toolCalls.find((call) => call.index === key[2]) ?? null;
      case 'ToolPerformance': {
        const document = await this.loaders.nodes.toolByName.load(key[0]);
        return document && toToolPerformance(key[0], document, key[1]);
      }
      case 'AgentInsight': {
        const document = await this.loaders.nodes.insightById.load(key[0]);
        if (document && currentAt && !isCurrentAt(INSIGHT_VALIDITY, document as unknown as Document, currentAt))
          return null;
        return document && toAgentInsight(document);
      }
      case 'PlanPattern': {
        const document = await this.loaders.plans.planPatternById.load(key[0]);
        return document && toPlanPattern(document);
      }
    }
  }
}
