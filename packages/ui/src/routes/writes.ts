import { EngramError, undoConsolidation, undoForget, undoUpdate } from "@engram/core";
import type { UiContext } from "../context.js";
import { applyApprovedOperations, planPass } from "../curation/consolidation.js";
import { forgetLines, type LineTarget, updateLines } from "../curation/edits.js";
import { applyApprovedMoves, undoLifecycle } from "../curation/lifecycle.js";

/** What a write did: the paths it changed, its result (the API's answer), where a form goes next. */
export interface WriteOutcome {
  paths: readonly string[];
  result: unknown;
  /** The page a form returns to, with the notice to show there. */
  back: { path: "/curate" | "/file"; query: Record<string, string | number> };
}

/**
 * Every write the page can make, each one curation call of the library. The JSON API
 * (`POST /api/<name>`, JSON body) and the page's forms (`POST /actions/<name>`, form fields) run
 * the same entry, so there is one write path per action.
 */
export const WRITES: ReadonlyArray<{
  name: string;
  run: (ctx: UiContext, input: Record<string, unknown>) => Promise<WriteOutcome>;
}> = [
  {
    name: "lifecycle/apply",
    run: async (ctx, input) => {
      const done = await applyApprovedMoves(ctx.memory, strings(input.approve));
      const query = {
        notice: "applied",
        n: done.approved,
        rejected: done.rejected,
        id: done.result.applyId,
      };
      return { paths: done.result.paths, result: done, back: { path: "/curate", query } };
    },
  },
  {
    name: "lifecycle/undo",
    run: async (ctx) => {
      const result = await undoLifecycle(ctx.memory);
      const query = { notice: "undone", n: result.items.length, id: result.applyId };
      return { paths: result.paths, result, back: { path: "/curate", query } };
    },
  },
  {
    name: "consolidation/plan",
    run: async (ctx) => {
      const done = await planPass(ctx.memory);
      return { paths: [], result: done, back: { path: "/curate", query: { notice: "planned" } } };
    },
  },
  {
    name: "consolidation/apply",
    run: async (ctx, input) => {
      const done = await applyApprovedOperations(ctx.memory, strings(input.approve));
      const query = {
        notice: "consolidated",
        n: done.approved,
        rejected: done.rejected,
        id: done.applyId,
      };
      return { paths: done.paths, result: done, back: { path: "/curate", query } };
    },
  },
  {
    name: "consolidation/undo",
    run: async (ctx) => {
      const done = await undoConsolidation(ctx.memory);
      const query = { notice: "unconsolidated", id: done.applyId };
      return { paths: done.paths, result: done, back: { path: "/curate", query } };
    },
  },
  {
    name: "forget",
    run: async (ctx, input) => {
      const target = lineTarget(input);
      const done = await forgetLines(ctx.memory, target, text(input.reason));
      return { paths: done.paths ?? [], result: done, back: onFile(target.path, "forgotten") };
    },
  },
  {
    name: "forget/undo",
    run: async (ctx, input) => {
      const done = await undoForget(ctx.memory);
      return { paths: done.paths, result: done, back: onFile(text(input.path), "unforgotten") };
    },
  },
  {
    name: "update",
    run: async (ctx, input) => {
      const target = lineTarget(input);
      const done = await updateLines(ctx.memory, target, text(input.text), text(input.reason));
      return { paths: done.paths, result: done, back: onFile(target.path, "updated") };
    },
  },
  {
    name: "update/undo",
    run: async (ctx, input) => {
      const done = await undoUpdate(ctx.memory);
      return { paths: done.paths, result: done, back: onFile(text(input.path), "unupdated") };
    },
  },
];

function onFile(path: string, notice: string): WriteOutcome["back"] {
  return { path: "/file", query: { path, raw: 1, notice } };
}

/** Lines named by a request: `path`, `startLine`, `endLine` (numbers or digit strings). */
export function lineTarget(input: Record<string, unknown>): LineTarget {
  const path = text(input.path);
  const startLine = Number(text(input.startLine) || input.startLine);
  const endLine = Number(text(input.endLine) || input.endLine || startLine);
  if (
    !path ||
    !Number.isInteger(startLine) ||
    !Number.isInteger(endLine) ||
    startLine < 1 ||
    endLine < startLine
  ) {
    throw new EngramError(
      "INVALID_ARGUMENT",
      "name the lines as path, startLine and endLine (1-based, endLine ≥ startLine)",
      {
        hint: 'for example { "path": "MEMORY.md", "startLine": 12, "endLine": 14 }',
      },
    );
  }
  return { path, startLine, endLine };
}

/** A field's strings: a JSON array, repeated form fields, or one value. */
function strings(value: unknown): string[] {
  return ([] as unknown[])
    .concat(value ?? [])
    .filter((v): v is string => typeof v === "string" && v !== "");
}

/** A field's first string, or "". */
function text(value: unknown): string {
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === "string" ? first : "";
}
