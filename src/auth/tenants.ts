import { DEFAULT_TENANT } from './caller';

/**
 * The database holding a tenant's data: the configured one for the default tenant, else `<configured>-<tenant>`
 * (tenant names are `[a-z0-9_-]`, so the name is valid for MongoDB). Throws when it would exceed 63 characters.
 */
export function tenantDatabaseName(defaultName: string, tenant: string): string {
  if (tenant === DEFAULT_TENANT) return defaultName;
  const name = `${defaultName}-${tenant}`;
  if (name.length > 63) throw new Error(`The database name of tenant ${tenant} (${name}) exceeds 63 characters.`);
  return name;
}
