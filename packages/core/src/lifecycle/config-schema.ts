import * as v from "valibot";

const unknownKey = () => "unknown key (check its spelling; every key is listed in the README)";
const int = (min: number) => v.pipe(v.number(), v.integer(), v.minValue(min));
const unit = v.pipe(v.number(), v.minValue(0), v.maxValue(1));
const weight = v.pipe(v.number(), v.minValue(0));
const text = v.pipe(v.string(), v.minLength(1));

/** `7d`, `24h`, `30m`: an age in days, hours or minutes. */
export const AGE_RE = /^(\d+)(d|h|m)$/;

/**
 * One lifecycle rule: files (or, when `from` ends with `/`, folders) matching `from` that meet every
 * condition of `when` get `action`, landing at `to`.
 */
export const lifecycleRuleSchema = v.strictObject(
  {
    /** Shown in plans and the audit log. */
    name: text,
    /** Workspace-relative glob; ending with `/` it matches folders (e.g. a project). */
    from: text,
    when: v.optional(
      v.strictObject(
        {
          /** Older than this (`7d`, `24h`): the date in the name, else front matter, else mtime. */
          olderThan: v.optional(
            v.pipe(v.string(), v.regex(AGE_RE, 'write an age like "7d" or "24h"')),
          ),
          /** Front matter `status` (a folder's `status.md`) is one of these. */
          status: v.optional(v.pipe(v.array(text), v.minLength(1))),
          /** Front matter `ended: true` (or `ended_at` set). */
          ended: v.optional(v.boolean()),
        },
        unknownKey,
      ),
      {},
    ),
    /**
     * `archive`: move to `to`. `supersede`: move to `to` and leave a short pointer stub where the
     * file was.
     */
    action: v.picklist(["archive", "supersede"]),
    /** Target path template: `{name}` `{stem}` `{id}` `{date}` `{yyyy}` `{mm}` `{dd}`. */
    to: text,
    /**
     * When the target exists: `suffix` (default) picks `name-2.md`, `name-3.md`, …; `append` adds
     * the file's text to the end of the existing target (daily logs archived twice).
     */
    onCollision: v.optional(v.picklist(["suffix", "append"]), "suffix"),
    /** Headings of `notes.md` (folder rules) whose entries become promotion candidates. */
    collect: v.optional(v.array(text)),
  },
  unknownKey,
);

/** The `lifecycle` section of `engram.config.json`. */
export const lifecycleSchema = v.strictObject(
  {
    /** Daily logs older than this many days are archived (default 7). */
    retentionDays: v.optional(int(1), 7),
    /** Short-term session files untouched this many hours are archived (default 24). */
    sessionHours: v.optional(int(1), 24),
    /** Replaces the default rules entirely when given. */
    rules: v.optional(v.array(lifecycleRuleSchema)),
    promote: v.optional(
      v.strictObject(
        {
          /** Target of `promote` when none is named (default: the layout's long-term file). */
          file: v.optional(text),
          /** Lexical near-duplicate threshold: Jaccard similarity of analyzer terms (default 0.8). */
          threshold: v.optional(unit, 0.8),
          /** Vector near-duplicate threshold: cosine similarity (default 0.92). */
          vectorThreshold: v.optional(unit, 0.92),
        },
        unknownKey,
      ),
      {},
    ),
    candidates: v.optional(
      v.strictObject(
        {
          recencyWeight: v.optional(weight, 1),
          frequencyWeight: v.optional(weight, 1),
          importanceWeight: v.optional(weight, 2),
          /** A chunk needs at least this many recalls (distinct queries + gets) to be suggested. */
          minRecalls: v.optional(int(1), 2),
        },
        unknownKey,
      ),
      {},
    ),
  },
  unknownKey,
);

/** One lifecycle rule as written in the config. */
export type LifecycleRule = v.InferOutput<typeof lifecycleRuleSchema>;
/** The `lifecycle` config section with defaults filled in. */
export type LifecycleConfig = v.InferOutput<typeof lifecycleSchema>;
