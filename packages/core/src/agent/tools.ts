import { EngramError } from "../errors.js";
import type { Memory } from "../memory.js";
import type { SearchMode } from "../search/types.js";
import type { Tier } from "../tier.js";
import type { AppendResult } from "../workspace/append.js";
import { isDailyLogPath } from "../workspace/layout.js";
import type { MemoryFileSlice } from "../workspace/read.js";
import { type MemoryWriteArgs, parseToolArgs } from "./tools-args.js";
import { CURATION_TOOL_DEFINITIONS } from "./tools-curation.js";
import {
  type ConsolidateToolResult,
  type CurationHost,
  curationHandlers,
  type ForgetToolResult,
  type UpdateToolResult,
} from "./tools-curation-handlers.js";
import {
  MEMORY_TOOL_DEFINITIONS,
  type MemoryToolName,
  type ToolDefinition,
} from "./tools-definitions.js";

/**
 * What the tools need of a {@link Memory} (a `Memory` is one). The curation tools are offered
 * only when the host has `forget`, `update` and `consolidate`.
 */
export type MemoryToolsHost = Pick<Memory, "search" | "get" | "appendDaily" | "appendLongTerm"> &
  Partial<CurationHost>;

/** One `memory_search` hit: a snippet with the exact lines it shows. */
export interface SearchToolHit {
  path: string;
  startLine: number;
  endLine: number;
  snippet: string;
  score: number;
  tier: Tier;
  source: string;
  /** Embedding provider and model that answered the vector side, when it ran. */
  provider?: string;
  model?: string;
  /** True when a fallback provider answered instead of the configured primary. */
  fallback: boolean;
  /** True when keyword search answered alone. */
  degraded: boolean;
}

/** The result of `memory_search`. */
export interface SearchToolResult {
  query: string;
  mode: SearchMode;
  degraded: boolean;
  degradedReason?: string;
  results: SearchToolHit[];
}

/** The result of `memory_write`: where the appended entry landed. */
export interface WriteToolResult extends AppendResult {
  /** `daily`, `long-term`, or `file` (a named memory file). */
  target: "daily" | "long-term" | "file";
}

/** Result type of each tool. */
export interface MemoryToolResults {
  memory_search: SearchToolResult;
  memory_get: MemoryFileSlice;
  memory_write: WriteToolResult;
  memory_forget: ForgetToolResult;
  memory_update: UpdateToolResult;
  memory_consolidate: ConsolidateToolResult;
}

/** Options of {@link createMemoryTools}. */
export interface MemoryToolsOptions {
  /** Leave `memory_write` and the curation tools out (a read-only agent or server). Default false. */
  readOnly?: boolean;
  /**
   * `group`: the agent serves a shared conversation; the curation tools (forget, update,
   * consolidate) are left out and refused. Default `main`.
   */
  scope?: "main" | "group";
}

/** The memory tools of one workspace: definitions to hand to a model, and their handler. */
export interface MemoryTools {
  /** JSON Schema definitions (`{ name, description, parameters }`). */
  readonly definitions: readonly ToolDefinition[];
  /**
   * Runs a tool call. `args` is the model's arguments object, or its JSON text. The result is
   * plain JSON-serialisable data.
   *
   * @throws EngramError `INVALID_ARGUMENT` for an unknown tool or a bad argument (naming the
   * field); any error of the memory operation (e.g. `FILE_NOT_FOUND`, `PATH_NOT_ALLOWED`). Use
   * `toolErrorResult` to hand the failure back to the model.
   */
  call<N extends MemoryToolName>(name: N, args: unknown): Promise<MemoryToolResults[N]>;
  call(name: string, args: unknown): Promise<MemoryToolResults[MemoryToolName]>;
}

/**
 * `memory_search`, `memory_get` and `memory_write` over a workspace's memory, ready for
 * OpenAI-style function calling (see `openAiTools`) and MCP (`engram mcp`).
 * `memory_write` only ever appends, through the same locked append as `Memory.appendDaily` /
 * `appendLongTerm`: no call can overwrite or truncate a file.
 *
 * @example
 * ```ts
 * const tools = createMemoryTools(memory);
 * const found = await tools.call("memory_search", { query: "rollback plan" });
 * await tools.call("memory_write", { text: "Rolled back v2.1", target: "daily" });
 * ```
 */
