import { formatRef, parseRef } from "../consolidation/citations.js";
import { describeRefusal } from "../consolidation/report.js";
import { EngramError } from "../errors.js";
import type { Memory } from "../memory.js";
import { parseToolArgs } from "./tools-args.js";

/** What the curation tools need of a {@link Memory}. */
export type CurationHost = Pick<Memory, "forget" | "update" | "consolidate">;

/** The result of `memory_forget`. */
export interface ForgetToolResult {
  forgotten: Array<{ path: string; startLine: number; endLine: number; text: string }>;
  archivedTo: string;
  applyId: string;
}

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
  /** Files the pass writes (plan) or wrote (apply). */
  files: string[];
  /** Set after an apply. */
  applyId?: string;
  /** Queries that would lose what they found (the apply is refused while any). */
  unsafe: string[];
  tokens: { input: number; output: number; calls: number };
}

/** Handlers of `memory_forget`, `memory_update` and `memory_consolidate`. */
export function curationHandlers(memory: CurationHost) {
  return {
    memory_forget: async (raw: unknown): Promise<ForgetToolResult> => {
      const args = parseToolArgs("memory_forget", raw) as {
        target?: string;
        query?: string;
        reason?: string;
        fromLog?: boolean;
      };
      if ((args.target === undefined) === (args.query === undefined)) {
        throw new EngramError("INVALID_ARGUMENT", "memory_forget: pass either target or query", {
          hint: 'target: "MEMORY.md:12-14" (lines), or query: "text to forget"',
        });
      }
      const result = await memory.forget(
        args.target !== undefined
          ? parseRef(args.target, "target")
          : { query: args.query as string },
        { ...(args.reason ? { reason: args.reason } : {}), fromLog: args.fromLog === true },
      );
      return {
        forgotten: result.forgotten,
        archivedTo: result.archivedTo ?? "",
        applyId: result.applyId ?? "",
      };
    },
    memory_update: async (raw: unknown): Promise<UpdateToolResult> => {
      const args = parseToolArgs("memory_update", raw) as {
        target: string;
        text: string;
        reason?: string;
      };
      const hash = args.target.indexOf("#");
      const target =
        hash > 0
          ? { path: args.target.slice(0, hash), section: args.target.slice(hash + 1) }
          : parseRef(args.target, "target");
      const r = await memory.update(target, args.text, args.reason ? { reason: args.reason } : {});
      return {
        path: r.path,
        startLine: r.startLine,
        endLine: r.endLine,
        archivedTo: r.archivedTo,
        dropped: r.dropped,
        applyId: r.applyId,
      };
    },
    memory_consolidate: async (raw: unknown): Promise<ConsolidateToolResult> => {
      const args = parseToolArgs("memory_consolidate", raw) as {
        mode?: "plan" | "apply";
        maxTokens?: number;
      };
      const mode = args.mode ?? "plan";
      const options = args.maxTokens ? { maxTokens: args.maxTokens } : {};
      const applied =
        mode === "apply" ? await memory.consolidate({ ...options, mode: "apply" }) : null;
      const plan = applied ? applied.plan : await memory.consolidate({ ...options, mode: "plan" });
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
  };
}
