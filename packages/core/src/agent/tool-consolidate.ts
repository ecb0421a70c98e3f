import * as v from "valibot";
import { formatRef } from "../consolidation/citations.js";
import { describeRefusal } from "../consolidation/report.js";
import { curationHost } from "./tool-curation.js";
import { expects, wholeNumber } from "./tool-schema.js";
import { defineMemoryTool } from "./tool-spec.js";

/** The result of `memory_consolidate`. */
export interface ConsolidateToolResult {
  mode: "plan" | "apply";
  by: "model" | "deterministic";
  operations: Array<{
    op: string;
    text: string;
    targets: string[];
    sources: string[];
    reason: string;
    at?: string;
  }>;
  refused: string[];
  files: string[];
  applyId?: string;
  unsafe: string[];
  tokens: { input: number; output: number; calls: number };
}

const args = v.strictObject({
  mode: v.optional(
    v.pipe(
      v.picklist(["plan", "apply"]),
      v.description("'plan' (show what a pass would do) or 'apply' (do it)."),
      v.examples(["plan"]),
      expects('"plan" or "apply"'),
    ),
    "plan",
  ),
  maxTokens: v.optional(
    v.pipe(
      wholeNumber(1),
      v.description("Most tokens the pass may spend with the language model."),
      v.examples([20000]),
      expects("a whole number of at least 1"),
    ),
  ),
});

const operation = v.object({
  op: v.pipe(v.string(), v.description("ADD, UPDATE, SUPERSEDE, MERGE or SUMMARY.")),
  text: v.pipe(v.string(), v.description("The entry as it will read.")),
  targets: v.pipe(v.array(v.string()), v.description("Entries it changes (path:start-end).")),
  sources: v.pipe(v.array(v.string()), v.description("Lines it comes from (path:start-end).")),
  reason: v.pipe(v.string(), v.description("Why.")),
  at: v.optional(v.pipe(v.string(), v.description("Where the text lands."))),
});

const result = v.object({
  mode: v.picklist(["plan", "apply"]),
  by: v.pipe(v.picklist(["model", "deterministic"]), v.description("Who proposed the operations.")),
  operations: v.pipe(v.array(operation), v.description("The operations engram accepted.")),
  refused: v.pipe(v.array(v.string()), v.description("Operations refused, each with its reason.")),
  files: v.pipe(
    v.array(v.string()),
    v.description("Files the pass writes (plan) or wrote (apply)."),
  ),
  applyId: v.optional(v.pipe(v.string(), v.description("The pass's id, after an apply."))),
  unsafe: v.pipe(
    v.array(v.string()),
    v.description("Queries that would lose what they found (the apply is refused while any)."),
  ),
  tokens: v.object({
    input: v.pipe(wholeNumber(0), v.description("Tokens sent to the model.")),
    output: v.pipe(wholeNumber(0), v.description("Tokens received.")),
    calls: v.pipe(wholeNumber(0), v.description("Model calls.")),
  }),
});

/** `memory_consolidate`: plan or apply a consolidation pass. */
export const memoryConsolidateTool = defineMemoryTool({
  name: "memory_consolidate",
  title: "Consolidate memory",
  description:
    "Curate long-term memory from the notes written since the last pass: add lasting facts, " +
    "merge duplicates, archive what newer notes contradict. mode 'plan' (default) shows every " +
    "operation with its sources and what engram refused; 'apply' carries it out (journaled, " +
    "reported in memory/dreams/, undoable).",
  annotations: {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    // With a language model configured, memory is sent to it.
    openWorldHint: true,
  },
  curates: true,
  args,
  result: result satisfies v.GenericSchema<unknown, ConsolidateToolResult>,
  run: async (memory, { mode, maxTokens }) => {
    const host = curationHost(memory);
    const options = maxTokens ? { maxTokens } : {};
    const applied = mode === "apply" ? await host.consolidate({ ...options, mode: "apply" }) : null;
    const plan = applied ? applied.plan : await host.consolidate({ ...options, mode: "plan" });
    return {
      mode,
      by: plan.mode,
      operations: plan.operations.map((o) => ({
        op: o.op,
        text: o.text,
        targets: o.targets.map(formatRef),
        sources: o.sources.map(formatRef),
        reason: o.reason,
        ...(o.placed ? { at: formatRef(o.placed) } : {}),
      })),
      refused: plan.refused.map(describeRefusal),
      files: plan.diffs.map((d) => d.path),
      ...(applied ? { applyId: applied.applyId } : {}),
      unsafe: plan.guard.failed.map((f) => `"${f.query}" → ${formatRef(f.line)}`),
      tokens: { input: plan.tokens.input, output: plan.tokens.output, calls: plan.tokens.calls },
    };
  },
});