export function createMemoryTools(
  memory: MemoryToolsHost,
  options: MemoryToolsOptions = {},
): MemoryTools {
  const curation =
    !options.readOnly &&
    options.scope !== "group" &&
    typeof memory.forget === "function" &&
    typeof memory.update === "function" &&
    typeof memory.consolidate === "function";
  const definitions = [
    ...(options.readOnly
      ? MEMORY_TOOL_DEFINITIONS.filter((d) => d.name !== "memory_write")
      : MEMORY_TOOL_DEFINITIONS),
    ...(curation ? CURATION_TOOL_DEFINITIONS : []),
  ];
  const enabled = new Set<string>(definitions.map((d) => d.name));
  const refusedHere = (name: string) =>
    CURATION_TOOL_DEFINITIONS.some((d) => d.name === name) &&
    (options.readOnly || options.scope === "group");

  const handlers = {
    memory_search: async (raw: unknown): Promise<SearchToolResult> => {
      const args = parseToolArgs("memory_search", raw);
      const { query, ...rest } = args;
      const response = await memory.search(query, rest);
      return {
        query: response.query,
        mode: response.mode,
        degraded: response.degraded,
        ...(response.degradedReason ? { degradedReason: response.degradedReason } : {}),
        results: response.results.map((r) => ({
          path: r.path,
          startLine: r.startLine,
          endLine: r.endLine,
          snippet: r.snippet,
          score: r.score,
          tier: r.tier,
          source: r.source,
          ...(r.provider ? { provider: r.provider } : {}),
          ...(r.model ? { model: r.model } : {}),
          fallback: r.fallback === true,
          degraded: r.degraded,
        })),
      };
    },
    memory_get: async (raw: unknown): Promise<MemoryFileSlice> => {
      const { path, ...range } = parseToolArgs("memory_get", raw);
      return memory.get(path, range);
    },
    memory_write: async (raw: unknown): Promise<WriteToolResult> =>
      writeMemory(memory, parseToolArgs("memory_write", raw)),
    ...(curation ? curationHandlers(memory as CurationHost) : unavailable()),
  } satisfies { [N in MemoryToolName]: (raw: unknown) => Promise<MemoryToolResults[N]> };

  return {
    definitions,
    call: async (name: string, args: unknown) => {
      if (refusedHere(name)) {
        throw new EngramError(
          "INVALID_ARGUMENT",
          `${name} is not available ${options.readOnly ? "to a read-only agent" : "in group scope"}`,
          {
            hint: "curating memory (forget, update, consolidate) is for the main session of a writable workspace",
          },
        );
      }
      if (!enabled.has(name)) {
        throw new EngramError("INVALID_ARGUMENT", `unknown tool "${name}"`, {
          hint: `call one of ${[...enabled].join(", ")}`,
        });
      }
      return handlers[name as MemoryToolName](args);
    },
  } as MemoryTools;
}

/** Appends through core's locked append functions; the target only picks the file. */
async function writeMemory(memory: MemoryToolsHost, args: MemoryWriteArgs) {
  const { text, target } = args;
  if (target === "daily") return { ...(await memory.appendDaily(text)), target: "daily" as const };
  if (target === "long-term") {
    return { ...(await memory.appendLongTerm(text)), target: "long-term" as const };
  }
  // A named daily log keeps the daily format (`## HH:MM` entries).
  const date = isDailyLogPath(target);
  const result = date
    ? await memory.appendDaily(text, { date })
    : await memory.appendLongTerm(text, { file: target });
  return { ...result, target: "file" as const };
}

/** Stand-ins for the curation tools when the host cannot curate (never called: not enabled). */
function unavailable() {
  const no = (): never => {
    throw new EngramError("INVALID_ARGUMENT", "this memory cannot curate", {
      hint: "pass a Memory (createMemory) to createMemoryTools",
    });
  };
  return { memory_forget: no, memory_update: no, memory_consolidate: no };
}
