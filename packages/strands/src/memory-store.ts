import type {
  AddMessagesContext,
  ExtractionConfig,
  JSONValue,
  MemoryEntry,
  MemoryStore,
  MessageData,
  SearchOptions,
} from '@strands-agents/sdk';
import { HindsightClient, HindsightError, type HindsightConnection } from './client.js';
import {
  AppendMessagesDocument,
  RecordExperienceDocument,
  RecordInsightDocument,
  type AgentType,
  type ExperienceOutcome,
  type InsightType,
  RecallDocument,
  type RecallPart,
} from './generated/graphql.js';
import { SessionCreator } from './sessions.js';

/** How `add` records a memory: an insight (agentInsights) or an experience (searchExperiences). */
export type MemoryKind = 'insight' | 'experience';

export interface HindsightMemoryStoreConfig extends HindsightConnection {
  /** The agent whose memories these are: insights' agentId, experiences' initiatingAgentId, recall's scope. */
  agentId: string;
  /** The end user they are about (recall's scope, and every write's userId); omit for memories of no one user. */
  userId?: string;
  /** The Hindsight session `addMessages` appends to (created on first use); required for `addMessages`. */
  sessionId?: string;
  /** Store name for the MemoryManager; default `hindsight`. */
  name?: string;
  description?: string;
  /** Default 3 (the SDK's), when the caller passes no `maxSearchResults`. */
  maxSearchResults?: number;
  /** Default true. */
  writable?: boolean;
  /** The SDK's extraction: with it, the manager hands the conversation to `addMessages` (no model call). */
  extraction?: boolean | ExtractionConfig;
  /** What `add` records, unless its metadata says `kind`; default `insight`. */
  addAs?: MemoryKind;
  /** agentType of recorded insights; default `EXECUTOR`. */
  agentType?: AgentType;
  /** type of recorded insights; default `PATTERNS`. */
  insightType?: InsightType;
  /** recall's token budget per search (50–100,000); default 2000. */
  budget?: number;
  /** recall's parts; default all. */
  include?: RecallPart[];
}

const ROLES = { user: 'USER', assistant: 'ASSISTANT' } as const;
const OUTCOMES = new Set<string>(['SUCCESS', 'FAILURE', 'PARTIAL_SUCCESS', 'ABANDONED']);
/** Hindsight's largest appendMessages batch. */
const APPEND_BATCH = 500;

const text = (value: JSONValue | undefined): string | undefined =>
  typeof value === 'string' && value.trim() ? value : undefined;

/**
 * A Strands `MemoryStore` kept in Hindsight. `search` answers from `recall` (what the agent should know, within a
 * token budget), one entry per recalled item; `add` records an insight or an experience of the configured agent and
 * user; `addMessages` appends the conversation to Hindsight's session store, so extraction needs no model call.
 * Hindsight's refusals are thrown as `HindsightError`s (code and message), never answered as an empty result.
 */
export class HindsightMemoryStore implements MemoryStore {
  readonly name: string;
  readonly description: string;
  readonly writable: boolean;
  readonly maxSearchResults?: number;
  readonly extraction?: boolean | ExtractionConfig;
  private readonly client: HindsightClient;
  private readonly sessions: SessionCreator;
  /** The last batch whose append failed, with its idempotency keys: retried as is, it reuses them. */
  private failedBatch: { fingerprint: string; keys: string[] } | null = null;

  constructor(private readonly config: HindsightMemoryStoreConfig) {
    if (!config.agentId) throw new TypeError('HindsightMemoryStore: agentId is required.');
    this.name = config.name ?? 'hindsight';
    this.description =
      config.description ??
      "Hindsight: this agent's experiences, insights, successful plans, tool warnings and past conversations.";
    this.writable = config.writable ?? true;
    if (config.maxSearchResults !== undefined) this.maxSearchResults = config.maxSearchResults;
    if (config.extraction !== undefined) this.extraction = config.extraction;
    this.client = new HindsightClient(config);
    this.sessions = new SessionCreator(this.client, config.userId);
  }

