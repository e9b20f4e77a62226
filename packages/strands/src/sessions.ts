import { HindsightError, type HindsightClient } from './client.js';
import { CreateSessionDocument, UpsertAgentDocument } from './generated/graphql.js';

/** Runs `make` once per key while it succeeds; concurrent callers share one run, and a failure lets the next try. */
function once(cache: Map<string, Promise<void>>, key: string, make: () => Promise<void>): Promise<void> {
  let made = cache.get(key);
  if (!made) {
    made = make();
    cache.set(key, made);
    made.catch(() => cache.delete(key));
  }
  return made;
}

/**
 * Creates Hindsight sessions (and their agents) on first use, once per id per instance: a session that already exists
 * (CONFLICT: made by another process or an earlier run) is used as it is, and an agent is upserted with no data, which
 * keeps whatever it already holds.
 */
export class SessionCreator {
  private readonly sessions = new Map<string, Promise<void>>();
  /** Per session id: its agents made ready. */
  private readonly agents = new Map<string, Map<string, Promise<void>>>();

  constructor(
    private readonly client: HindsightClient,
    private readonly userId: string | undefined,
  ) {}

  ensure(sessionId: string): Promise<void> {
    return once(this.sessions, sessionId, async () => {
      try {
        await this.client.request(CreateSessionDocument, {
          input: { sessionId, sessionType: 'AGENT', ...(this.userId ? { userId: this.userId } : {}) },
        });
      } catch (error) {
        if (!(error instanceof HindsightError && error.code === 'CONFLICT')) throw error;
      }
    });
  }

  /** The session, then its agent `agentId` (appendMessages needs both). */
  ensureAgent(sessionId: string, agentId: string): Promise<void> {
    let agents = this.agents.get(sessionId);
    if (!agents) this.agents.set(sessionId, (agents = new Map()));
    return once(agents, agentId, async () => {
      await this.ensure(sessionId);
      await this.client.request(UpsertAgentDocument, { sessionId, input: { agentId, agentData: {} } });
    });
  }

  /** Forgets a session (after it was deleted) and its agents, so that their next use creates them again. */
  forget(sessionId: string): void {
    this.sessions.delete(sessionId);
    this.agents.delete(sessionId);
  }
}
