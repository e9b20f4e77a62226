/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
/** An agent of the pipeline; stored as 'thought', 'planner' or 'executor'. */
export type AgentType =
  | 'EXECUTOR'
  | 'PLANNER'
  | 'THOUGHT';

export type AppendMessageInput = {
  /** A string or an array of content blocks (objects); at most 100 KB. */
  content: unknown;
  eventLoopMetrics?: EventLoopMetricsInput | null | undefined;
  role: MessageRole;
};

export type CreateSessionInput = {
  /** Stored as application_name (the Strands MongoDB session manager's); at most 255 characters. */
  applicationName?: string | null | undefined;
  /** When it expires: gone for every read from then on, deleted by the database (a TTL index) within about a minute after. Not with ttlSeconds. The whole session goes, its messages with it. */
  expiresAt?: string | null | undefined;
  /** At most 1 MB; keys must not start with $ or contain a dot. */
  metadata?: Record<string, unknown> | null | undefined;
  /** At most 255 ASCII characters; generated (a UUID) when absent. */
  sessionId?: string | null | undefined;
  /** At most 50 characters. */
  sessionType?: string;
  /** Seconds from now (at least 1) after which it expires, as expiresAt. Not with expiresAt. */
  ttlSeconds?: number | null | undefined;
  /** The end user the session is about; stored as user_id (the SDKs ignore it); at most 200 characters. */
  userId?: string | null | undefined;
};

/** Stored as event_loop_metrics {accumulated_metrics {latencyMs}, accumulated_usage {inputTokens outputTokens totalTokens}}. */
export type EventLoopMetricsInput = {
  /** A whole number (Float: counts can pass 2^31). */
  inputTokens?: number | null | undefined;
  latencyMs?: number | null | undefined;
  outputTokens?: number | null | undefined;
  /** Defaults to inputTokens + outputTokens when both are given. */
  totalTokens?: number | null | undefined;
};

/** Final outcome of an experience; stored as 'success', 'failure', 'partial_success' or 'abandoned'. */
export type ExperienceOutcome =
  | 'ABANDONED'
  | 'FAILURE'
  | 'PARTIAL_SUCCESS'
  | 'SUCCESS';

/** Feedback on an experience. Typed keys are stored snake_case (user_rating, ...); `extra` keys as given. */
export type FeedbackSignalsInput = {
  comment?: string | null | undefined;
  correctionNeeded?: boolean | null | undefined;
  errorType?: string | null | undefined;
  /** Any other keys (no `.` or leading `$`). */
  extra?: Record<string, unknown> | null | undefined;
  /** Whether the experience helped (e.g. after recall found it): true counts one use, which ranks it higher (docs/search.md#ranking). */
  helpful?: boolean | null | undefined;
  userRating?: number | null | undefined;
};

/** A task that supports an insight. */
export type InsightEvidenceInput = {
  description: string;
  taskId: string;
};

/** What an insight is about; stored as 'patterns', 'optimizations' or 'warnings'. */
export type InsightType =
  | 'OPTIMIZATIONS'
  | 'PATTERNS'
  | 'WARNINGS';

/** Author of a message (stored as user, assistant, system). */
export type MessageRole =
  | 'ASSISTANT'
  | 'SYSTEM'
  | 'USER';

/** What recall may include: EXPERIENCES (outcomes and lessons), INSIGHTS, PLANS (that worked), TOOL_WARNINGS (tools that fail on similar tasks), MESSAGES (past conversation). */
export type RecallPart =
  | 'EXPERIENCES'
  | 'INSIGHTS'
  | 'MESSAGES'
  | 'PLANS'
  | 'TOOL_WARNINGS';

/** Whose memories recall reads; every given field narrows it. */
export type RecallScopeInput = {
  /** Only memories of this agent: experiences it initiated, insights scoped to it, its messages. */
  agentId?: string | null | undefined;
  /** Only this session's messages (memories learned in other sessions still count). */
  sessionId?: string | null | undefined;
  /** Only memories about this end user (experiences, insights, plans, tool figures, messages). */
  userId?: string | null | undefined;
};

