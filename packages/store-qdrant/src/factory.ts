import { defineStore, type MemoryStore, type StoreFactory } from "@engram/core/driver";
import { defaultCollectionName } from "./ids.js";
import {
  checkFactoryOptions,
  type QdrantEnv,
  type QdrantStoreFactoryOptions,
  type QdrantStoreOptions,
} from "./options.js";
import { QdrantDriver } from "./qdrant-driver.js";

/** A store on a Qdrant server: the contract, plus where it lives and how to delete it. */
export interface QdrantStore extends MemoryStore {
  /** Name of the chunk collection. */
  readonly collection: string;
  /** Name of the collection of file records, meta and the key-value map. */
  readonly recordsCollection: string;
  /** The server URL the store talks to. */
  readonly url: string;
  /** Delete both collections from the server (the index only: the Markdown files stay). */
  drop(): Promise<void>;
}

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
  const driver = new QdrantDriver(options, env);
  return defineStore(driver, (guarded) => ({
    collection: driver.collection,
    recordsCollection: driver.recordsCollection,
    url: driver.options.url,
    drop: () => guarded("delete the index", () => driver.drop()),
  }));
}

/**
 * The factory core uses to open a workspace's store: one collection per workspace, by default
 * `engram_<8 hex digits of the SHA-256 of its absolute path>`, so workspaces sharing a server never
 * mix. `options.collection` names it instead.
 *
 * @throws EngramError `CONFIG_INVALID` for an unknown option or a value out of range.
 */
export function qdrantStore(
  options: QdrantStoreFactoryOptions = {},
  env: QdrantEnv = process.env,
): StoreFactory {
  checkFactoryOptions(options);
  return ({ workspace }) =>
    createQdrantStore(
      { ...options, collection: options.collection ?? defaultCollectionName(workspace) },
      env,
    );
}
