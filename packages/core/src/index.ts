/**
 * @engram/core — agent memory people can read. Markdown files are the truth; the index is a cache
 * rebuilt from them. Start with {@link createMemory}.
 *
 * @packageDocumentation
 */
export * from "./agent/index.js";
export * from "./audit/index.js";
export * from "./chunking/index.js";
export * from "./config/index.js";
export * from "./consolidation/index.js";
// The store contract's types (an app passes a store to createMemory); the driver kit itself is
// `@engram/core/driver`.
export type * from "./driver/contract.js";
export type * from "./driver/records.js";
export * from "./embedding/index.js";
export { EngramError, type EngramErrorCode, isEngramError } from "./errors.js";
export * from "./lifecycle/index.js";
export {
  createMemory,
  Memory,
  type MemoryOptions,
  type MemoryStatus,
  type MemorySyncOptions,
  type ProviderStatus,
} from "./memory.js";
export * from "./model/index.js";
export * from "./privacy/index.js";
export * from "./sealing/index.js";
export {
  type GroupScopeParts,
  keepForGroup,
  type MemoryScope,
  searchGroupScope,
} from "./search/group-scope.js";
export * from "./search/index.js";
export {
  applyTierWeights,
  DEFAULT_TIER_WEIGHTS,
  TIER_WEIGHT_PRESETS,
  type TierWeightPreset,
  type TierWeights,
} from "./search/tier-weight.js";
export * from "./sessions/index.js";
export * from "./sync/index.js";
export * from "./text/index.js";
export { DEFAULT_SEARCH_TIERS, isTier, TIERS, type Tier } from "./tier.js";
export * from "./tiers/index.js";
export * from "./workspace/index.js";
export * from "./workspace/presets.js";
