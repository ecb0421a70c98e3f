import * as v from "valibot";
import { parseSchedule } from "./schedule.js";

const unknownKey = () => "unknown key (check its spelling; every key is listed in the README)";
const int = (min: number) => v.pipe(v.number(), v.integer(), v.minValue(min));
const text = v.pipe(v.string(), v.minLength(1));

/** The `consolidation` section of `engram.config.json`. */
export const consolidationSchema = v.strictObject(
  {
    /**
     * Long-term file new facts go to (default: `lifecycle.promote.file`, else the layout's
     * long-term file, e.g. `MEMORY.md`).
     */
    file: v.optional(text),
    /** What counts as new material: daily logs, short-term files, session transcripts. */
    sources: v.optional(
      v.strictObject(
        {
          dailyLogs: v.optional(v.boolean(), true),
          shortTerm: v.optional(v.boolean(), true),
          /** Session transcripts (default: when `sessions.enabled`). */
          sessions: v.optional(v.boolean()),
        },
        unknownKey,
      ),
      {},
    ),
    /**
     * Opt in to sending private blocks and `sensitive: true` files to the model (per workspace).
     * Even then they are never promoted: an operation citing them is refused.
     */
    includePrivate: v.optional(v.boolean(), false),
    /** Merge exact and near-duplicate entries of long-term memory (both modes). */
    merge: v.optional(v.boolean(), true),
    /**
     * Without a model: add short-term text recalled often (promotion candidates) and new lines
     * marked important (`#important`, ⭐) to long-term memory.
     */
    promote: v.optional(v.boolean(), true),
    /** Most recalled entries one pass adds without a model (the best-scored candidates first). */
    maxPromotions: v.optional(int(0), 10),
    /** Most tokens one pass may send to and receive from the model (default: no limit). */
    maxTokens: v.optional(int(1)),
    /** Most tokens the model may answer per call (default 2048). */
    maxOutputTokens: v.optional(int(64), 2048),
    /** The model's context window when it does not say (default 8192). */
    contextTokens: v.optional(int(1024), 8192),
  },
  unknownKey,
);

/** The `maintenance` section: lifecycle rules and consolidation on a schedule. */
export const maintenanceSchema = v.strictObject(
  {
    /**
     * When to run: `"daily 03:00"`, `"hourly"`, `"every 6h"` / `"every 30m"`, or `"off"`
     * (default). A run missed while nothing was running happens at the next check.
     */
    schedule: v.optional(
      v.pipe(
        v.string(),
        v.check(
          (s) => parseSchedule(s) !== null,
          'write the schedule as "daily 03:00", "hourly", "every 6h" or "off"',
        ),
      ),
      "off",
    ),
    /**
     * Conditions every run also needs (Claude Code's auto-dream gate): at least `minHours` since
     * the last pass and `minSessions` sessions ended since then. With gates and no schedule, a run
     * starts as soon as the gates pass.
     */
    gates: v.optional(
      v.strictObject(
        {
          minHours: v.optional(v.pipe(v.number(), v.minValue(0))),
          minSessions: v.optional(int(0)),
        },
        unknownKey,
      ),
    ),
    /** Run the lifecycle rules (archive, retention) in each run (default true). */
    lifecycle: v.optional(v.boolean(), true),
    /** Run a consolidation pass in each run (default true). */
    consolidate: v.optional(v.boolean(), true),
    /** `FlushPolicy.endSession` runs maintenance (gates permitting) when a session ends. */
    onSessionEnd: v.optional(v.boolean(), false),
    /** How often a running `engram watch` / `engram mcp` checks whether a run is due (ms). */
    checkEveryMs: v.optional(int(1_000), 60_000),
  },
  unknownKey,
);

/** The `consolidation` config section with defaults filled in. */
export type ConsolidationConfig = v.InferOutput<typeof consolidationSchema>;
/** The `maintenance` config section with defaults filled in. */
export type MaintenanceConfig = v.InferOutput<typeof maintenanceSchema>;
