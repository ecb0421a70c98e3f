/**
 * Typed tier APIs (the three-tier seed's `MemorySystem`): short-term key/value and session files,
 * mid-term projects, long-term profile, knowledge and decisions — each stored as readable
 * Markdown or JSON in its tier's folder.
 */
import { type DecisionInput, type DecisionRecord, recordDecision } from "./decisions.js";
import type { TierHost } from "./host.js";
import {
  addKnowledge,
  type KnowledgeEntry,
  type KnowledgeInput,
  type KnowledgeItem,
  type SearchKnowledgeOptions,
  searchKnowledge,
} from "./knowledge.js";
import { createMidTermApi, type MidTermApi } from "./mid-term.js";
import {
  readUserProfile,
  type UserProfile,
  type UserProfilePatch,
  updateUserProfile,
} from "./profile.js";
import { createShortTermApi, type ShortTermApi } from "./short-term.js";

export type { DecisionInput, DecisionRecord } from "./decisions.js";
export type { TierHost } from "./host.js";
export {
  type KnowledgeEntry,
  type KnowledgeInput,
  type KnowledgeItem,
  parseKnowledge,
  type SearchKnowledgeOptions,
} from "./knowledge.js";
export {
  type MidTermApi,
  PROJECT_STATUSES,
  type ProjectMemory,
  type ProjectStatus,
  type ProjectTask,
  type ProjectTaskInput,
  type ProjectUpdate,
} from "./mid-term.js";
export { assertName, slugify } from "./names.js";
export type { UserProfile, UserProfilePatch } from "./profile.js";
export type { ShortTermApi, ShortTermEntry } from "./short-term.js";

/** Long-term memory: the user profile, knowledge by domain with tags, decision records. */
export interface LongTermApi {
  getUserProfile(): Promise<UserProfile>;
  updateUserProfile(patch: UserProfilePatch): Promise<UserProfile>;
  addKnowledge(domain: string, knowledge: KnowledgeInput): Promise<KnowledgeEntry>;
  searchKnowledge(query: string, options?: SearchKnowledgeOptions): Promise<KnowledgeItem[]>;
  recordDecision(decision: DecisionInput): Promise<DecisionRecord>;
}

/** The typed tier APIs of one memory. */
export interface TierApi {
  shortTerm: ShortTermApi;
  midTerm: MidTermApi;
  longTerm: LongTermApi;
}

/**
 * The typed tier APIs over a memory (`createMemory(…)`): every write is atomic (temp file +
 * rename) or a locked append, dated by the memory's clock, and indexed before its next search.
 *
 * @example
 * ```ts
 * const tiers = createTierApi(memory);
 * await tiers.shortTerm.set("current_topic", "数据库迁移", 3600);
 * await tiers.midTerm.updateProject("site-redesign", { tasks: [{ title: "Pick fonts" }] });
 * await tiers.longTerm.recordDecision({ title: "采用 SQLite", context: "…", decision: "…" });
 * ```
 */
export function createTierApi(memory: TierHost): TierApi {
  return {
    shortTerm: createShortTermApi(memory),
    midTerm: createMidTermApi(memory),
    longTerm: {
      getUserProfile: () => readUserProfile(memory),
      updateUserProfile: (patch) => updateUserProfile(memory, patch),
      addKnowledge: (domain, knowledge) => addKnowledge(memory, domain, knowledge),
      searchKnowledge: (query, options) => searchKnowledge(memory, query, options),
      recordDecision: (decision) => recordDecision(memory, decision),
    },
  };
}
