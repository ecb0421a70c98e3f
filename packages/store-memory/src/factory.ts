import { resolve } from "node:path";
import { checkStoreOptions, type StoreFactory } from "@engram/core";
import { InMemoryStore } from "./memory-store.js";
import type { MemoryStoreFactoryOptions, MemoryStoreOptions } from "./options.js";

/**
 * An in-memory store; with `snapshotPath` it is saved to and restored from that file. Call
 * `init()` before use (that is when a snapshot is loaded). Throws `CONFIG_INVALID` for options
 * that cannot work.
 */
export function createMemoryStore(options: MemoryStoreOptions = {}): InMemoryStore {
  return new InMemoryStore(options);
}

/**
 * The factory core uses to open a workspace's store: purely in memory by default; with
 * `snapshotPath` (relative to the workspace) it persists to that file.
 *
 * @example
 * ```ts
 * const memory = await createMemory({ workspace: "./agent", store: memoryStore() });
 * ```
 */
export function memoryStore(options: MemoryStoreFactoryOptions = {}): StoreFactory {
  checkStoreOptions("memory", options, ["snapshotPath", "snapshotIntervalMs", "onSnapshotError"]);
  return ({ workspace }) =>
    createMemoryStore({
      ...options,
      snapshotPath:
        options.snapshotPath === undefined ? undefined : resolve(workspace, options.snapshotPath),
    });
}
