import { randomUUID } from 'node:crypto';
import type { Db } from 'mongodb';
import type { AppDeps } from './app';

/** Who is calling: the API key's index when API_KEYS is set, else anonymous. */
export interface Caller {
  apiKeyIndex: number | null;
}

/**
 * Per-request state: the caller, the database this request works on, fresh services and DataLoaders.
 * Resolvers read it and never mutate it; repositories get the database from here, never from a singleton.
 */
export interface Context {
  requestId: string;
  caller: Caller;
  db: Db;
  deps: AppDeps;
  /** Per-request service instances bound to `db`; resolvers make one call into these. */
  services: Services;
  /** Per-request DataLoaders (batching and caching relation reads for this request only). */
  loaders: Loaders;
}

/** Each feature adds its service here and constructs it in `createContext`. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface Services {}

/** Each feature adds its loaders here (built by its `<feature>.loaders.ts`) and creates them in `createContext`. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface Loaders {}

export interface ContextOptions {
  caller?: Caller;
  /** The database to work on; defaults to the configured one. */
  db?: Db;
}

/** Builds the context of one request. Cheap: plain constructors, loaders created empty. */
export function createContext(deps: AppDeps, options: ContextOptions = {}): Context {
  const db = options.db ?? deps.database.db;
  const services: Services = {};
  const loaders: Loaders = {};
  return {
    requestId: randomUUID(),
    caller: options.caller ?? { apiKeyIndex: null },
    db,
    deps,
    services,
    loaders,
  };
}
