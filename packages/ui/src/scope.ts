import * as core from "@engram/core";
import { isSensitiveFile, type MemoryScope, privateRanges } from "@engram/core";

/**
 * What the page may show of memory in each scope, decided by core's privacy rules. `main` (the
 * user's own view): everything, private spans marked. `group` (the default, safe to share a
 * screen): no personal file (`MEMORY.md`, the long-term file, the profile), no file marked
 * `sensitive: true`, and every private span replaced by {@link REDACTED}.
 *
 * This module is the one place the page applies those rules, so it follows core when they
 * change (inline private spans and `redactPrivate` are on their way from the privacy work).
 */
export type { MemoryScope };

/** What stands in for a private span outside the main scope (its other lines are left blank). */
export const REDACTED = "[private]";

/** The scope a request asks for (`?scope=main|group`), else the server's default. */
export function scopeOf(value: string | undefined, fallback: MemoryScope): MemoryScope {
  return value === "main" || value === "group" ? value : fallback;
}

/**
 * True for a file never shown outside the main scope whatever its content: any `MEMORY.md` and
 * the layout's personal files (its long-term file, the user profile).
 */
export function isPersonalFile(path: string, personalFiles: readonly string[]): boolean {
  return path.slice(path.lastIndexOf("/") + 1) === "MEMORY.md" || personalFiles.includes(path);
}

/** Why a file is not shown in the group scope, or null when its public view may be shown. */
export function hiddenInGroup(
  path: string,
  text: string,
  personalFiles: readonly string[],
): "personal" | "sensitive" | null {
  if (isPersonalFile(path, personalFiles)) return "personal";
  if (isSensitiveFile(text)) return "sensitive";
  return null;
}

/**
 * Core's `redactPrivate`, where this build of core has it (private spans inline as well as on
 * lines of their own, each replaced by `[private]` with its line breaks kept).
 */
const redactPrivate = (core as unknown as { redactPrivate?: (text: string) => string })
  .redactPrivate;

/**
 * The public view of `text`, line for line: core's `redactPrivate` when core has it; otherwise
 * each private span of core's `privateRanges` (markers included) becomes {@link REDACTED} on its
 * first line and blank lines after it. Either way the result has exactly the lines of `text`, at
 * the same numbers.
 */
export function publicView(text: string): string {
  if (typeof redactPrivate === "function") return redactPrivate(text);
  const ranges = privateRanges(text);
  if (ranges.length === 0) return text;
  const lines = text.split("\n");
  for (const r of ranges) {
    for (let n = r.startLine; n <= r.endLine && n <= lines.length; n++) {
      lines[n - 1] = n === r.startLine ? REDACTED : "";
    }
  }
  return lines.join("\n");
}
