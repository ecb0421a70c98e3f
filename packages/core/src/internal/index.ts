/**
 * `@engram/core/internal`: everything core has, for engram's own packages (the CLI, the UI server,
 * the benchmarks, the reliability suite) — workspace and file helpers (`writeFileAtomic`,
 * `scanWorkspace`, locks), search and sync internals, lifecycle and consolidation steps, sealing
 * primitives, session transcripts.
 *
 * Not a public API: not covered by semver, and any name here may change or go in a patch release.
 * Apps import from `@engram/core`, store and provider packages from `@engram/core/driver`. Code in
 * engram's own packages imports from here only what those doors do not offer.
 *
 * @packageDocumentation
 */
export * from "../agent/index.js";
export * from "../audit/index.js";
export * from "../chunking/index.js";
export * from "../config/index.js";
export * from "../consolidation/index.js";
export type * from "../driver/contract.js";
export type * from "../driver/records.js";
export * from "../embedding/index.js";
export { EngramError, type EngramErrorCode, isEngramError } from "../errors.js";
export * from "../lifecycle/index.js";
export {
  createMemory,
  Memory,
  type MemoryOptions,
  type MemoryStatus,
  type MemorySyncOptions,
  type ProviderStatus,
} from "../memory.js";
export * from "../model/index.js";
export * from "../privacy/index.js";
export * from "../sealing/index.js";
export {
  type GroupScopeParts,
  keepForGroup,
  type MemoryScope,
  searchGroupScope,
} from "../search/group-scope.js";
export * from "../search/index.js";
export {
  applyTierWeights,
  DEFAULT_TIER_WEIGHTS,
  TIER_WEIGHT_PRESETS,
  type TierWeightPreset,
  type TierWeights,
} from "../search/tier-weight.js";
export * from "../sessions/index.js";
export * from "../sync/index.js";
export * from "../text/index.js";
export { DEFAULT_SEARCH_TIERS, isTier, TIERS, type Tier } from "../tier.js";
export * from "../tiers/index.js";
export * from "../workspace/index.js";
export * from "../workspace/presets.js";
