import { EngramError } from "../errors.js";
import type { ApplyOptions, ApplyResult } from "../lifecycle/apply.js";
import { undoLastApply } from "../lifecycle/apply.js";
import { normalizeForDedupe } from "../lifecycle/dedupe.js";
import { hostTierOf, type LifecycleHost } from "../lifecycle/host.js";
import { formatRef, type LineRef } from "./citations.js";
import type { LineEdit } from "./edit.js";
import { describeFact, factsOf, missingFacts } from "./facts.js";
import { editableText } from "./forget.js";
import { runUserEdit, type UserEditResult } from "./user-edit.js";

/** Options of {@link updateMemory}. */
export interface UpdateOptions extends ApplyOptions {
  /** Why (kept with the archived old text). */
  reason?: string;
}

/** What {@link updateMemory} did. */
export interface UpdateResult extends UserEditResult {
  /** Where the new text is. */
  path: string;
  startLine: number;
  endLine: number;
  /** Facts of the old text the new one leaves out (names, numbers, dates, key terms), as a warning. */
  dropped: string[];
}

const HEADING_RE = /^(#{1,6})\s+(.*?)\s*#*\s*$/;

/**
 * Replace lines (`path:start-end`) or the body of a section (`{ path, section }`: everything under
 * that heading up to the next heading of the same or a higher level) of a long-term file by
 * `text` — nanobot's `write_long_term`, made safe: the old text is archived with the reason
 * (never lost), the change is journaled and undone by {@link undoUpdate}, and the facts the new
 * text drops are listed. Only long-term (long-tier) files are updated.
 *
 * @throws EngramError `INVALID_ARGUMENT` (no such lines or section, empty text, no change),
 * `PATH_NOT_ALLOWED` (not a long-term file).
 */
export async function updateMemory(
  host: LifecycleHost,
  target: LineRef | { path: string; section: string },
  text: string,
  options: UpdateOptions = {},
): Promise<UpdateResult> {
  if (typeof text !== "string" || !text.trim()) {
    throw new EngramError("INVALID_ARGUMENT", "the new text is empty", {
      hint: "to remove lines, use forget (engram forget / memory_forget)",
    });
  }
  if (hostTierOf(host)(target.path) !== "long") {
    throw new EngramError("PATH_NOT_ALLOWED", `${target.path} is not a long-term memory file`, {
      hint: "update edits long-term memory (e.g. MEMORY.md, memory/long-term/**); append to logs instead",
    });
  }
  const current = await editableText(host, target.path, false);
  const lines = current.split("\n");
  if (current.endsWith("\n")) lines.pop();
  let range: LineRef;
  let raw = false;
  if ("section" in target) {
    range = sectionBody(lines, target.path, target.section);
    raw = true;
  } else {
    range = target;
    if (range.startLine < 1 || range.endLine > lines.length || range.endLine < range.startLine) {
      throw new EngramError(
        "INVALID_ARGUMENT",
        `${formatRef(range)} does not exist (the file has ${lines.length} lines)`,
        {
          hint: "cite lines as a search result shows them, e.g. MEMORY.md:12-14",
        },
      );
    }
  }
  const old = lines.slice(range.startLine - 1, range.endLine).join("\n");
  if (normalizeForDedupe(old) === normalizeForDedupe(text)) {
    throw new EngramError("INVALID_ARGUMENT", `${formatRef(range)} already says that`, {
      hint: "nothing to update",
    });
  }
  const edits = new Map<string, LineEdit[]>([
    [
      target.path,
      [
        {
          kind: "replace",
          id: "update",
          startLine: range.startLine,
          endLine: range.endLine,
          text,
          raw,
        },
      ],
    ],
  ]);
  const result = await runUserEdit(
    host,
    {
      rule: "update",
      reason: "updated",
      why: options.reason?.trim() || "updated on request",
      edits,
      texts: new Map([[target.path, current]]),
      replacedBy: text.trim(),
    },
    options,
  );
  const newLines = raw
    ? text.replace(/\n+$/, "").split("\n").length
    : Math.max(1, text.trim().split("\n").length);
  return {
    ...result,
    path: target.path,
    startLine: range.startLine,
    endLine: range.startLine + newLines - 1,
    dropped: missingFacts(factsOf(old), text).map(describeFact),
  };
}

/** Undo the last update (refused when a newer change came after it). */
export function undoUpdate(host: LifecycleHost, options: ApplyOptions = {}): Promise<ApplyResult> {
  return undoLastApply(host, options, { rules: ["update"], what: "update" });
}

/** The body lines of the section titled `section` (blank lines around it excluded). */
function sectionBody(lines: readonly string[], path: string, section: string): LineRef {
  const wanted = section
    .trim()
    .replace(/^#+\s*/, "")
    .toLowerCase();
  const h = lines.findIndex((l) => HEADING_RE.exec(l)?.[2]?.trim().toLowerCase() === wanted);
  if (h < 0) {
    throw new EngramError("INVALID_ARGUMENT", `${path} has no section "${section}"`, {
      hint: "name a heading of the file (without the #), or cite lines instead",
    });
  }
  const level = ((HEADING_RE.exec(lines[h] as string) as RegExpExecArray)[1] as string).length;
  let end = lines.length;
  for (let i = h + 1; i < lines.length; i++) {
    const m = HEADING_RE.exec(lines[i] as string);
    if (m && (m[1] as string).length <= level) {
      end = i;
      break;
    }
  }
  let start = h + 1;
  while (start < end && !(lines[start] as string).trim()) start++;
  let last = end - 1;
  while (last >= start && !(lines[last] as string).trim()) last--;
  if (last < start) {
    throw new EngramError("INVALID_ARGUMENT", `section "${section}" of ${path} is empty`, {
      hint: "append to it instead (memory_write), or cite lines",
    });
  }
  return { path, startLine: start + 1, endLine: last + 1 };
}
