import { ValidationError } from '../../errors';
import { checkScopeId } from '../shared/user-scope';
import type { RecallRequest } from './recall.collectors';
import type { RecallArgs } from './recall.input';
import { RECALL_PARTS, type RecallPart } from './recall.type';

export const MIN_RECALL_BUDGET = 50;
export const MAX_RECALL_BUDGET = 100_000;

/** The checked arguments of `recall`: the query and scope for the collectors, the budget, the parts asked for. */
export interface CheckedRecall {
  query: string;
  scope: RecallRequest['scope'];
  budget: number;
  parts: RecallPart[];
}

/** Checks recall's arguments; each failure is BAD_USER_INPUT naming its field. */
export function checkRecallArgs(args: RecallArgs): CheckedRecall {
  const query = args.query.trim();
  if (!query) throw new ValidationError('query must not be blank.', 'query');
  if (!Number.isInteger(args.budget) || args.budget < MIN_RECALL_BUDGET || args.budget > MAX_RECALL_BUDGET) {
    throw new ValidationError(
      `budget must be an integer from ${MIN_RECALL_BUDGET} to ${MAX_RECALL_BUDGET} tokens.`,
      'budget',
    );
  }
  if (args.include && !args.include.length)
    throw new ValidationError('include must name at least one part.', 'include');
  const userId = checkScopeId(args.scope?.userId, 'scope.userId');
  const agentId = checkScopeId(args.scope?.agentId, 'scope.agentId');
  const sessionId = checkScopeId(args.scope?.sessionId, 'scope.sessionId');
  const scope: CheckedRecall['scope'] = {
    ...(userId !== undefined ? { userId } : {}),
    ...(agentId !== undefined ? { agentId } : {}),
    ...(sessionId !== undefined ? { sessionId } : {}),
  };
  const parts = RECALL_PARTS.filter((part) => !args.include || args.include.includes(part));
  return { query, scope, budget: args.budget, parts };
}
