import { isAbsolute, join, resolve } from "node:path";
import {
  defineStore,
  type KeyValueStore,
  type MemoryStore,
  type StoreFactory,
} from "@engram/core/driver";
import { LanceDbDriver } from "./driver.js";
import {
  checkFactoryOptions,
  DEFAULT_FOLDER_NAME,
  type LanceDbStoreFactoryOptions,
  type LanceDbStoreOptions,
  type Location,
  parseLocation,
} from "./options.js";

/** The LanceDB store: the contract, where it lives, and upkeep on demand. */
export interface LanceDbStore extends MemoryStore {
  /** The key → bytes map (a `key_value` table), where core keeps its embedding cache. */
  readonly keyValue: KeyValueStore;
  /** Where the database lives. */
  readonly location: Location;
  /** See `MemoryStore.getMetas`: several meta values after one check for newer versions. */
  getMetas(keys: readonly string[]): Promise<Map<string, string>>;
  /**
   * Bring everything up to date now: rebuild the full-text index (exact BM25 statistics), compact
   * every table, prune versions older than `versionRetentionMs`, and build or update the vector
   * index. The store does each of these by itself when due; call this after a bulk load, or
   * before measuring.
   */
  optimize(): Promise<void>;
}

/**
 * A LanceDB store at `options.uri` (a folder, or a URI such as `s3://bucket/prefix`). Call
 * `init()` before use; that is when LanceDB connects and the tables are created.
 *
 * @throws EngramError `CONFIG_INVALID` for an empty URI or an option out of range.
 */
export function createLanceDbStore(options: LanceDbStoreOptions): LanceDbStore {
  const driver = new LanceDbDriver(options);
  // defineStore guards the driver's key-value map, which this driver always has.
  return defineStore(driver, (guarded) => ({
    location: driver.location,
    getMetas: (keys: readonly string[]) => guarded("read meta", () => driver.getMetas(keys)),
    optimize: () => guarded("optimize the index", () => driver.optimize()),
  })) as LanceDbStore;
}

/**
 * The factory core uses to open a workspace's store: by default the folder
 * `<workspace>/.engram/lancedb`. A relative `uri` resolves against the workspace; any URI with a
 * scheme (`s3://…`, `gs://…`, `az://…`, `memory://…`) passes through unchanged.
 */
export function lancedbStore(options: LanceDbStoreFactoryOptions = {}): StoreFactory {
  checkFactoryOptions(options);
  return ({ workspace, indexDir }) => {
    const { uri: configured, ...rest } = options;
    return createLanceDbStore({ ...rest, uri: resolveUri(configured, workspace, indexDir) });
  };
}

function resolveUri(configured: string | undefined, workspace: string, indexDir: string): string {
  if (configured === undefined) return join(indexDir, DEFAULT_FOLDER_NAME);
  if (configured.trim() === "" || parseLocation(configured).kind !== "local") return configured;
  if (configured.startsWith("file:") || isAbsolute(configured)) return configured;
  return resolve(workspace, configured);
}
