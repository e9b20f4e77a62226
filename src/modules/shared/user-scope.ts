import { ValidationError } from '../../errors';
import { MAX_ID_LENGTH } from './limits';

/**
 * A scope id a caller chooses (`userId`, an insight's `agentId`): non-empty, not blank, at most MAX_ID_LENGTH
 * characters, else BAD_USER_INPUT naming `field`. Absent (null or undefined) stays absent.
 */
export function checkScopeId(value: string | null | undefined, field: string): string | undefined {
  if (value == null) return undefined;
  if (value.trim() === '') throw new ValidationError(`${field} must not be empty.`, field);
  if (value.length > MAX_ID_LENGTH)
    throw new ValidationError(`${field} must be at most ${MAX_ID_LENGTH} characters.`, field);
  return value;
}
