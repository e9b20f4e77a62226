import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Collection, Db } from 'mongodb';
import { DEFAULT_TENANT, isRole, TENANT_PATTERN, type Caller, type Role } from './caller';

/** Stored keys live in the default database's `api_keys` collection, as SHA-256 hashes only. */
export const API_KEYS_COLLECTION = 'api_keys';

/** How long a looked-up key (or its absence) is reused: the delay before a revocation by another process applies. */
export const KEY_CACHE_TTL_MS = 10_000;
const MAX_CACHED_KEYS = 10_000;

export interface ApiKeyDocument {
  /** Public id: the key's first characters, shown by `list` and used by `revoke`. */
  _id: string;
  hash: string;
  role: Role;
  tenant: string;
  createdAt: Date;
  revokedAt: Date | null;
}

export type ApiKeyInfo = Omit<ApiKeyDocument, 'hash' | '_id'> & { id: string };

/** A new key: `hs_` and 32 random bytes (base64url). */
export function generateKey(): string {
  return `hs_${randomBytes(32).toString('base64url')}`;
}

/** A fast hash is enough: keys carry 256 random bits, so there is nothing to brute-force. */
export function hashKey(key: string): Buffer {
  // The one-shot form: no Hash object per request.
  return hash('sha256', key, 'buffer');
}

/** Checks a role and tenant name; the message names what is wrong, for the CLI and the GraphQL mutations alike. */
export function checkKeyScope(role: unknown, tenant: unknown): string | null {
  // The value is not echoed: in API_KEYS it may be part of a key.
  if (!isRole(role)) return 'role must be one of reader, writer, admin';
  if (typeof tenant !== 'string' || !TENANT_PATTERN.test(tenant)) {
    return `tenant must match ${TENANT_PATTERN.source}`;
  }
  return null;
}

interface EnvKey {
  hash: Buffer;
  caller: Caller;
}

/**
 * Parses API_KEYS entries `key[:role[:tenant]]` (role default admin: a bare key keeps the full access API_KEYS always
 * gave; tenant default `default`). Throws naming the entry's position on a bad role or tenant, never the key.
 */
export function parseEnvKeys(entries: readonly string[]): EnvKey[] {
  return entries.map((entry, index) => {
    const [key, role = 'admin', tenant = DEFAULT_TENANT] = entry.split(':');
    const problem = key ? checkKeyScope(role, tenant) : 'the key is empty';
    if (problem) throw new Error(`API_KEYS entry ${index + 1}: ${problem}`);
    return { hash: hashKey(key), caller: { role: role as Role, tenant, keyId: `env-${index + 1}` } };
  });
}

/**
 * Keys from API_KEYS and from the `api_keys` collection. Lookups of stored keys are cached for KEY_CACHE_TTL_MS;
 * revoking through this store applies at once, through another process (the CLI) within the TTL.
 */
export class KeyStore {
  private readonly envKeys: EnvKey[];
  private readonly cache = new Map<string, { caller: Caller | null; expires: number }>();
  private anyStored: Promise<boolean> | null = null;
  private knownRequired: boolean | undefined;

  constructor(
    private readonly db: Db,
    envEntries: readonly string[],
  ) {
    this.envKeys = parseEnvKeys(envEntries);
  }

  private get collection(): Collection<ApiKeyDocument> {
    return this.db.collection<ApiKeyDocument>(API_KEYS_COLLECTION);
  }

  /**
   * True when any key is configured (API_KEYS or a stored, unrevoked key): anonymous requests are refused then. Counted
   * once, then kept up to date by this store's create and revoke: a first key created by another process (the CLI on
   * a shared MONGODB_URI) closes a running anonymous server only when it restarts.
   */
  required(): Promise<boolean> {
    if (this.envKeys.length > 0) return Promise.resolve(true);
    if (!this.anyStored) {
      const counted = this.collection.countDocuments({ revokedAt: null }, { limit: 1 }).then((count) => count > 0);
      counted.then(
        (known) => {
          if (this.anyStored === counted) this.knownRequired = known;
        },
        () => {
          if (this.anyStored === counted) this.anyStored = null;
        },
      );
      this.anyStored = counted;
    }
    return this.anyStored;
  }

  /** {@link required}'s answer when it is already known (always after the server's start), else undefined. */
  requiredNow(): boolean | undefined {
    return this.envKeys.length > 0 ? true : this.knownRequired;
  }

  /**
   * The caller a presented key stands for, or null when it is unknown or revoked: at once for API_KEYS and cached keys,
   * so that the common request waits for nothing.
   */
  find(key: string): Caller | null | Promise<Caller | null> {
    const hash = hashKey(key);
    // Every env key is compared, in constant time each, so the time taken does not tell which one (nor how much) matched.
    let match: Caller | null = null;
    for (const envKey of this.envKeys) if (timingSafeEqual(envKey.hash, hash)) match = envKey.caller;
    if (match) return match;
    const hex = hash.toString('hex');
    const cached = this.cache.get(hex);
    if (cached && cached.expires > Date.now()) return cached.caller;
    return this.lookUp(hex);
  }

  private async lookUp(hex: string): Promise<Caller | null> {
    const doc = await this.collection.findOne({ hash: hex, revokedAt: null });
    const caller = doc ? { role: doc.role, tenant: doc.tenant, keyId: doc._id } : null;
    // Bounded against a flood of made-up keys; dropping everything only costs lookups.
    if (this.cache.size >= MAX_CACHED_KEYS) this.cache.clear();
    this.cache.set(hex, { caller, expires: Date.now() + KEY_CACHE_TTL_MS });
    return caller;
  }

  /** Stores a new key; returns it (the only time it is shown) with its public id. */
  async create(role: Role, tenant: string): Promise<{ key: string; info: ApiKeyInfo }> {
    const problem = checkKeyScope(role, tenant);
    if (problem) throw new Error(problem);
    await this.collection.createIndex({ hash: 1 }, { unique: true });
    const key = generateKey();
    const doc: ApiKeyDocument = {
      _id: key.slice(0, 11),
      hash: hashKey(key).toString('hex'),
      role,
      tenant,
      createdAt: new Date(),
      revokedAt: null,
    };
    await this.collection.insertOne(doc);
    this.anyStored = Promise.resolve(true);
    this.knownRequired = true;
    return { key, info: toInfo(doc) };
  }

  /** Every stored key, newest first, without hashes. */
  async list(): Promise<ApiKeyInfo[]> {
    const docs = await this.collection.find({}, { sort: { createdAt: -1 } }).toArray();
    return docs.map(toInfo);
  }

  /** Revokes a key by id; null when there is no such key. Applies at once in this process. */
  async revoke(id: string): Promise<ApiKeyInfo | null> {
    await this.collection.updateOne({ _id: id, revokedAt: null }, { $set: { revokedAt: new Date() } });
    const doc = await this.collection.findOne({ _id: id });
    if (!doc) return null;
    this.cache.delete(doc.hash);
    this.anyStored = null;
    this.knownRequired = undefined;
    return toInfo(doc);
  }
}

function toInfo({ _id, role, tenant, createdAt, revokedAt }: ApiKeyDocument): ApiKeyInfo {
  return { id: _id, role, tenant, createdAt, revokedAt };
}
