import { resolve } from "node:path";
import {
  checkStoreOptions,
  defineStore,
  EngramError,
  type MemoryStore,
  type StoreFactory,
} from "@engram/core/driver";
import { MemoryDriver } from "./memory-driver.js";
import type { MemoryStoreFactoryOptions, MemoryStoreOptions } from "./options.js";

/** The in-memory store: the contract, its snapshot file, and saving it on demand. */
export interface InMemoryStore extends MemoryStore {
  /** The snapshot file (absolute), or undefined when the store never touches the disk. */
  readonly snapshotPath: string | undefined;
  /**
   * Save the snapshot now (atomically: temp file, then rename), even when nothing changed.
   * Throws `CONFIG_INVALID` without `snapshotPath`, `STORE_FAILED` when the file cannot be written.
   */
  snapshot(): Promise<void>;
}

/**
 * An in-memory store; with `snapshotPath` it is saved to and restored from that file. Call
 * `init()` before use (that is when a snapshot is loaded). Throws `CONFIG_INVALID` for options
 * that cannot work.
 */
export function createInMemoryStore(options: MemoryStoreOptions = {}): InMemoryStore {
  const driver = new MemoryDriver(options);
  return defineStore(driver, (guarded) => ({
    snapshotPath: driver.snapshotPath,
    snapshot: () =>
      guarded("save a snapshot", async () => {
        if (driver.snapshotPath === undefined) {
          throw new EngramError(
            "CONFIG_INVALID",
            "This memory store has no snapshotPath to save to.",
            { hint: "Create the store with a snapshotPath to save snapshots." },
          );
        }
        return driver.snapshot();
      }),
  }));
}

/**
 * The factory core uses to open a workspace's store: purely in memory by default; with
 * `snapshotPath` (relative to the workspace) it persists to that file.
 *
 * @example
 * ```ts
 * const memory = await createMemory({ workspace: "./agent", store: inMemoryStore() });
 * ```
 */
export function inMemoryStore(options: MemoryStoreFactoryOptions = {}): StoreFactory {
  checkStoreOptions("memory", options, ["snapshotPath", "snapshotIntervalMs", "onSnapshotError"]);
  return ({ workspace }) =>
    createInMemoryStore({
      ...options,
      snapshotPath:
        options.snapshotPath === undefined ? undefined : resolve(workspace, options.snapshotPath),
    });
}
