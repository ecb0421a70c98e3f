import type { MemoryStore } from "../driver/contract.js";
import { IDENTITY_META_KEY } from "../embedding/identity.js";
import { LAST_SYNC_META_KEY, PENDING_VECTORS_META_KEY } from "../sync/report.js";

/**
 * The meta values a search reads: the index identity (whose vectors), the paths whose vectors are
 * owed, and the last sync's report (while it is the same, so are the sealed files).
 */
export const SEARCH_META_KEYS: readonly string[] = [
  IDENTITY_META_KEY,
  PENDING_VECTORS_META_KEY,
  LAST_SYNC_META_KEY,
];

/**
 * The meta values of `keys`, read together: with the store's `getMetas` where it has one (one
 * round trip, or one version check on LanceDB, instead of one per key), else key by key at once.
 * Nothing is kept between calls: another process may change any of them at any time, and only the
 * store can tell cheaply whether it did.
 */
export async function readMetas(
  store: MemoryStore,
  keys: readonly string[],
): Promise<Map<string, string>> {
  if (store.getMetas) return store.getMetas(keys);
  const values = await Promise.all(keys.map((key) => store.getMeta(key)));
  const found = new Map<string, string>();
  keys.forEach((key, i) => {
    const value = values[i];
    if (value !== undefined) found.set(key, value);
  });
  return found;
}

/**
 * `store` whose `getMeta` answers `keys` from `values` (read once for this search, see
 * {@link readMetas}) and passes every other call through: what one search hands to the parts
 * that read meta again on their own (the sealing lookup), so the store is asked once per search.
 */
export function withMetaValues(
  store: MemoryStore,
  keys: readonly string[],
  values: ReadonlyMap<string, string>,
): MemoryStore {
  const answered = new Set(keys);
  return new Proxy(store, {
    get(target, property) {
      if (property === "getMeta") {
        return (key: string) =>
          answered.has(key) ? Promise.resolve(values.get(key)) : target.getMeta(key);
      }
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