/** A new experience (seed 000). Required: the goal, the sub-task, the agent and the outcome. */
export type RecordExperienceInput = {
  /** true (the default without an experienceId): when a current experience of the same agent, user and outcome has the same goal and sub-task (after normalisation, or nearly: see docs/lifecycle.md), count one more occurrence of it (tags merged) and return it instead of storing a copy. false (the default with an experienceId, which the caller will look for): store a copy anyway. */
  dedupe?: boolean | null | undefined;
  /** Unique id (at most 200 characters); a UUID is generated when absent. */
  experienceId?: string | number | null | undefined;
  /** When it expires: gone for every read from then on, deleted by the database (a TTL index) within about a minute after. Not with ttlSeconds. */
  expiresAt?: string | null | undefined;
  feedbackSignals?: FeedbackSignalsInput | null | undefined;
  finalOutcome: ExperienceOutcome;
  /** At most 200 characters. */
  initiatingAgentId: string;
  inputContextSummary?: string | null | undefined;
  involvedComponents?: Array<string> | null | undefined;
  /** A list of strings, or a structured object. */
  keyDecisionsMade?: unknown;
  outputSummary?: string | null | undefined;
  primaryGoalDescription: string;
  /** At most 200 characters. */
  sessionId?: string | null | undefined;
  subTaskDescription: string;
  tags?: Array<string> | null | undefined;
  /** When it happened; default now. */
  timestamp?: string | null | undefined;
  /** Seconds from now (at least 1) after which it expires, as expiresAt. Not with expiresAt. */
  ttlSeconds?: number | null | undefined;
  /** The end user the experience is about; at most 200 characters. */
  userId?: string | null | undefined;
  /** Valid from; default: now (when it is recorded). */
  validFrom?: string | null | undefined;
  /** Valid until (after validFrom); default: open. */
  validUntil?: string | null | undefined;
  /** Record schema version; default 1. */
  version?: number | null | undefined;
  /** At most 200 characters. */
  workflowId?: string | null | undefined;
};

/** An insight of an agent. The same text (case and spacing aside) of one agent and type is one insight: recording it again adds evidence. */
export type RecordInsightInput = {
  /** The one agent the insight is scoped to (at most 200 characters), beside its agentType. */
  agentId?: string | null | undefined;
  agentType: AgentType;
  /** Starting confidence of a new insight (0–1, default 0.5); ignored for a known one. */
  confidence?: number | null | undefined;
  evidence?: Array<InsightEvidenceInput> | null | undefined;
  /** When it expires: gone for every read from then on, deleted by the database (a TTL index) within about a minute after. Not with ttlSeconds. Recording it again with an expiry replaces it; without, keeps it. */
  expiresAt?: string | null | undefined;
  insight: string;
  /** Seconds from now (at least 1) after which it expires, as expiresAt. Not with expiresAt. */
  ttlSeconds?: number | null | undefined;
  type: InsightType;
  /** The end user the insight is about (at most 200 characters); each user has their own insights. */
  userId?: string | null | undefined;
  /** Valid from, for a new insight; default: now. */
  validFrom?: string | null | undefined;
  /** Valid until (after validFrom), for a new insight; default: open. */
  validUntil?: string | null | undefined;
};

export type UpsertAgentInput = {
  /** Stored in agent_data (Strands SDK SessionAgent) one field per path, like its MongoDB session manager: other stored fields stay; agent_id is agentId; created_at/updated_at (ISO strings) are stored as dates (defaults: kept or now). */
  agentData: Record<string, unknown>;
  /** Becomes a field name: no dot, no leading $, at most 255 characters. */
  agentId: string;
};

export type RecordInsightMutationVariables = Exact<{
  input: RecordInsightInput;
}>;


export type RecordInsightMutation = { recordInsight: { id: string } };

export type RecordExperienceMutationVariables = Exact<{
  input: RecordExperienceInput;
}>;


export type RecordExperienceMutation = { recordExperience: { experienceId: string } };

export type RecallQueryVariables = Exact<{
  query: string;
  scope?: RecallScopeInput | null | undefined;
  budget: number;
  include?: Array<RecallPart> | RecallPart | null | undefined;
}>;


export type RecallQuery = { recall: { items: Array<{ kind: RecallPart, id: string, score: number, why: string, text: string, tokens: number }> } };

export type CreateSessionMutationVariables = Exact<{
  input: CreateSessionInput;
}>;


