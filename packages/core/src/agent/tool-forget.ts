import * as v from "valibot";
import { parseRef } from "../consolidation/citations.js";
import { EngramError } from "../errors.js";
import { curationHost } from "./tool-curation.js";
import { expects, nonEmptyText, wholeNumber } from "./tool-schema.js";
import { defineMemoryTool } from "./tool-spec.js";

/** The result of `memory_forget`. */
export interface ForgetToolResult {
  forgotten: Array<{ path: string; startLine: number; endLine: number; text: string }>;
  archivedTo: string;
  applyId: string;
}

const args = v.strictObject({
  target: v.optional(
    v.pipe(
      nonEmptyText(),
      v.description("Lines to forget as memory_search cites them, e.g. 'MEMORY.md:12-14'."),
      v.examples(["MEMORY.md:12-14"]),
      expects("lines as path:start-end"),
    ),
  ),
  query: v.optional(
    v.pipe(
      nonEmptyText(),
      v.description("Forget every entry containing this text (instead of target)."),
      v.examples(["hunter2"]),
      expects("non-empty text"),
    ),
  ),
  reason: v.optional(
    v.pipe(
      nonEmptyText(),
      v.description("Why (kept with the archived lines)."),
      v.examples(["no longer true"]),
      expects("non-empty text"),
    ),
  ),
  fromLog: v.optional(
    v.pipe(
      v.boolean(),
      v.description("Allow striking lines from a daily log (default false)."),
      v.examples([false]),
      expects("true or false"),
    ),
  ),
});

const line = v.object({
  path: v.pipe(v.string(), v.description("Workspace-relative path.")),
  startLine: v.pipe(wholeNumber(1), v.description("First line (1-based).")),
  endLine: v.pipe(wholeNumber(1), v.description("Last line.")),
  text: v.pipe(v.string(), v.description("The lines as they were.")),
});

const result = v.object({
  forgotten: v.pipe(v.array(line), v.description("The lines taken out of memory.")),
  archivedTo: v.pipe(v.string(), v.description("The archive file that keeps them.")),
  applyId: v.pipe(v.string(), v.description("The change's id (undo: engram forget --undo).")),
});

/** `memory_forget`: lines leave memory for the archive, with a tombstone. */
export const memoryForgetTool = defineMemoryTool({
  name: "memory_forget",
  title: "Forget memory",
  description:
    "Remove lines from memory: give `target` as path:start-end (as memory_search cites it), or " +
    "`query` to forget every entry containing that text. The lines are archived with the reason " +
    "(never deleted) and consolidation never adds them back; daily logs are touched only with " +
    "fromLog. Returns what was forgotten.",
  annotations: {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: false,
  },
  curates: true,
  args,
  result: result satisfies v.GenericSchema<unknown, ForgetToolResult>,
  run: async (memory, { target, query, reason, fromLog }) => {
    if ((target === undefined) === (query === undefined)) {
      throw new EngramError("INVALID_ARGUMENT", "memory_forget: pass either target or query", {
        hint: 'target: "MEMORY.md:12-14" (lines), or query: "text to forget"',
      });
    }
    const r = await curationHost(memory).forget(
      target !== undefined ? parseRef(target, "target") : { query: query as string },
      { ...(reason ? { reason } : {}), fromLog: fromLog === true },
    );
    return { forgotten: r.forgotten, archivedTo: r.archivedTo ?? "", applyId: r.applyId ?? "" };
  },
});
