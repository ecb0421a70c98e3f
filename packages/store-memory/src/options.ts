import { EngramError } from "@engram/core/driver";

/** Options of {@link createInMemoryStore}. */
export interface MemoryStoreOptions {
  /**
   * JSON Lines snapshot file. When set, `init()` loads it if present, `close()` saves a final one,
   * `snapshot()` saves on demand and one is saved every `snapshotIntervalMs` while open. A relative
   * path resolves against the current directory. Absent: nothing ever touches the disk.
   */
  snapshotPath?: string;
  /**
   * How often (ms) to save the snapshot while open and changed; 0 saves only on `close()` and
   * `snapshot()`. Default 5 minutes. Needs `snapshotPath`. The timer never keeps a process alive.
   */
  snapshotIntervalMs?: number;
  /**
   * Called when a periodic save fails (the previous snapshot stays as it was); saves by `close()`
   * and `snapshot()` reject instead. Default: `process.emitWarning`.
   */
  onSnapshotError?: (error: EngramError) => void;
}

/** Options of {@link inMemoryStore}, the factory core uses. */
export interface MemoryStoreFactoryOptions extends MemoryStoreOptions {
  /**
   * See {@link MemoryStoreOptions.snapshotPath}; a relative path resolves against the workspace
   * (e.g. `.engram/memory-snapshot.jsonl`). Absent: a purely in-memory store.
   */
  snapshotPath?: string;
}

/** Default {@link MemoryStoreOptions.snapshotIntervalMs}: five minutes. */
export const DEFAULT_SNAPSHOT_INTERVAL_MS = 5 * 60 * 1000;

/** Largest delay Node's timers accept (larger ones silently become 1 ms). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The options with defaults applied; throws `CONFIG_INVALID` for options that cannot work. */
export function checkOptions(options: MemoryStoreOptions): {
  snapshotPath: string | undefined;
  snapshotIntervalMs: number;
} {
  const { snapshotPath, snapshotIntervalMs } = options;
  if (snapshotPath !== undefined && (typeof snapshotPath !== "string" || snapshotPath === "")) {
    throw new EngramError("CONFIG_INVALID", "snapshotPath must be a non-empty file path.", {
      hint: 'Pass a file such as ".engram/memory-snapshot.jsonl", or leave snapshotPath out for a store without files.',
    });
  }
  if (snapshotIntervalMs !== undefined) {
    if (snapshotPath === undefined) {
      throw new EngramError(
        "CONFIG_INVALID",
        "snapshotIntervalMs is set but snapshotPath is not.",
        {
          hint: "Set snapshotPath to the file to save to, or leave snapshotIntervalMs out.",
        },
      );
    }
    if (
      !Number.isInteger(snapshotIntervalMs) ||
      snapshotIntervalMs < 0 ||
      snapshotIntervalMs > MAX_TIMER_MS
    ) {
      throw new EngramError(
        "CONFIG_INVALID",
        `snapshotIntervalMs must be a whole number of milliseconds from 0 to ${MAX_TIMER_MS}, got ${snapshotIntervalMs}.`,
        { hint: "Use e.g. 300000 (five minutes), or 0 to save only on close() and snapshot()." },
      );
    }
  }
  return { snapshotPath, snapshotIntervalMs: snapshotIntervalMs ?? DEFAULT_SNAPSHOT_INTERVAL_MS };
}