export type CreateSessionMutation = { createSession: { sessionId: string } };

export type AppendMessagesMutationVariables = Exact<{
  sessionId: string | number;
  agentId: string;
  inputs: Array<AppendMessageInput> | AppendMessageInput;
  idempotencyKey?: string | null | undefined;
}>;


export type AppendMessagesMutation = { appendMessages: Array<{ messageId: number }> };

export type UpsertAgentMutationVariables = Exact<{
  sessionId: string | number;
  input: UpsertAgentInput;
}>;


export type UpsertAgentMutation = { upsertAgent: { agentId: string } };

export type AgentDataQueryVariables = Exact<{
  sessionId: string | number;
  agentId: string;
}>;


export type AgentDataQuery = { session: { agent: { agentData: { raw: Record<string, unknown> } } | null } };

export type DeleteSessionMutationVariables = Exact<{
  id: string | number;
}>;


export type DeleteSessionMutation = { deleteSession: boolean };

export class TypedDocumentString<TResult, TVariables>
  extends String
  implements DocumentTypeDecoration<TResult, TVariables>
{
  __apiType?: NonNullable<DocumentTypeDecoration<TResult, TVariables>['__apiType']>;
  private value: string;
  public __meta__?: Record<string, any> | undefined;

  constructor(value: string, __meta__?: Record<string, any> | undefined) {
    super(value);
    this.value = value;
    this.__meta__ = __meta__;
  }

  override toString(): string & DocumentTypeDecoration<TResult, TVariables> {
    return this.value;
  }
}

export const RecordInsightDocument = new TypedDocumentString(`
    mutation RecordInsight($input: RecordInsightInput!) {
  recordInsight(input: $input) {
    id
  }
}
    `) as unknown as TypedDocumentString<RecordInsightMutation, RecordInsightMutationVariables>;
export const RecordExperienceDocument = new TypedDocumentString(`
    mutation RecordExperience($input: RecordExperienceInput!) {
  recordExperience(input: $input) {
    experienceId
  }
}
    `) as unknown as TypedDocumentString<RecordExperienceMutation, RecordExperienceMutationVariables>;
export const RecallDocument = new TypedDocumentString(`
    query Recall($query: String!, $scope: RecallScopeInput, $budget: Int!, $include: [RecallPart!]) {
  recall(query: $query, scope: $scope, budget: $budget, include: $include) {
    items {
      kind
      id
      score
      why
      text
      tokens
    }
  }
}
    `) as unknown as TypedDocumentString<RecallQuery, RecallQueryVariables>;
export const CreateSessionDocument = new TypedDocumentString(`
    mutation CreateSession($input: CreateSessionInput!) {
  createSession(input: $input) {
    sessionId
  }
}
    `) as unknown as TypedDocumentString<CreateSessionMutation, CreateSessionMutationVariables>;
export const AppendMessagesDocument = new TypedDocumentString(`
    mutation AppendMessages($sessionId: ID!, $agentId: String!, $inputs: [AppendMessageInput!]!, $idempotencyKey: String) {
  appendMessages(
    sessionId: $sessionId
    agentId: $agentId
    inputs: $inputs
    idempotencyKey: $idempotencyKey
  ) {
    messageId
  }
}
    `) as unknown as TypedDocumentString<AppendMessagesMutation, AppendMessagesMutationVariables>;
export const UpsertAgentDocument = new TypedDocumentString(`
    mutation UpsertAgent($sessionId: ID!, $input: UpsertAgentInput!) {
  upsertAgent(sessionId: $sessionId, input: $input) {
    agentId
  }
}
    `) as unknown as TypedDocumentString<UpsertAgentMutation, UpsertAgentMutationVariables>;
export const AgentDataDocument = new TypedDocumentString(`
    query AgentData($sessionId: ID!, $agentId: String!) {
  session(id: $sessionId) {
    agent(agentId: $agentId) {
      agentData {
        raw
      }
    }
  }
}
    `) as unknown as TypedDocumentString<AgentDataQuery, AgentDataQueryVariables>;
export const DeleteSessionDocument = new TypedDocumentString(`
    mutation DeleteSession($id: ID!) {
  deleteSession(id: $id)
}
    `) as unknown as TypedDocumentString<DeleteSessionMutation, DeleteSessionMutationVariables>;