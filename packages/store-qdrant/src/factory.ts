import { checkStoreOptions, type StoreFactory } from "@engram/core/driver";
import { defaultCollectionName } from "./naming.js";
import type { QdrantStoreFactoryOptions, QdrantStoreOptions } from "./options.js";
import type { QdrantEnv } from "./options-check.js";
import { QdrantStore } from "./qdrant-store.js";

/**
 * A store on the Qdrant server at `options.url` (default `$QDRANT_URL`, else
 * `http://localhost:6333`) in `options.collection`. Call `init()` before use: that is when it
 * connects and creates the collections it needs.
 *
 * @param env where `QDRANT_URL` and `QDRANT_API_KEY` are read (default `process.env`).
 * @throws EngramError `CONFIG_INVALID` for an option out of range or a bad collection name.
 */
export function createQdrantStore(
  options: QdrantStoreOptions,
  env: QdrantEnv = process.env,
): QdrantStore {
  return new QdrantStore(options, env);
}

/**
 * The factory core uses to open a workspace's store: one collection per workspace, by default
 * `engram_<8 hex digits of the SHA-256 of its absolute path>`, so workspaces sharing a server never
 * mix. `options.collection` names it instead.
 */
export function qdrantStore(
  options: QdrantStoreFactoryOptions = {},
  env: QdrantEnv = process.env,
): StoreFactory {
  checkStoreOptions("qdrant", options, [
    "url",
    "apiKey",
    "collection",
    "batchSize",
    "timeoutMs",
    "retry",
    "exactVectorSearch",
  ] satisfies ReadonlyArray<keyof QdrantStoreFactoryOptions>);
  return ({ workspace }) =>
    createQdrantStore(
      { ...options, collection: options.collection ?? defaultCollectionName(workspace) },
      env,
    );
}
