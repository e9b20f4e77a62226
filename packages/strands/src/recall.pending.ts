// Stand-in for the codegen'd Recall operation until `recall` is in schema/schema.graphql (the agreed contract).
import { TypedDocumentString } from './generated/graphql.js';

export type RecallPart = 'EXPERIENCES' | 'INSIGHTS' | 'PLANS' | 'TOOL_WARNINGS' | 'MESSAGES';
export type RecallQueryVariables = {
  query: string;
  scope?: { userId?: string | null; agentId?: string | null; sessionId?: string | null } | null;
  budget?: number;
  include?: RecallPart[] | null;
};
export type RecallQuery = {
  recall: {
    tokens: number;
    items: Array<{ kind: RecallPart; id: string; score: number; why: string; text: string; tokens: number }>;
  };
};
export const RecallDocument = new TypedDocumentString(`
query Recall($query: String!, $scope: RecallScopeInput, $budget: Int!, $include: [RecallPart!]) {
  recall(query: $query, scope: $scope, budget: $budget, include: $include) {
    tokens
    items {
      kind
      id
      score
      why
      text
      tokens
    }
  }
}`) as unknown as TypedDocumentString<RecallQuery, RecallQueryVariables>;
