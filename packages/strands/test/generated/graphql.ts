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

/** Conditions on experiences; all given conditions must hold. */
export type ExperienceFilter = {
  /** This component is among involved_components. */
  component?: string | null | undefined;
  initiatingAgentId?: string | null | undefined;
  /** Any of these outcomes. */
  outcomes?: Array<ExperienceOutcome> | null | undefined;
  sessionId?: string | null | undefined;
  /** timestamp >= since. */
  since?: string | null | undefined;
  /** All of these tags. */
  tagsAll?: Array<string> | null | undefined;
  /** At least one of these tags. */
  tagsAny?: Array<string> | null | undefined;
  /** timestamp < until. */
  until?: string | null | undefined;
  /** Only experiences about this end user. */
  userId?: string | null | undefined;
  workflowId?: string | null | undefined;
};

/** Final outcome of an experience; stored as 'success', 'failure', 'partial_success' or 'abandoned'. */
export type ExperienceOutcome =
  | 'ABANDONED'
  | 'FAILURE'
  | 'PARTIAL_SUCCESS'
  | 'SUCCESS';

/** Author of a message (stored as user, assistant, system). */
export type MessageRole =
  | 'ASSISTANT'
  | 'SYSTEM'
  | 'USER';

export type SessionMessagesQueryVariables = Exact<{
  sessionId: string | number;
  agentId: string;
}>;


export type SessionMessagesQuery = { session: { userId: string | null, agent: { messages: { edges: Array<{ node: { messageId: number, role: MessageRole, text: string, content: unknown } }> } } | null } };

export type UserInsightsQueryVariables = Exact<{
  agentType: AgentType;
  agentId?: string | null | undefined;
  userId?: string | null | undefined;
}>;


export type UserInsightsQuery = { agentInsights: { insights: Array<{ insight: string, agentId: string | null, userId: string | null }> } };

export type UserExperiencesQueryVariables = Exact<{
  filter?: ExperienceFilter | null | undefined;
}>;


export type UserExperiencesQuery = { experiences: { edges: Array<{ node: { primaryGoalDescription: string, initiatingAgentId: string, userId: string | null } }> } };

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

export const SessionMessagesDocument = new TypedDocumentString(`
    query SessionMessages($sessionId: ID!, $agentId: String!) {
  session(id: $sessionId) {
    userId
    agent(agentId: $agentId) {
      messages(first: 500) {
        edges {
          node {
            messageId
            role
            text
            content
          }
        }
      }
    }
  }
}
    `) as unknown as TypedDocumentString<SessionMessagesQuery, SessionMessagesQueryVariables>;
export const UserInsightsDocument = new TypedDocumentString(`
    query UserInsights($agentType: AgentType!, $agentId: String, $userId: String) {
  agentInsights(agentType: $agentType, agentId: $agentId, userId: $userId) {
    insights {
      insight
      agentId
      userId
    }
  }
}
    `) as unknown as TypedDocumentString<UserInsightsQuery, UserInsightsQueryVariables>;
export const UserExperiencesDocument = new TypedDocumentString(`
    query UserExperiences($filter: ExperienceFilter) {
  experiences(filter: $filter) {
    edges {
      node {
        primaryGoalDescription
        initiatingAgentId
        userId
      }
    }
  }
}
    `) as unknown as TypedDocumentString<UserExperiencesQuery, UserExperiencesQueryVariables>;