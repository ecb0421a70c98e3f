/**
 * The tier lifecycle: declarative rules move memory between tiers and into the archive (plan →
 * journaled apply → undo), promote text into long-term memory with dedupe, and suggest promotion
 * candidates from what is recalled often.
 */
export {
  type ApplyOptions,
  type ApplyResult,
  applyPlan,
  planLifecycle,
  recoverLifecycle,
  undoLastApply,
} from "./apply.js";
export {
  type CandidatesResult,
  type PromotionCandidate,
  promotionCandidates,
} from "./candidates.js";
export {
  type LifecycleConfig,
  type LifecycleRule,
  lifecycleRuleSchema,
  lifecycleSchema,
} from "./config-schema.js";
export {
  type DedupeOptions,
  type DuplicateMatch,
  findDuplicate,
  normalizeForDedupe,
  termJaccard,
} from "./dedupe.js";
export type {
  LifecycleHost,
  LifecyclePlanOptions,
  LifecycleTimeOptions,
  Summariser,
} from "./host.js";
export { describeStep, type JournalItem, type JournalOutcome } from "./journal.js";
export {
  archiveSession,
  type LongTermPromotion,
  promoteToLongTerm,
  promoteToMidTerm,
} from "./ops.js";
export type { CollectedEntry, LifecyclePlan, PlanItem } from "./plan.js";
export { projectCandidates, type StoredProjectCandidate } from "./project-candidates.js";
export {
  type PromoteOptions,
  type PromoteResult,
  promote,
} from "./promote.js";
export { type RecallEntry, RecallLog, readRecall } from "./recall.js";
export { lifecycleRules } from "./rules.js";
export { type SectionEntry, sectionEntries } from "./sections.js";
export { type AuditEntry, readAudit } from "./state.js";
export type { Step, StepHook, StepState } from "./steps.js";
