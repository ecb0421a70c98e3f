import type { MemoryScope } from "@engram/core";
import { isPersonalPath, isSensitiveFile, redactPrivate } from "@engram/core/internal";

/**
 * What the page may show of memory in each scope, decided by core's privacy rules. `main` (the
 * user's own view): everything, private spans marked. `group` (the default, safe to share a
 * screen): no personal file (any `MEMORY.md`, the long-term file, the profile), no file marked
 * `sensitive: true`, and every private span replaced by `[private]`.
 *
 * This module is the one place the page applies those rules; they are core's.
 */
export type { MemoryScope };

/** The scope a request asks for (`?scope=main|group`), else the server's default. */
export function scopeOf(value: string | undefined, fallback: MemoryScope): MemoryScope {
  return value === "main" || value === "group" ? value : fallback;
}

/**
 * True for a file never shown outside the main scope whatever its content: any `MEMORY.md` and
 * the layout's personal files (core's `isPersonalPath`).
 */
export function isPersonalFile(path: string, personalFiles: readonly string[]): boolean {
  return isPersonalPath(path, personalFiles);
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
 * The public view of `text`, line for line (core's `redactPrivate`): each private span — on lines
 * of its own or inline — becomes `[private]` with its line breaks kept, so the result has exactly
 * the lines of `text`, at the same numbers.
 */
export function publicView(text: string): string {
  return redactPrivate(text);
}
