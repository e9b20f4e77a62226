import { registerEnumType } from 'type-graphql';
import { MemoryStatus } from './validity.filter';

export { MemoryStatus };

registerEnumType(MemoryStatus, {
  name: 'MemoryStatus',
  description:
    'CURRENT; SUPERSEDED (replaced: see supersededBy); RETIRED (ended with no replacement); EXPIRED (validUntil ' +
    'passed with no supersede or retire); PENDING (validFrom is in the future).',
});

/** The memories that can be superseded or retired. */
export enum MemoryKind {
  EXPERIENCE = 'experience',
  INSIGHT = 'insight',
}
registerEnumType(MemoryKind, { name: 'MemoryKind', description: 'EXPERIENCE or INSIGHT (an agent insight).' });

/** The `includeSuperseded` argument's description. */
export const INCLUDE_SUPERSEDED =
  'Also superseded, retired, expired and not yet valid memories (default: current ones only).';

/** The `asOf` argument's description. */
export const AS_OF =
  'Answer as the store stood then: memories recorded by then and valid then (validFrom ≤ asOf < validUntil).';
