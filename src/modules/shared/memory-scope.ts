/** What `forget` erases: everything of one end user, one session or one agent. */
export type ScopeKind = 'userId' | 'sessionId' | 'agentId';

/** A checked forget scope: exactly one kind, with its value. */
export interface MemoryScope {
  kind: ScopeKind;
  value: string;
}
