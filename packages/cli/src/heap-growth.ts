import { setFlagsFromString } from "node:v8";

/**
 * How far past the live heap V8 lets its old generation grow before the next full collection, in
 * percent, in an `engram` process: 100 collects again at twice what the last collection kept.
 *
 * V8's own rule lets a large heap grow up to 4×. A sync allocates ~50 KB per chunk that lives as
 * long as its batch, so after a cold sync of 100,000 chunks old space had grown to 100–140 MB around
 * 35–45 MB of live objects, and malloc held ~50 MB more that had been freed but that it could not
 * give back. A long-lived process (`engram watch`, `mcp`, `ui`) then holds that next to the
 * in-memory index. `engram-bench perf --sizes 100000 --stores sqlite --runs 1`, alternating with
 * V8's rule (`bench/results/perf-history.md`, thirteenth session): peak RSS with embeddings
 * 287–307 → 273–276 MB, keyword-only 267–278 → 218–221 MB, sync and search CPU within the runs'
 * spread. 50 took ~10 MB more off but cost the syncs 18–32 % of their CPU throughput.
 */
export const HEAP_GROWING_PERCENT = 100;

/** What {@link limitHeapGrowth} needs from the process (tests pass their own). */
export interface HeapGrowthHost {
  /** `v8.setFlagsFromString`. */
  setFlags: (flags: string) => void;
  /** The flags Node was started with (`process.execArgv`). */
  execArgv: readonly string[];
}

const nodeHost: HeapGrowthHost = {
  setFlags: setFlagsFromString,
  execArgv: process.execArgv,
};

/**
 * Make V8 collect old space sooner in this process ({@link HEAP_GROWING_PERCENT}), unless Node
 * was started with its own `--heap-growing-percent` (`node --heap-growing-percent=0 …` keeps V8's
 * default rule). V8 reads the setting each time it sets the next collection's threshold, so it
 * holds from the next collection on. `engram` calls it first thing; a long-lived process of your
 * own that syncs large workspaces can too.
 */
export function limitHeapGrowth(
  percent: number = HEAP_GROWING_PERCENT,
  host: HeapGrowthHost = nodeHost,
): void {
  if (!Number.isInteger(percent) || percent < 1) {
    throw new RangeError(`limitHeapGrowth: percent must be a whole number ≥ 1, got ${percent}`);
  }
  if (host.execArgv.some((arg) => /^--heap[-_]growing[-_]percent(=|$)/.test(arg))) return;
  host.setFlags(`--heap-growing-percent=${percent}`);
}
