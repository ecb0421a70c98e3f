/**
 * Memory tiers. A file's tier comes from its path through the tier map (see `workspace/tiers`).
 * - `short`: daily logs and session scratch state
 * - `mid`: project status, tasks and notes
 * - `long`: curated memory (`MEMORY.md`), knowledge, decisions, profile
 * - `archive`: expired or superseded memory, searched only on request
 */
export type Tier = "short" | "mid" | "long" | "archive";

/** All tiers, in lifecycle order. */
export const TIERS: readonly Tier[] = ["short", "mid", "long", "archive"] as const;

/** Tiers searched when the caller names none: everything but the archive. */
export const DEFAULT_SEARCH_TIERS: readonly Tier[] = ["short", "mid", "long"] as const;

/** True when `value` names a tier. */
export function isTier(value: unknown): value is Tier {
  return typeof value === "string" && (TIERS as readonly string[]).includes(value);
}