  async search(query: string, options?: SearchOptions): Promise<MemoryEntry[]> {
    const limit = options?.maxSearchResults ?? this.maxSearchResults;
    const { recall } = await this.client.request(RecallDocument, {
      query,
      scope: { agentId: this.config.agentId, ...(this.config.userId ? { userId: this.config.userId } : {}) },
      budget: this.config.budget ?? 2000,
      include: this.config.include ?? null,
    });
    const items = limit === undefined ? recall.items : recall.items.slice(0, limit);
    return items.map((item) => ({
      content: item.text,
      metadata: { kind: item.kind, id: item.id, score: item.score, why: item.why, tokens: item.tokens },
    }));
  }

  /**
   * Records `content` as an insight (default) or an experience (`addAs: 'experience'`, or `metadata.kind`). Metadata
   * read: `kind`; for an experience `subTask`, `outcome` (SUCCESS, FAILURE, PARTIAL_SUCCESS, ABANDONED; default
   * SUCCESS), `tags` (strings). Resolves with the new memory's id.
   */
  async add(content: string, metadata?: Record<string, JSONValue>): Promise<{ kind: MemoryKind; id: string }> {
    const kind = metadata?.kind === 'experience' || metadata?.kind === 'insight' ? metadata.kind : this.config.addAs;
    const { agentId, userId } = this.config;
    if (kind === 'experience') {
      const outcome = text(metadata?.outcome)?.toUpperCase();
      const tags = Array.isArray(metadata?.tags) ? metadata.tags.filter((tag) => typeof tag === 'string') : [];
      const { recordExperience } = await this.client.request(RecordExperienceDocument, {
        input: {
          initiatingAgentId: agentId,
          primaryGoalDescription: content,
          subTaskDescription: text(metadata?.subTask) ?? content,
          finalOutcome: outcome && OUTCOMES.has(outcome) ? (outcome as ExperienceOutcome) : 'SUCCESS',
          tags: ['strands-memory', ...tags],
          ...(userId ? { userId } : {}),
          ...(this.config.sessionId ? { sessionId: this.config.sessionId } : {}),
        },
      });
      return { kind, id: recordExperience.experienceId };
    }
    const { recordInsight } = await this.client.request(RecordInsightDocument, {
      input: {
        agentType: this.config.agentType ?? 'EXECUTOR',
        type: this.config.insightType ?? 'PATTERNS',
        agentId,
        insight: content,
        ...(userId ? { userId } : {}),
      },
    });
    return { kind: 'insight', id: recordInsight.id };
  }

  /**
   * Appends the batch to the configured session's agent (`agentId`), in order, in atomic batches of up to 500; a
   * session or agent that does not exist yet is created (the session with `userId`). A batch retried after a failure (the same messages and sequence
   * numbers) reuses its idempotency keys, so Hindsight stores it once. Resolves with the stored message ids.
   */
  async addMessages(messages: MessageData[], context?: AddMessagesContext): Promise<number[]> {
    const sessionId = this.config.sessionId;
    if (!sessionId) throw new TypeError('HindsightMemoryStore.addMessages needs a sessionId in its config.');
    if (messages.length === 0) return [];
    const inputs = messages.map((message) => ({ role: ROLES[message.role], content: message.content }));
    const fingerprint = JSON.stringify([context?.sequenceNumbers ?? null, inputs]);
    const chunks = Math.ceil(inputs.length / APPEND_BATCH);
    const keys =
      this.failedBatch?.fingerprint === fingerprint
        ? this.failedBatch.keys
        : Array.from({ length: chunks }, () => `strands-${crypto.randomUUID()}`);
    const ids: number[] = [];
    try {
      for (let chunk = 0; chunk < chunks; chunk++) {
        const variables = {
          sessionId,
          agentId: this.config.agentId,
          inputs: inputs.slice(chunk * APPEND_BATCH, (chunk + 1) * APPEND_BATCH),
          idempotencyKey: keys[chunk],
        };
        const { appendMessages } = await this.client.request(AppendMessagesDocument, variables).catch(async (error) => {
          // The session or the agent is not there (yet, or any more): make them and append again (a refused write stored
          // nothing, its key included).
          if (!(error instanceof HindsightError && error.code === 'NOT_FOUND')) throw error;
          this.sessions.forget(sessionId);
          await this.sessions.ensureAgent(sessionId, this.config.agentId);
          return this.client.request(AppendMessagesDocument, variables);
        });
        ids.push(...appendMessages.map((message) => message.messageId));
      }
    } catch (error) {
      this.failedBatch = { fingerprint, keys };
      throw error;
    }
    this.failedBatch = null;
    return ids;
  }
}
