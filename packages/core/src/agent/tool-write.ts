import * as v from "valibot";
import type { AppendResult } from "../workspace/append.js";
import { isDailyLogPath } from "../workspace/layout.js";
import { expects, nonEmptyText, wholeNumber } from "./tool-schema.js";
import { defineMemoryTool, type MemoryToolsHost } from "./tool-spec.js";

/** Most characters one `memory_write` call may append (a guard against runaway output). */
export const MAX_WRITE_CHARS = 50_000;

/** The result of `memory_write`: where the appended entry landed. */
export interface WriteToolResult extends AppendResult {
  /** `daily`, `long-term`, or `file` (a named memory file). */
  target: "daily" | "long-term" | "file";
}

const args = v.strictObject({
  text: v.pipe(
    nonEmptyText(MAX_WRITE_CHARS),
    v.description("The Markdown text of the entry."),
    v.examples(["Decided to ship on Friday"]),
    expects(`non-empty text of at most ${MAX_WRITE_CHARS} characters`),
  ),
  target: v.optional(
    v.pipe(
      nonEmptyText(),
      v.description(
        "'daily' (today's log, default), 'long-term' (MEMORY.md), or a workspace-relative " +
          "memory file path (MEMORY.md or a .md file under memory/).",
      ),
      v.examples(["daily"]),
      expects('"daily", "long-term" or a memory file path'),
    ),
    "daily",
  ),
});

const result = v.object({
  path: v.pipe(v.string(), v.description("Workspace-relative path of the file written.")),
  startLine: v.pipe(wholeNumber(1), v.description("Line of the entry's heading (1-based).")),
  endLine: v.pipe(wholeNumber(1), v.description("Last line of the entry's text.")),
  created: v.pipe(v.boolean(), v.description("True when this call created the file.")),
  target: v.picklist(["daily", "long-term", "file"]),
});

/** `memory_write`: appends an entry; never changes or removes existing text. */
export const memoryWriteTool = defineMemoryTool({
  name: "memory_write",
  title: "Append to memory",
  description:
    "Append a note to memory. Always appends a new timestamped entry; existing text is never " +
    "changed or removed. target 'daily' (default) is today's log memory/YYYY-MM-DD.md (running " +
    "notes, context); 'long-term' is MEMORY.md (decisions, preferences, lasting facts); or name a " +
    "memory file such as 'memory/mid-term/projects/apollo/status.md'.",
  annotations: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  args,
  fieldsNote: "it always appends",
  result: result satisfies v.GenericSchema<unknown, WriteToolResult>,
  run: (memory, { text, target }) => writeMemory(memory, text, target),
});

/** Appends through core's locked append functions; the target only picks the file. */
async function writeMemory(
  memory: MemoryToolsHost,
  text: string,
  target: string,
): Promise<WriteToolResult> {
  if (target === "daily") return { ...(await memory.appendDaily(text)), target: "daily" };
  if (target === "long-term")
    return { ...(await memory.appendLongTerm(text)), target: "long-term" };
  // A named daily log keeps the daily format (`## HH:MM` entries).
  const date = isDailyLogPath(target);
  const result = date
    ? await memory.appendDaily(text, { date })
    : await memory.appendLongTerm(text, { file: target });
  return { ...result, target: "file" };
}
