import type { FusionMethod, Memory, SearchMode } from "@engram/core";

/** One way of answering queries, as benchmarks report it. */
export interface BenchMode {
  /** `keyword`, `vector`, `hybrid weighted` or `hybrid rrf`. */
  label: string;
  mode: SearchMode;
  fusion?: FusionMethod;
}

/**
 * The modes a benchmark runs side by side: keyword search always; vector and hybrid (weighted
 * and RRF fusion) too when the memory has an embedding provider (chosen as every CLI command
 * chooses it: the config, then auto-selection).
 */
export function benchModes(memory: Pick<Memory, "embedder">): BenchMode[] {
  const modes: BenchMode[] = [{ label: "keyword", mode: "keyword" }];
  if (memory.embedder) {
    modes.push(
      { label: "vector", mode: "vector" },
      { label: "hybrid weighted", mode: "hybrid", fusion: "weighted" },
      { label: "hybrid rrf", mode: "hybrid", fusion: "rrf" },
    );
  }
  return modes;
}
