/**
 * @engram/bench — engram's benchmarks, private to this repository: `engram-bench beir | locomo |
 * perf`. Not published and not part of the `engram` binary.
 * @packageDocumentation
 */
export { type BeirBenchOptions, type BeirBenchResult, benchBeir } from "./beir.js";
export { type BeirData, readBeir, subsetBeir } from "./beir-data.js";
export {
  type BeirSmallOptions,
  type BeirSmallResult,
  benchBeirSmall,
  smallWorkspaces,
} from "./beir-small.js";
export { benchEmbedder, openBenchMemory } from "./bench-memory.js";
export { BUNDLED_EMBEDDERS, loadEmbedderModule } from "./embedder-module.js";
export { type FileCachedEmbedder, fileCachedEmbedder } from "./embedding-file-cache.js";
export { benchLocomo, type LocomoBenchOptions, type LocomoBenchResult } from "./locomo.js";
export { createBenchProgram, runBench } from "./program.js";
