/**
 * Consolidation: curation of long-term memory on top of the lifecycle journal. A pass reads what
 * is new since the last one, proposes ADD / UPDATE / SUPERSEDE / MERGE / SUMMARY operations that
 * cite `path:lines` (a model's, checked by engram, or deterministic ones), plans them with a
 * unified diff per file, applies them through the journal (archive, report, undo), and refuses
 * what would drop a fact or make memory unfindable. Forget and update edit long-term memory the
 * same way; maintenance runs it all on a schedule.
 */
export {
  type ApplyConsolidationOptions,
  applyConsolidation,
  CONSOLIDATION_LOCK,
  type ConsolidationResult,
  savePlan,
  undoConsolidation,
} from "./apply.js";
export { type ArchiveReason, type ArchiveRecord, parseArchive, readTombstones } from "./archive.js";
export { formatRef, type LineRef, parseRef, tryParseRef } from "./citations.js";
export {
  type ConsolidationConfig,
  consolidationSchema,
  type MaintenanceConfig,
  maintenanceSchema,
} from "./config-schema.js";
export { type Entry, entriesOf } from "./curated.js";
export { type Fact, factsOf, missingFacts } from "./facts.js";
export {
  type ForgetOptions,
  type ForgetResult,
  forget,
  undoForget,
} from "./forget.js";
export { type AffectedLines, type GuardFailure, type GuardResult, recallGuard } from "./guard.js";
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
} from "./maintenance.js";
export { consolidateMemory, type MemoryConsolidateOptions } from "./memory-api.js";
export { hostModel } from "./model-source.js";
export { ARCHIVE_DIR, REPORTS_DIR, STATE_FILE } from "./paths.js";
export { type ConsolidateOptions, planConsolidation } from "./plan.js";
export { CONSOLIDATION_SCHEMA, CONSOLIDATION_SYSTEM_PROMPT, type RawOperation } from "./prompt.js";
export { describeRefusal } from "./report.js";
export { parseSchedule, type Schedule } from "./schedule.js";
export { selectOperations } from "./select.js";
export { type ConsolidationState, readState } from "./state.js";
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
} from "./types.js";
export { type UpdateOptions, type UpdateResult, undoUpdate, updateMemory } from "./update.js";
export type { UserEditResult } from "./user-edit.js";
