import { EngramError } from "../errors.js";

/**
 * The error every driver throws when a method is called after `close()`.
 *
 * @param store The store as the message names it, e.g. `"SQLite store /w/.engram/index.sqlite"`.
 */
export function storeClosedError(store: string): EngramError {
  return new EngramError("CLOSED", `The ${store} is closed.`, {
    hint: "Open a new store; a closed one cannot be reused.",
  });
}

/**
 * The error every driver throws when a method is called before `init()`.
 *
 * @param store The kind of store, e.g. `"SQLite store"`.
 * @param action What the caller tried, e.g. `"search the index"`.
 */
export function storeNotInitialisedError(store: string, action: string): EngramError {
  return new EngramError("STORE_FAILED", `Cannot ${action}: the ${store} is not initialised.`, {
    hint: "Await store.init() before using the store.",
  });
}
