import { ValidationError } from '../../errors';
import { MAX_ID_LENGTH } from '../shared/limits';
import type { ForgetScope } from './forget.input';
import type { MemoryScope, ScopeKind } from '../shared/memory-scope';

const KINDS: readonly ScopeKind[] = ['userId', 'sessionId', 'agentId'];

/** The one scope set in `scope` (a non-blank id of at most MAX_ID_LENGTH); BAD_USER_INPUT naming `scope` otherwise. */
export function checkScope(scope: ForgetScope): MemoryScope {
  const set = KINDS.filter((kind) => scope[kind] != null);
  if (set.length !== 1) {
    throw new ValidationError(
      `scope must set exactly one of userId, sessionId or agentId; it sets ${set.length ? set.join(' and ') : 'none'}.`,
      'scope',
    );
  }
  const kind = set[0];
  const value = scope[kind]!;
  if (value.trim() === '' || value.length > MAX_ID_LENGTH) {
    throw new ValidationError(`scope.${kind} must be 1 to ${MAX_ID_LENGTH} characters, not blank.`, `scope.${kind}`);
  }
  return { kind, value };
}
