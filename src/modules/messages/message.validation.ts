import type { Document } from 'mongodb';
import { ValidationError } from '../../errors';
import { checkScopeId } from '../shared/user-scope';
import {
  DEFAULT_MESSAGE_SEARCH_LIMIT,
  MAX_MESSAGE_CONTEXT,
  MAX_MESSAGE_SEARCH_LIMIT,
  type MessageSearchFilter,
} from './message.input';

/**
 * The query, trimmed; BAD_USER_INPUT naming `field` when it is blank. A long one is bounded downstream, as for
 * searchExperiences: BM25 analyses its first MAX_QUERY_WORDS words, the embedder reads what its model reads.
 */
export function checkMessageQuery(query: string, field = 'query'): string {
  if (typeof query !== 'string' || !/\S/.test(query)) throw new ValidationError(`${field} must not be blank.`, field);
  return query.trim();
}

function checkRange(
  value: number | null | undefined,
  min: number,
  max: number,
  fallback: number,
  field: string,
): number {
  if (value == null) return fallback;
  if (!Number.isInteger(value) || value < min || value > max)
    throw new ValidationError(`${field} must be an integer from ${min} to ${max}.`, field);
  return value;
}

export function checkMessageLimit(limit: number | null | undefined, field = 'limit'): number {
  return checkRange(limit, 1, MAX_MESSAGE_SEARCH_LIMIT, DEFAULT_MESSAGE_SEARCH_LIMIT, field);
}

export function checkMessageContext(context: number | null | undefined, field = 'context'): number {
  return checkRange(context, 0, MAX_MESSAGE_CONTEXT, 0, field);
}

/** The filter as a MongoDB filter on `message_index` (message.document.ts); BAD_USER_INPUT naming the bad field. */
export function messageFilterQuery(filter: MessageSearchFilter | null | undefined, field = 'filter'): Document {
  if (!filter) return {};
  const query: Document = {};
  const sessionId = checkScopeId(filter.sessionId, `${field}.sessionId`);
  const agentId = checkScopeId(filter.agentId, `${field}.agentId`);
  const userId = checkScopeId(filter.userId, `${field}.userId`);
  const role = checkScopeId(filter.role, `${field}.role`);
  if (sessionId !== undefined) query.session_id = sessionId;
  if (agentId !== undefined) query.agent_id = agentId;
  if (userId !== undefined) query.user_id = userId;
  if (role !== undefined) query.role = role.trim().toLowerCase();
  const checkDate = (value: Date | null | undefined, name: string) => {
    if (value != null && !(value instanceof Date && Number.isFinite(value.getTime())))
      throw new ValidationError(`${field}.${name} must be a date-time.`, `${field}.${name}`);
    return value ?? null;
  };
  const since = checkDate(filter.since, 'since');
  const until = checkDate(filter.until, 'until');
  if (since && until && since.getTime() > until.getTime())
    throw new ValidationError(`${field}.until must not be before ${field}.since.`, `${field}.until`);
  if (since || until) query.created_at = { ...(since ? { $gte: since } : {}), ...(until ? { $lt: until } : {}) };
  return query;
}
