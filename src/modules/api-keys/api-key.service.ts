import { DEFAULT_TENANT, type Caller } from '../../auth/caller';
import { checkKeyScope, type ApiKeyInfo, type KeyStore } from '../../auth/keys';
import { tenantDatabaseName } from '../../auth/tenants';
import { ForbiddenError, NotFoundError, ValidationError } from '../../errors';
import type { ApiKey, ApiKeyRole, CreatedApiKey } from './api-key.type';

/**
 * Key management for admins: an admin of the default tenant (the operator's) manages every tenant's keys, an admin of
 * another tenant only its own tenant's, so no tenant can mint itself access to another.
 */
export class ApiKeyService {
  constructor(
    private readonly keys: KeyStore,
    private readonly caller: Caller,
    private readonly defaultDbName: string,
  ) {}

  async create(role: ApiKeyRole, tenant: string): Promise<CreatedApiKey> {
    const problem = checkKeyScope(role, tenant) ?? this.databaseNameProblem(tenant);
    if (problem) throw new ValidationError(problem, 'tenant');
    this.checkTenant(tenant);
    const { key, info } = await this.keys.create(role, tenant);
    return { key, apiKey: info as ApiKey };
  }

  async list(): Promise<ApiKey[]> {
    return (await this.keys.list()).filter((info) => this.manages(info)) as ApiKey[];
  }

  async revoke(id: string): Promise<ApiKey> {
    const info = (await this.keys.list()).find((key) => key.id === id);
    if (!info || !this.manages(info)) throw new NotFoundError(`No API key ${id}.`, { id });
    return (await this.keys.revoke(id)) as ApiKey;
  }

  private databaseNameProblem(tenant: string): string | null {
    try {
      tenantDatabaseName(this.defaultDbName, tenant);
      return null;
    } catch (error) {
      return (error as Error).message;
    }
  }

  private manages(info: ApiKeyInfo): boolean {
    return this.caller.tenant === DEFAULT_TENANT || info.tenant === this.caller.tenant;
  }

  private checkTenant(tenant: string): void {
    if (this.caller.tenant !== DEFAULT_TENANT && tenant !== this.caller.tenant) {
      throw new ForbiddenError(`An admin of tenant ${this.caller.tenant} manages only that tenant's keys.`);
    }
  }
}
