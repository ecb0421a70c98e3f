/**
 * @engram/core — agent memory people can read. Markdown files are the truth; the index is a cache
 * rebuilt from them. Start with {@link createMemory}.
 *
 * This entry is the app API, named one by one (no `export *`, at most ~120 runtime names; a test
 * holds the count): the memory facade, config, the errors an app catches, the contracts it passes
 * in (store, embedder, language model, reranker), the agent tools and what the tier, lifecycle,
 * consolidation, sealing and audit operations take and return. Other doors:
 * `@engram/core/driver` (for authors of store and provider packages), `@engram/core/testing` (the
 * conformance and test kits), and `@engram/core/internal` (engram's own packages only; not covered
 * by semver).
 *
 * @packageDocumentation
 */

export {
  buildMemoryContext,
  type ContextSource,
  DEFAULT_CONTEXT_CHARS,
  getMemoryContext,
  getRecentMemories,
  type MemoryContext,
  type MemoryContextOptions,
  type MemoryContextSection,
} from "./agent/context.js";
export {
  createFlushPolicy,
  FLUSH_DEFAULTS,
  type FlushDecision,
  type FlushHost,
  type FlushPolicy,
  type FlushPolicyOptions,
  type FlushReason,
  type FlushWriteResult,
} from "./agent/flush-policy.js";
export {
  DEFAULT_FLUSH_SYSTEM_PROMPT,
  DEFAULT_FLUSH_USER_PROMPT,
  flushPrompts,
  isNoReply,
  NO_REPLY,
} from "./agent/flush-prompts.js";
export {
  listMemoryFiles,
  type MemoryFileEntry,
  type MemoryFilesHost,
  type MemoryFilesOptions,
  readMemoryFileText,
} from "./agent/memory-files.js";
export { recallPrompt } from "./agent/recall-prompt.js";
export { answerToolCall, type ToolAnswer } from "./agent/tool-answer.js";
export { type ConsolidateToolResult, memoryConsolidateTool } from "./agent/tool-consolidate.js";
export { type ForgetToolResult, memoryForgetTool } from "./agent/tool-forget.js";
export {
  type AnthropicTool,
  anthropicTools,
  type OpenAiResponsesTool,
  type OpenAiTool,
  openAiResponsesTools,
  openAiTools,
} from "./agent/tool-formats.js";
export { memoryGetTool } from "./agent/tool-get.js";
export {
  guardedToolsHost,
  ToolPrivacy,
  type ToolPrivacyHost,
  type ToolPrivacyOptions,
  withheldMarker,
} from "./agent/tool-privacy.js";
export { type JsonSchema, jsonSchemaOf } from "./agent/tool-schema.js";
export {
  memorySearchTool,
  type SearchToolHit,
  type SearchToolResult,
} from "./agent/tool-search.js";
export {
  type CurationHost,
  defineMemoryTool,
  type MemoryToolSpec,
  type MemoryToolsHost,
  type ToolAnnotations,
} from "./agent/tool-spec.js";
export { MEMORY_TOOL_SPECS, type MemoryToolName } from "./agent/tool-specs.js";
export { memoryUpdateTool, type UpdateToolResult } from "./agent/tool-update.js";
export { MAX_WRITE_CHARS, memoryWriteTool, type WriteToolResult } from "./agent/tool-write.js";
// Agent tools (the adapters — AI SDK, LangChain, MCP — are built on these), context and flush.
export {
  createMemoryTools,
  type MemoryToolResults,
  type MemoryTools,
  type MemoryToolsOptions,
} from "./agent/tools.js";
export {
  type MemoryGetArgs,
  type MemorySearchArgs,
  type MemoryToolArgs,
  type MemoryWriteArgs,
  parseToolArgs,
} from "./agent/tools-args.js";
export {
  MEMORY_TOOL_DEFINITIONS,
  type ToolDefinition,
  type ToolParameters,
  toolDefinition,
} from "./agent/tools-definitions.js";
export { type ToolErrorResult, toolErrorResult, toolErrorText } from "./agent/tools-errors.js";
export type {
  AuditAction,
  AuditFinding,
  AuditFindingKind,
  AuditHost,
  AuditOptions,
  AuditReport,
} from "./audit/audit.js";
export { auditMemory } from "./audit/memory-audit.js";
// Config.
export { loadConfig, resolveConfig } from "./config/load.js";
export {
  configSchema,
  DEFAULT_MIN_SCORE,
  type EngramConfig,
  type EngramConfigInput,
} from "./config/schema.js";
// Consolidation: plan → apply → undo, forget, update, maintenance.
export {
  type ApplyConsolidationOptions,
  applyConsolidation,
  type ConsolidationResult,
  undoConsolidation,
} from "./consolidation/apply.js";
export { formatRef, type LineRef, parseRef, tryParseRef } from "./consolidation/citations.js";
export type { ConsolidationConfig, MaintenanceConfig } from "./consolidation/config-schema.js";
export {
  type ForgetOptions,
  type ForgetResult,
  forget,
  undoForget,
} from "./consolidation/forget.js";
export {
  type MaintenanceOptions,
  type MaintenanceRun,
  type MaintenanceScheduler,
  type MaintenanceStatus,
  type MaintenanceTrigger,
  maintenanceStatus,
  noteSessionEnd,
  runMaintenance,
  startMaintenance,
} from "./consolidation/maintenance.js";
export type { MemoryConsolidateOptions } from "./consolidation/memory-api.js";
export { type ConsolidateOptions, planConsolidation } from "./consolidation/plan.js";
export { describeRefusal } from "./consolidation/report.js";
export type {
  ConsolidationPlan,
  Duplicate,
  NewMaterial,
  Operation,
  OperationKind,
  OperationOrigin,
  PlannedOperation,
  Refusal,
  RefusalCode,
  TokenSpend,
} from "./consolidation/types.js";
export {
  type UpdateOptions,
  type UpdateResult,
  undoUpdate,
  updateMemory,
} from "./consolidation/update.js";
// The contracts an app passes in: the store (drivers are written with `@engram/core/driver`).
export type {
  KeyValueStore,
  MemoryStore,
  StoreCapabilities,
  StoreFactory,
} from "./driver/contract.js";
export type { Source, StoreStats } from "./driver/records.js";
// ... embedders, language models and rerankers, and choosing them by the config.
export type { Embedder } from "./embedding/embedder.js";
export {
  EmbeddingError,
  type EmbeddingFailure,
  isEmbeddingError,
  isProviderError,
  ProviderError,
  type ProviderFailure,
  type ProviderService,
} from "./embedding/errors.js";
export type {
  EmbeddingProvider,
  ProviderCheck,
  ProviderDescriptor,
  ProviderSetting,
  ProviderSettings,
} from "./embedding/provider.js";
export {
  type EmbedderSelection,
  type ProviderRegistry,
  selectEmbedders,
} from "./embedding/select.js";
// Errors an app catches.
export { EngramError, type EngramErrorCode, isEngramError } from "./errors.js";
// The lifecycle: plan → apply → undo, promote, candidates.
export {
  type ApplyOptions,
  type ApplyResult,
  applyPlan,
  planLifecycle,
  undoLastApply,
} from "./lifecycle/apply.js";
export {
  type CandidatesResult,
  type PromotionCandidate,
  promotionCandidates,
} from "./lifecycle/candidates.js";
export type { LifecycleConfig, LifecycleRule } from "./lifecycle/config-schema.js";
export type {
  LifecycleHost,
  LifecyclePlanOptions,
  LifecycleTimeOptions,
  Summariser,
} from "./lifecycle/host.js";
export type { JournalItem, JournalOutcome } from "./lifecycle/journal.js";
export type { CollectedEntry, LifecyclePlan, PlanItem } from "./lifecycle/plan.js";
export { type PromoteOptions, type PromoteResult, promote } from "./lifecycle/promote.js";
// The memory facade.
export { createMemory, Memory, type MemoryOptions, type MemorySyncOptions } from "./memory.js";
export type { MemoryStatus, ProviderStatus } from "./memory-status.js";
export { isModelError, ModelError, type ModelFailure } from "./model/errors.js";
export type {
  ChatMessage,
  GenerateRequest,
  GenerateResult,
  LanguageModel,
  TokenUsage,
} from "./model/language-model.js";
export {
  type LanguageModelRerankerOptions,
  languageModelReranker,
} from "./model/language-model-reranker.js";
export {
  type LanguageModelProvider,
  type LanguageModelRegistry,
  type LanguageModelSelection,
  selectLanguageModels,
} from "./model/provider.js";
export type { Reranker } from "./model/reranker.js";
export {
  type RerankerProvider,
  type RerankerRegistry,
  selectReranker,
} from "./model/reranker-provider.js";
export type { LanguageModelStatus } from "./model/workspace-models.js";
export type { MemoryScope } from "./privacy/scope-sources.js";
// Sealing (encryption at rest) and the audit.
export { type GeneratedSealKey, generateSealKey } from "./sealing/keys.js";
export {
  type MemorySealOutcome,
  rotateMemoryKey,
  type SealingHost,
  sealMemoryFiles,
  sealMemorySpans,
  unsealMemoryFiles,
  unsealMemorySpans,
} from "./sealing/memory-ops.js";
export type { RotationOutcome } from "./sealing/rotate.js";
export type { SealOutcome } from "./sealing/seal-file.js";
export type { SpanSealOutcome } from "./sealing/seal-spans.js";
export {
  DEFAULT_TIER_WEIGHTS,
  TIER_WEIGHT_PRESETS,
  type TierWeightPreset,
  type TierWeights,
} from "./search/tier-weight.js";
// Search and sync: what Memory's methods take and return.
export type {
  FusionMethod,
  SearchMode,
  SearchOptions,
  SearchResponse,
  SearchResult,
} from "./search/types.js";
export { type WarmUpReport, type WarmUpTarget, warmUp } from "./search/warm-up.js";
export type { SyncEstimate } from "./sync/estimate.js";
export type { WatcherHealth } from "./sync/heartbeat.js";
export type { SyncOptions } from "./sync/indexer.js";
export type {
  SkippedFile,
  SyncEmbeddingReport,
  SyncProgress,
  SyncReport,
} from "./sync/report.js";
export type { MemoryWatchOptions } from "./sync/watch-session.js";
export type { Watcher } from "./sync/watcher.js";
export { estimateTokens } from "./text/tokens.js";
// Tiers and the workspace's layout.
export { DEFAULT_SEARCH_TIERS, isTier, TIERS, type Tier } from "./tier.js";
// The typed tier APIs.
export {
  createTierApi,
  type DecisionInput,
  type DecisionRecord,
  type KnowledgeEntry,
  type KnowledgeInput,
  type KnowledgeItem,
  type LongTermApi,
  type MidTermApi,
  PROJECT_STATUSES,
  type ProjectMemory,
  type ProjectStatus,
  type ProjectTask,
  type ProjectTaskInput,
  type ProjectUpdate,
  type SearchKnowledgeOptions,
  type ShortTermApi,
  type ShortTermEntry,
  type TierApi,
  type TierHost,
  type UserProfile,
  type UserProfilePatch,
} from "./tiers/index.js";
export type { AppendResult } from "./workspace/append.js";
export { type Clock, fixedClock, localDate, systemClock } from "./workspace/clock.js";
export { CONFIG_FILE, INDEX_DIR, MEMORY_DIR, MEMORY_FILE } from "./workspace/layout.js";
export type { LockWait } from "./workspace/lock.js";
export type { ResolvedLayout } from "./workspace/presets.js";
