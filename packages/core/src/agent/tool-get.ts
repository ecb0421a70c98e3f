import * as v from "valibot";
import type { MemoryFileSlice } from "../workspace/read.js";
import { unlockArg, withheldField } from "./tool-privacy.js";
import { expects, nonEmptyText, wholeNumber } from "./tool-schema.js";
import { defineMemoryTool } from "./tool-spec.js";

const args = v.strictObject({
  path: v.pipe(
    nonEmptyText(),
    v.description("Workspace-relative path from a memory_search result, e.g. 'MEMORY.md'."),
    v.examples(["MEMORY.md"]),
    expects("a workspace-relative memory file path"),
  ),
  from: v.optional(
    v.pipe(
      wholeNumber(1),
      v.description("First line to return (1-based)."),
      v.examples([1]),
      expects("a whole number of at least 1"),
    ),
  ),
  lines: v.optional(
    v.pipe(
      wholeNumber(1),
      v.description("How many lines to return."),
      v.examples([40]),
      expects("a whole number of at least 1"),
    ),
  ),
  unlock: unlockArg,
});

const result = v.object({
  path: v.pipe(v.string(), v.description("Workspace-relative path of the file.")),
  text: v.pipe(v.string(), v.description("The lines, joined with \\n.")),
  startLine: v.pipe(wholeNumber(1), v.description("First returned line (1-based).")),
  endLine: v.pipe(
    wholeNumber(0),
    v.description("Last returned line; startLine - 1 when no line was returned."),
  ),
  totalLines: v.pipe(wholeNumber(0), v.description("Lines in the whole file.")),
  withheld: withheldField,
});

/** `memory_get`: exact lines of a memory file, read from the file itself. */
export const memoryGetTool = defineMemoryTool({
  name: "memory_get",
  title: "Read memory lines",
  description:
    "Read exact lines of a memory file (workspace-relative path such as MEMORY.md or " +
    "memory/2026-01-02.md), read from the file itself. Optionally start at line `from` " +
    "(1-based) and return `lines` lines. Returns the text, the line range and the file's total lines.",
  annotations: {
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  args,
  result: result satisfies v.GenericSchema<unknown, MemoryFileSlice & { withheld?: string }>,
  // The tools' host guards the read (scope, unlock): `withheld` says what it held back.
  run: (
    memory,
    { path, unlock: _unlock, ...range },
  ): Promise<MemoryFileSlice & { withheld?: string }> => memory.get(path, range),
});
