import { EngramError } from "../errors.js";
import type { Memory } from "../memory.js";
import type { SearchMode } from "../search/types.js";
import type { Tier } from "../tier.js";
import type { AppendResult } from "../workspace/append.js";
import { isDailyLogPath } from "../workspace/layout.js";
import type { MemoryFileSlice } from "../workspace/read.js";
import { createTierResolver } from "../workspace/tiers.js";
import { ToolPrivacy, type ToolPrivacyHost, type ToolPrivacyOptions } from "./tool-privacy.js";
import { type MemoryWriteArgs, parseToolArgs } from "./tools-args.js";
import {
  MEMORY_TOOL_DEFINITIONS,
  type MemoryToolName,
  type ToolDefinition,
} from "./tools-definitions.js";

/** What the tools need of a {@link Memory} (a `Memory` is one). */
export type MemoryToolsHost = Pick<Memory, "search" | "get" | "appendDaily" | "appendLongTerm"> &
  ToolPrivacyHost;

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
  /** What was held back from this hit (sensitive long-term memory of a locked session). */
  withheld?: string;
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
  memory_get: MemoryFileSlice & { withheld?: string };
  memory_write: WriteToolResult;
}

/** Options of {@link createMemoryTools} (scope and unlock: see {@link ToolPrivacyOptions}). */
export interface MemoryToolsOptions extends ToolPrivacyOptions {
  /** Leave `memory_write` out (a read-only agent or server). Default false. */
  readOnly?: boolean;
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
  const definitions = options.readOnly
    ? MEMORY_TOOL_DEFINITIONS.filter((d) => d.name !== "memory_write")
    : MEMORY_TOOL_DEFINITIONS;
  const enabled = new Set<string>(definitions.map((d) => d.name));
  const privacy = new ToolPrivacy(memory, options);
  const tierOf = memory.layout
    ? createTierResolver(memory.layout.tiers, memory.config?.defaultTier)
    : () => "long" as const;

  const handlers = {
    memory_search: async (raw: unknown): Promise<SearchToolResult> => {
      const args = parseToolArgs("memory_search", raw);
      const { query, unlock, ...rest } = args;
      const response = await memory.search(query, { ...rest, scope: privacy.scope });
      const results = await privacy.guardHits(response.results, unlock);
      return {
        query: response.query,
        mode: response.mode,
        degraded: response.degraded,
        ...(response.degradedReason ? { degradedReason: response.degradedReason } : {}),
        results: results.map((r) => ({
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
          ...(r.withheld ? { withheld: r.withheld } : {}),
        })),
      };
    },
    memory_get: async (raw: unknown): Promise<MemoryFileSlice & { withheld?: string }> => {
      const { path, unlock, ...range } = parseToolArgs("memory_get", raw);
      const slice = await memory.get(path, range);
      return privacy.guardSlice(slice, tierOf(slice.path), range.from, range.lines, unlock);
    },
    memory_write: async (raw: unknown): Promise<WriteToolResult> =>
      writeMemory(memory, parseToolArgs("memory_write", raw)),
  } satisfies { [N in MemoryToolName]: (raw: unknown) => Promise<MemoryToolResults[N]> };

  return {
    definitions,
    call: async (name: string, args: unknown) => {
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
