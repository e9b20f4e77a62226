import type DataLoader from 'dataloader';
import { createLoader, type LoaderSettings } from '../shared/loaders';
import {
  messagePageKey,
  type AgentRef,
  type MessagePage,
  type MessageWindow,
  type SessionRepository,
  type SessionSummary,
  type SummaryShape,
} from './session.repository';
import { Session } from './session.type';

/** A page of one agent's messages, as a `messagePage` key. */
export interface MessagePageRequest extends AgentRef {
  window: MessageWindow;
}

/** A session to read, and what to compute with it. */
export interface SessionRead {
  sessionId: string;
  shape: SummaryShape;
}

/** The sessions feature's per-request DataLoaders. */
export interface SessionLoaders {
  /**
   * Sessions by id and shape (null for a miss). One aggregate per shape in a batch returns each session with what
   * its shape asks for (agents, their counts, token sums, last messages and pages of messages), never the message
   * arrays, so resolving the agents and messages of many sessions reads the collection once. The pages it reads
   * are primed into `messagePage`.
   */
  sessionById: DataLoader<SessionRead, Session | null, string>;
  /** Message pages of agents (null: no such agent); one aggregate per distinct window in a batch. */
  messagePage: DataLoader<MessagePageRequest, MessagePage | null, string>;
}

const messagePageRequestKey = (request: MessagePageRequest) =>
  JSON.stringify([request.sessionId, request.agentId, request.window]);

function groupBy<T>(items: readonly T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}

/** The Session of a summary read with `shape`; the message pages read with it are primed into `messagePage`. */
export function sessionFromSummary(loaders: SessionLoaders, summary: SessionSummary, shape: SummaryShape): Session {
  for (const agent of summary.agents) {
    agent.pages?.forEach((page, index) => {
      loaders.messagePage.prime(
        { sessionId: summary._id, agentId: agent.agent_id, window: shape.windows[index] },
        page,
      );
    });
  }
  return Session.fromSummary(summary);
}

/** Per-request loaders of the sessions feature. */
export function createSessionLoaders(repository: SessionRepository, settings: LoaderSettings): SessionLoaders {
  // A read's key names its shape by a number given per request: keys built from the shape's JSON (a few hundred
  // characters) were hashed anew for every session, ~4% of the CPU of a page of 50 experiences with their sessions.
  const shapeNumbers = new Map<string, number>();
  const sessionReadKey = (read: SessionRead) => {
    let shape = shapeNumbers.get(read.shape.key);
    if (shape === undefined) shapeNumbers.set(read.shape.key, (shape = shapeNumbers.size));
    return `${shape}\0${read.sessionId}`;
  };
  const loaders: SessionLoaders = {
    sessionById: createLoader<SessionRead, Session | null, string>(
      settings,
      async (reads) => {
        // Per shape (equal shapes share one), the sessions read by id: no string key per read.
        const byShape = new Map<SummaryShape, Map<string, Session>>();
        await Promise.all(
          [...groupBy(reads, (read) => read.shape.key).values()].map(async (group) => {
            const { shape } = group[0];
            const sessions = new Map<string, Session>();
            for (const read of group) byShape.set(read.shape, sessions);
            for (const summary of await repository.findSummaries(
              [...new Set(group.map((read) => read.sessionId))],
              shape,
            )) {
              sessions.set(summary._id, sessionFromSummary(loaders, summary, shape));
            }
          }),
        );
        return reads.map((read) => byShape.get(read.shape)!.get(read.sessionId) ?? null);
      },
      { cacheKeyFn: sessionReadKey },
    ),
    messagePage: createLoader<MessagePageRequest, MessagePage | null, string>(
      settings,
      async (requests) => {
        const pages = new Map<string, MessagePage>();
        await Promise.all(
          [...groupBy(requests, (request) => JSON.stringify(request.window)).values()].map(async (group) => {
            const { window } = group[0];
            for (const [agent, page] of await repository.messagePages(group, window))
              pages.set(`${agent}${JSON.stringify(window)}`, page);
          }),
        );
        return requests.map(
          (request) => pages.get(`${messagePageKey(request)}${JSON.stringify(request.window)}`) ?? null,
        );
      },
      { cacheKeyFn: messagePageRequestKey },
    ),
  };
  return loaders;
}
