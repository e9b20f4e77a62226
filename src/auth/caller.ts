/** Roles from least to most allowed: each role may do everything the ones before it may. */
export const ROLES = ['reader', 'writer', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** Who is calling: the key's role and tenant, and its public id (`env-N` for API_KEYS' Nth entry; null: anonymous). */
export interface Caller {
  role: Role;
  tenant: string;
  keyId: string | null;
}

/** The tenant whose data lives in the configured database. */
export const DEFAULT_TENANT = 'default';

/** Tenant names: short, lower-case, usable inside a database name. */
export const TENANT_PATTERN = /^[a-z0-9][a-z0-9_-]{0,31}$/;

/** The caller when no key is configured at all: the server is local-only then (see docs/security.md). */
export const ANONYMOUS_CALLER: Caller = Object.freeze({ role: 'admin', tenant: DEFAULT_TENANT, keyId: null });

export function isRole(value: unknown): value is Role {
  return (ROLES as readonly unknown[]).includes(value);
}

/** True when `role` may run what `required` may. */
export function allows(role: Role, required: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(required);
}
