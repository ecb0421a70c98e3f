import * as v from "valibot";
import { parseRef } from "../consolidation/citations.js";
import { curationHost } from "./tool-curation.js";
import { expects, nonEmptyText, wholeNumber } from "./tool-schema.js";
import { defineMemoryTool } from "./tool-spec.js";
import { MAX_WRITE_CHARS } from "./tool-write.js";

/** The result of `memory_update`. */
export interface UpdateToolResult {
  path: string;
  startLine: number;
  endLine: number;
  archivedTo: string;
  /** Facts of the old text the new one leaves out. */
  dropped: string[];
  applyId: string;
}

const args = v.strictObject({
  target: v.pipe(
    nonEmptyText(),
    v.description("'MEMORY.md:12-14' (lines) or 'MEMORY.md#Preferences' (a section's body)."),
    v.examples(["MEMORY.md:12-14"]),
    expects("path:start-end or path#Heading"),
  ),
  text: v.pipe(
    nonEmptyText(MAX_WRITE_CHARS),
    v.description("The new Markdown text."),
    v.examples(["- Lin prefers tea"]),
    expects(`non-empty text of at most ${MAX_WRITE_CHARS} characters`),
  ),
  reason: v.optional(
    v.pipe(
      nonEmptyText(),
      v.description("Why (kept with the archived text)."),
      v.examples(["corrected"]),
      expects("non-empty text"),
    ),
  ),
});

const result = v.object({
  path: v.pipe(v.string(), v.description("The long-term file updated.")),
  startLine: v.pipe(wholeNumber(1), v.description("First line of the new text.")),
  endLine: v.pipe(wholeNumber(1), v.description("Last line of the new text.")),
  archivedTo: v.pipe(v.string(), v.description("The archive file that keeps the old text.")),
  dropped: v.pipe(
    v.array(v.string()),
    v.description(
      "Facts of the old text (names, numbers, dates, key terms) the new one leaves out.",
    ),
  ),
  applyId: v.pipe(v.string(), v.description("The change's id (undo: engram update --undo).")),
});

/** `memory_update`: nanobot's `write_long_term`, made safe. */
export const memoryUpdateTool = defineMemoryTool({
  name: "memory_update",
  title: "Update long-term memory",
  description:
    "Replace lines or a section of a long-term memory file (MEMORY.md, memory/long-term/**) by " +
    "new text: `target` is path:start-end, or path#Heading for the body of a section. The old " +
    "text is archived; the answer lists facts (names, numbers, dates) the new text left out.",
  annotations: {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: false,
  },
  curates: true,
  args,
  result: result satisfies v.GenericSchema<unknown, UpdateToolResult>,
  run: async (memory, { target, text, reason }) => {
    const hash = target.indexOf("#");
    const where =
      hash > 0
        ? { path: target.slice(0, hash), section: target.slice(hash + 1) }
        : parseRef(target, "target");
    const r = await curationHost(memory).update(where, text, reason ? { reason } : {});
    return {
      path: r.path,
      startLine: r.startLine,
      endLine: r.endLine,
      archivedTo: r.archivedTo,
      dropped: r.dropped,
      applyId: r.applyId,
    };
  },
});
