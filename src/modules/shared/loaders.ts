import DataLoader from 'dataloader';

/**
 * How the DataLoaders of one request behave. Every `<feature>.loaders.ts` builds its loaders through
 * `createLoader`/`createByIdLoader`, so this one switch turns batching off for all of them.
 */
export interface LoaderSettings {
  /**
   * true (always, when serving): loads of one tick share one read and repeated keys are served from the
   * request's cache. false is a test and benchmark switch: every load is its own read, nothing is cached,
   * which shows what batching saves.
   */
  batching: boolean;
}

/** A per-request DataLoader honouring `settings` (unbatched: `{ batch: false, cache: false }`). */
export function createLoader<K, V, C = K>(
  settings: LoaderSettings,
  batch: DataLoader.BatchLoadFn<K, V>,
  options: DataLoader.Options<K, V, C> = {},
): DataLoader<K, V, C> {
  return new DataLoader<K, V, C>(batch, settings.batching ? options : { ...options, batch: false, cache: false });
}

/**
 * A loader by string id over a repository read of many ids (`fetch`, rows in any order): one result per key, in key
 * order, null for a miss (the DataLoader contract). `toValue` turns a row into the loaded value.
 */
export function createByIdLoader<TRow, TValue = TRow>(
  settings: LoaderSettings,
  fetch: (ids: readonly string[]) => Promise<TRow[]>,
  idOf: (row: TRow) => string,
  toValue: (row: TRow) => TValue = (row) => row as unknown as TValue,
): DataLoader<string, TValue | null, string> {
  return createLoader<string, TValue | null, string>(settings, async (ids) => {
    const found = new Map((await fetch(ids)).map((row) => [idOf(row), row]));
    return ids.map((id) => {
      const row = found.get(id);
      return row === undefined ? null : toValue(row);
    });
  });
}
